#include "cli/print/tabwriter.hpp"

#include <algorithm>
#include <vector>

namespace kw::cli {

namespace {


// One tab-separated line of the text being aligned.
using Cells = std::vector<std::string_view>;

void write_lines(std::string& out, const std::vector<Cells>& lines, std::size_t from, std::size_t to,
                 const std::vector<std::size_t>& widths) {
  for (std::size_t i = from; i < to; ++i) {
    const Cells& line = lines[i];
    for (std::size_t j = 0; j < line.size(); ++j) {
      out += line[j];
      if (j < widths.size()) out.append(widths[j] - std::min(widths[j], rune_count(line[j])), ' ');
    }
    out += '\n';
  }
}

// Go tabwriter's format(): the widths of column widths.size() over each run of lines that
// have a cell there, the columns to its right laid out within that run.
void format(std::string& out, const std::vector<Cells>& lines, std::vector<std::size_t>& widths, std::size_t from,
            std::size_t to, std::size_t min_width, std::size_t padding) {
  const std::size_t column = widths.size();
  for (std::size_t line = from; line < to; ++line) {
    if (column + 1 >= lines[line].size()) continue;
    write_lines(out, lines, from, line, widths);
    from = line;
    std::size_t width = min_width;
    for (; line < to && column + 1 < lines[line].size(); ++line)
      width = std::max(width, rune_count(lines[line][column]) + padding);
    widths.push_back(width);
    format(out, lines, widths, from, line, min_width, padding);
    widths.pop_back();
    from = line;
    if (line == to) break;
  }
  write_lines(out, lines, from, to, widths);
}

}  // namespace

std::size_t rune_count(std::string_view text) {
  return static_cast<std::size_t>(
      std::ranges::count_if(text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string align_columns(std::string_view text, std::size_t min_width, std::size_t padding) {
  const bool final_newline = text.ends_with('\n');
  if (final_newline) text.remove_suffix(1);
  std::vector<Cells> lines;
  if (!text.empty() || final_newline) {
    std::size_t start = 0;
    while (true) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      Cells cells;
      std::string_view line = text.substr(start, end - start);
      for (std::size_t tab; (tab = line.find('\t')) != std::string_view::npos; line.remove_prefix(tab + 1))
        cells.push_back(line.substr(0, tab));
      cells.push_back(line);
      lines.push_back(std::move(cells));
      if (end == text.size()) break;
      start = end + 1;
    }
  }
  std::string out;
  std::vector<std::size_t> widths;
  format(out, lines, widths, 0, lines.size(), min_width, padding);
  if (!final_newline && !out.empty()) out.pop_back();
  return out;
}

}  // namespace kw::cli
