// kw: a Kubernetes API server (`kw serve`) and a kubectl-style watch client in one binary.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/commands/get.hpp"
#include "cli/commands/verbs.hpp"

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// An unknown first word gets the nearest subcommand suggested, like git and ninja do.
bool reject_unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const std::string_view word = argv[1];
  std::string best;
  std::size_t best_distance = 3;  // farther than this is not a typo
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == word) return false;
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_distance) best_distance = d, best = sub->get_name();
  }
  std::cerr << "kw: unknown command \"" << word << "\"";
  if (!best.empty()) std::cerr << "; did you mean \"" << best << "\"?";
  std::cerr << "\nRun 'kw --help' for the list of commands.\n";
  return true;
}

void add_version(CLI::App& app, int*) { kw::cli::add_version_command(app); }

// Every subcommand, in the order `kw --help` lists them. `needs_tree`: the command walks the
// whole command tree (completion scripts, man pages), so every command must be registered.
struct Command {
  std::string_view name;
  void (*add)(CLI::App&, int*);
  bool needs_tree = false;
};
constexpr Command k_commands[] = {
    {"serve", kw::cli::add_serve_command},
    {"get", kw::cli::add_get_command},
    {"watch", kw::cli::add_watch_command},
    {"create", kw::cli::add_create_command},
    {"apply", kw::cli::add_apply_command},
    {"delete", kw::cli::add_delete_command},
    {"label", kw::cli::add_label_command},
    {"annotate", kw::cli::add_annotate_command},
    {"patch", kw::cli::add_patch_command},
    {"api-resources", kw::cli::add_api_resources_command},
    {"auth", kw::cli::add_auth_command},
    {"config", kw::cli::add_config_command},
    {"completion", kw::cli::add_completion_commands, true},
    {"__complete", kw::cli::add_completion_commands},
    {"__manpage", kw::cli::add_manpage_command, true},
    {"version", add_version},
};

// Registering a command's options costs start-up time (dozens of options each), so a run
// that names a command registers only that one; anything else (help, a typo, completion
// scripts, man pages) gets the whole tree.
void add_commands(CLI::App& app, int argc, char** argv, int* exit_code) {
  const std::string_view first = argc >= 2 ? std::string_view(argv[1]) : std::string_view();
  for (const Command& command : k_commands) {
    if (command.name == first && !command.needs_tree) {
      command.add(app, exit_code);
      return;
    }
  }
  const Command* previous = nullptr;  // completion and __complete share one registration
  for (const Command& command : k_commands) {
    if (previous == nullptr || command.add != previous->add) command.add(app, exit_code);
    previous = &command;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kw: a Kubernetes watch stack"};
  app.require_subcommand(1);
  int exit_code = 0;
  add_commands(app, argc, argv, &exit_code);
  if (reject_unknown_subcommand(app, argc, argv)) return 1;
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
