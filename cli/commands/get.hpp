#pragma once
// kw get and kw watch: the kubectl-style client subcommands.
#include "cli/cli_fwd.hpp"

namespace kw::cli {

// Registers `get TYPE[,TYPE...] [NAME...]` (with -w / --watch-only); the exit code lands in
// *exit_code when it ran.
void add_get_command(CLI::App& app, int* exit_code);
// Registers `watch TYPE[,TYPE...]`: several kinds in one output stream.
void add_watch_command(CLI::App& app, int* exit_code);

}  // namespace kw::cli
