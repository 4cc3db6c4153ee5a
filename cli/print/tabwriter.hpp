#pragma once
// Go's text/tabwriter, as kubectl writes its tables (get: minimum width 6, padding 3) and its
// descriptions (describe, rollout history: minimum width 0, padding 2), with spaces.
#include <cstddef>
#include <string>
#include <string_view>

namespace kw::cli {

// Lays out tab-separated `text`: a cell is the text before a tab, and a column is aligned only
// over the run of adjacent lines that have a cell in it (the text after a line's last tab is no
// cell). A column is as wide as its widest cell plus `padding`, and at least `min_width`.
std::string align_columns(std::string_view text, std::size_t min_width = 0, std::size_t padding = 2);

// The width of UTF-8 text in characters (Go's utf8.RuneCountInString).
std::size_t rune_count(std::string_view text);

}  // namespace kw::cli
