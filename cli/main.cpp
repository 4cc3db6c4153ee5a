// kw: a Kubernetes API server (`kw serve`) and a kubectl-style watch client in one binary.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/get.hpp"
#include "cli/verbs.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kw: a Kubernetes watch stack"};
  app.require_subcommand(1);
  int exit_code = 0;
  kw::cli::add_serve_command(app, &exit_code);
  kw::cli::add_get_command(app, &exit_code);
  kw::cli::add_watch_command(app, &exit_code);
  kw::cli::add_verb_commands(app, &exit_code);
  kw::cli::add_version_command(app);
  if (reject_unknown_subcommand(app, argc, argv)) return 1;
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
