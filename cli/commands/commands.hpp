#pragma once
// The subcommands of kw: each registers its options on the CLI11 app and runs when chosen.
#include "cli/cli_fwd.hpp"

namespace kw::cli {

// Registers `serve` on app; the returned exit code lands in *exit_code when it ran.
void add_serve_command(CLI::App& app, int* exit_code);
void add_version_command(CLI::App& app);

}  // namespace kw::cli
