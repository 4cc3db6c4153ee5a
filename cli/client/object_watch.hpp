#pragma once
// Waiting on one object through a watch (kw wait, kw rollout status): the object is listed
// and watched by name with the client's watch loop (cli/client/watch.hpp), which reconnects
// after a disconnect and relists after 410 Gone, and every state it reaches is handed to a
// judge until the judge is satisfied or the time is up.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/client/api.hpp"
#include "core/api/resource.hpp"

namespace kw::cli {

// What the watch saw: the object as it now is, or nullopt when it does not exist (absent
// from the first listing, or deleted since).
using ObjectState = std::optional<nlohmann::json>;

// Called on the watch's thread with each state in order; returns true when the wait is over.
using StateJudge = std::function<bool(const ObjectState& state)>;

enum class WatchEnd { Satisfied, TimedOut, Failed };

struct ObjectWatchResult {
  WatchEnd end = WatchEnd::Failed;
  int exit_code = 0;  // when it failed: the exit code (the error is already printed)
};

// Watches `name` until `judge` returns true or `timeout` passes (nullopt: no limit). `api` is
// cloned for the stream, so it stays usable afterwards.
ObjectWatchResult watch_object(ApiClient& api, const api::ResourceInfo& info, const std::string& namespace_name,
                               const std::string& name, std::optional<std::chrono::milliseconds> timeout,
                               const StateJudge& judge);

// The same over every object of `info` in `namespace_name` ("" = every namespace) that a label
// selector matches ("" = all of them): the judge sees each one listed or changed, and nullopt
// for an empty listing or a deletion.
ObjectWatchResult watch_selection(ApiClient& api, const api::ResourceInfo& info, const std::string& namespace_name,
                                  const std::string& selector, std::optional<std::chrono::milliseconds> timeout,
                                  const StateJudge& judge);

}  // namespace kw::cli
