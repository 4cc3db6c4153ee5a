#pragma once
// Man pages generated from the CLI11 definition: kw(1) and kw-<command>(1) for every visible
// command (nested ones as kw-config-view(1)), in roff with NAME, SYNOPSIS, DESCRIPTION,
// OPTIONS (name, value type, description, default), EXIT STATUS and SEE ALSO.
#include "cli/cli_fwd.hpp"

#include <string>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

namespace kw::cli {

// Text made safe for roff: backslashes, hyphens, and leading dots or quotes escaped.
std::string roff_escape(std::string_view text);

// (file name, page text) of every page, kw.1 first.
std::vector<std::pair<std::string, std::string>> man_pages(const CLI::App& app);

// Writes every page into dir (created when missing).
Result<void> write_man_pages(const CLI::App& app, const std::string& dir);

}  // namespace kw::cli
