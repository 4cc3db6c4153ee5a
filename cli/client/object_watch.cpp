#include "cli/client/object_watch.hpp"

#include <atomic>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/client/discovery.hpp"
#include "cli/client/watch.hpp"

namespace kw::cli {

namespace {

// A Printer that prints nothing: it turns the watch loop's listing and events into states
// for the judge, and stops the loop once the judge is satisfied.
class JudgingPrinter final : public Printer {
 public:
  JudgingPrinter(const StateJudge& judge, StopState& stop) : m_judge(judge), m_stop(stop) {}

  Result<void> print_list(const KindInfo&, const std::vector<Item>& items, bool, std::ostream&) override {
    if (items.empty()) return judge(std::nullopt);
    for (const auto& item : items) {
      judge(item.object);
      if (m_satisfied) break;
    }
    return {};
  }
  Result<void> print_event(const KindInfo&, const Item& item, std::ostream&) override {
    if (item.type == "DELETED") return judge(std::nullopt);
    return judge(item.object);
  }
  bool satisfied() const { return m_satisfied.load(); }

 private:
  Result<void> judge(const ObjectState& state) {
    if (m_satisfied) return {};
    if (m_judge(state)) {
      m_satisfied = true;
      m_stop.request_stop();
    }
    return {};
  }

  const StateJudge& m_judge;
  StopState& m_stop;
  std::atomic<bool> m_satisfied{false};
};

// Watches what `query` and `options` select until the judge is satisfied or time is up.
ObjectWatchResult watch_judged(ApiClient& api, const api::ResourceInfo& info, Query query, WatchOptions options,
                               std::optional<std::chrono::milliseconds> timeout, const StateJudge& judge) {
  auto stream_client = api.clone();
  if (!stream_client) {
    std::cerr << "error: " << stream_client.error().message << '\n';
    return {WatchEnd::Failed, k_exit_usage};
  }
  StopState stop;
  JudgingPrinter printer(judge, stop);
  std::ostringstream sink;
  SharedOutput output{printer, sink, {}, false};
  std::atomic<bool> timed_out{false};
  std::jthread timer;
  if (timeout)
    timer = std::jthread([&stop, &timed_out, limit = *timeout] {
      if (stop.sleep_for(limit)) {
        timed_out = true;
        stop.request_stop();
      }
    });
  WatchSession session(**stream_client, kind_info(info), query, options, output, stop);
  const int code = session.run();
  stop.request_stop();  // ends the timer
  if (timer.joinable()) timer.join();
  if (printer.satisfied()) return {WatchEnd::Satisfied, k_exit_ok};
  if (timed_out) return {WatchEnd::TimedOut, k_exit_ok};
  return {WatchEnd::Failed, code == k_exit_ok ? k_exit_unreachable : code};
}

}  // namespace

ObjectWatchResult watch_object(ApiClient& api, const api::ResourceInfo& info, const std::string& namespace_name,
                               const std::string& name, std::optional<std::chrono::milliseconds> timeout,
                               const StateJudge& judge) {
  Query query;
  query.namespace_name = info.namespaced ? namespace_name : std::string();
  query.want_table = false;
  WatchOptions options;
  options.single_name = name;
  options.initial_as_list = true;
  return watch_judged(api, info, std::move(query), std::move(options), timeout, judge);
}

ObjectWatchResult watch_selection(ApiClient& api, const api::ResourceInfo& info, const std::string& namespace_name,
                                  const std::string& selector, std::optional<std::chrono::milliseconds> timeout,
                                  const StateJudge& judge) {
  Query query;
  query.namespace_name = info.namespaced ? namespace_name : std::string();
  query.label_selector = selector;
  query.want_table = false;
  WatchOptions options;
  options.initial_as_list = true;
  return watch_judged(api, info, std::move(query), std::move(options), timeout, judge);
}

}  // namespace kw::cli
