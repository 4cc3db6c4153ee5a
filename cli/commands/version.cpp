#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands/commands.hpp"

namespace kw::cli {

void add_version_command(CLI::App& app) {
  auto* version = app.add_subcommand("version", "Print the kw version, commit and build type");
  version->callback([] {
    std::cout << "kw " << KW_VERSION << " (commit " << KW_GIT_COMMIT << ", " << KW_BUILD_TYPE << ")\n";
  });
}

}  // namespace kw::cli
