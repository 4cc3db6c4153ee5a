#pragma once
// How far the rollout of a Deployment, StatefulSet or DaemonSet has come, read from its spec
// and status and worded as kubectl's status viewers word it.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::cli {

struct RolloutProgress {
  std::string message;  // one line, with its newline
  bool done = false;
};

// `kind` is the object's kind; a kind without a rollout, a strategy that has none, or a
// Deployment past its progress deadline is an error. `revision` (> 0, --revision) is the
// Deployment revision to wait for: another one is an error; other kinds ignore it.
Result<RolloutProgress> rollout_progress(const std::string& kind, const nlohmann::json& object,
                                         std::int64_t revision = 0);

}  // namespace kw::cli
