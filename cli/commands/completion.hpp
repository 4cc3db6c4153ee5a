#pragma once
// Shell completion generated from the CLI11 definition: for every visible command path its
// subcommands, flags, the flags that take a value, the fixed values of an option (from its
// IsMember check, or kubectl's -o formats), and what its positional arguments complete to.
// Resource types, object names, namespaces and contexts are asked of `kw __complete` at
// completion time, so they come from the live server.
#include "cli/cli_fwd.hpp"

#include <string>
#include <vector>

namespace kw::cli {

struct OptionCompletion {
  std::vector<std::string> names;  // "-o", "--output"
  // "" (nothing), "@files", "@namespaces", "@contexts", or space-separated fixed values.
  std::string values;
};

struct CommandCompletion {
  std::string path;  // "" for kw itself, "get", "config use-context"
  std::vector<std::string> subcommands;
  std::vector<std::string> flags;   // every option name
  std::vector<OptionCompletion> valued;  // options taking a value
  // What positionals complete to: "" | "@resources" (TYPE then NAME...) | "@contexts" |
  // "@files" | fixed values.
  std::string positional;
};

// Every visible command path of the app, depth first (hidden commands are left out).
std::vector<CommandCompletion> completion_model(const CLI::App& app);

std::string bash_completion_script(const CLI::App& app);
std::string zsh_completion_script(const CLI::App& app);

}  // namespace kw::cli
