// kw: a Kubernetes API server (`kw serve`) and a kubectl-style watch client in one binary.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string>
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

// pflag, kubectl's flag parser, reads "-p=VALUE" as -p with VALUE; CLI11 would keep the '='
// in the value. Short options written that way (before a "--") are split in two.
std::vector<std::string> with_short_flag_values_split(std::vector<std::string> args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  bool after_separator = false;
  for (auto& word : args) {
    after_separator = after_separator || word == "--";
    if (!after_separator && word.size() >= 3 && word[0] == '-' && word[1] != '-' && word[2] == '=') {
      out.push_back(word.substr(0, 2));
      out.push_back(word.substr(3));
    } else {
      out.push_back(std::move(word));
    }
  }
  return out;
}

// kubectl takes its global flags (--kubeconfig, --context, -n, --server, --token, --as...)
// before the verb as well as after it: `kw --context prod -n web get pods`. Those flags are the
// connection flags every client verb registers (cli/client/api.cpp); the ones given before the
// verb are moved after the whole command line (before a "--"), where every verb, nested or not,
// reads them. Anything else before the verb is left for the parser to report.
std::vector<std::string> with_global_flags_after_verb(std::vector<std::string> args) {
  if (args.size() < 3 || !args[1].starts_with('-') || args[1] == "-h" || args[1] == "--help") return args;
  CLI::App probe;
  int unused = 0;
  kw::cli::add_get_command(probe, &unused);
  const CLI::App* reference = probe.get_subcommand("get");
  std::vector<std::string> moved;
  std::size_t i = 1;
  while (i < args.size() && args[i].starts_with('-') && args[i] != "--") {
    const std::string& word = args[i];
    const bool long_form = word.starts_with("--");
    const std::string name = long_form ? word.substr(0, word.find('=')) : word.substr(0, 2);
    const bool attached = long_form ? word.find('=') != std::string::npos : word.size() > 2;
    const CLI::Option* option = reference->get_option_no_throw(name);
    if (option == nullptr) break;
    moved.push_back(word);
    if (option->get_items_expected_min() > 0 && !attached && i + 1 < args.size()) moved.push_back(args[++i]);
    ++i;
  }
  if (moved.empty() || i >= args.size()) return args;  // no verb after them: nothing to move
  std::vector<std::string> out{args[0]};
  out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  const auto separator = std::ranges::find(out, std::string("--"));
  out.insert(separator, moved.begin(), moved.end());
  return out;
}

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
    {"diff", kw::cli::add_diff_command},
    {"delete", kw::cli::add_delete_command},
    {"edit", kw::cli::add_edit_command},
    {"label", kw::cli::add_label_command},
    {"annotate", kw::cli::add_annotate_command},
    {"patch", kw::cli::add_patch_command},
    {"scale", kw::cli::add_scale_command},
    {"wait", kw::cli::add_wait_command},
    {"rollout", kw::cli::add_rollout_command},
    {"events", kw::cli::add_events_command},
    {"describe", kw::cli::add_describe_command},
    {"explain", kw::cli::add_explain_command},
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

int main(int raw_argc, char** raw_argv) {
  auto words = with_global_flags_after_verb(
      with_short_flag_values_split(std::vector<std::string>(raw_argv, raw_argv + raw_argc)));
  std::vector<char*> pointers;
  for (auto& word : words) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  const int argc = static_cast<int>(words.size());
  char** argv = pointers.data();
  CLI::App app{"kw: a Kubernetes watch stack"};
  app.require_subcommand(1);
  int exit_code = 0;
  add_commands(app, argc, argv, &exit_code);
  if (reject_unknown_subcommand(app, argc, argv)) return 1;
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
