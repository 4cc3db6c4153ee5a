#pragma once
// kw rollout history and kw rollout undo, registered under kw rollout.
#include "cli/cli_fwd.hpp"

namespace kw::cli {

void add_rollout_history_commands(CLI::App& rollout, int* exit_code);

}  // namespace kw::cli
