#pragma once
// The kubectl-style verbs that change things (create, apply, delete, label, annotate,
// patch) or show what would change (diff), api-resources, config, and the shell integration
// (completion scripts, the hidden __complete and __manpage helpers). Each add_* registers one
// subcommand on the app; the exit code lands in *exit_code when it ran.
#include "cli/cli_fwd.hpp"

namespace kw::cli {

void add_create_command(CLI::App& app, int* exit_code);
// `create token NAME` (a subcommand of create).
void add_create_token_command(CLI::App& create, int* exit_code);
// `create role|clusterrole|rolebinding|clusterrolebinding NAME` (subcommands of create).
void add_create_rbac_commands(CLI::App& create, int* exit_code);
// `create namespace|configmap|secret generic|tls|docker-registry|deployment|job NAME`.
void add_create_generated_commands(CLI::App& create, int* exit_code);
// `auth whoami` and `auth can-i`.
void add_auth_command(CLI::App& app, int* exit_code);
void add_apply_command(CLI::App& app, int* exit_code);
// `diff -f`: what apply would change, shown by diff(1) as kubectl diff shows it.
void add_diff_command(CLI::App& app, int* exit_code);
void add_delete_command(CLI::App& app, int* exit_code);
// `edit TYPE NAME` / `edit -f`: objects patched with what an editor changed.
void add_edit_command(CLI::App& app, int* exit_code);
void add_label_command(CLI::App& app, int* exit_code);
void add_annotate_command(CLI::App& app, int* exit_code);
void add_patch_command(CLI::App& app, int* exit_code);
void add_scale_command(CLI::App& app, int* exit_code);
void add_wait_command(CLI::App& app, int* exit_code);
// `rollout status`.
void add_rollout_command(CLI::App& app, int* exit_code);
void add_events_command(CLI::App& app, int* exit_code);
// `describe TYPE [NAME_PREFIX]`, TYPE/NAME, -f, -l: kubectl describe's text for each object.
void add_describe_command(CLI::App& app, int* exit_code);
// `explain TYPE[.FIELD...]` from the server's OpenAPI v3 schema.
void add_explain_command(CLI::App& app, int* exit_code);
void add_api_resources_command(CLI::App& app, int* exit_code);
void add_config_command(CLI::App& app, int* exit_code);
// `completion bash|zsh` and the hidden `__complete` (live names for the scripts).
void add_completion_commands(CLI::App& app, int* exit_code);
// The hidden `__manpage OUT_DIR`.
void add_manpage_command(CLI::App& app, int* exit_code);

}  // namespace kw::cli
