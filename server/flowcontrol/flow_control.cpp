#include "server/flowcontrol/flow_control.hpp"

#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <unordered_map>

#include "core/api/print_support.hpp"
#include "server/admission/lookup.hpp"
#include "server/flowcontrol/fair_queuing.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/kinds/flowcontrol_bootstrap.hpp"
#include "server/registry/registry.hpp"

namespace kw::flowcontrol {
namespace {

using nlohmann::json;


struct Level {
  PriorityLevel config;
  // Null for an exempt level. Shared with the seats it handed out, which give back to the set
  // they came from even after the level was removed or replaced.
  std::shared_ptr<QueueSet> queues;
};

struct Parked {
  std::shared_ptr<net::ResponseStream> stream;
  net::StartRequest start;
  Refuse refuse;
  std::shared_ptr<QueueSet> queues;  // where it waits
  std::string level;
  std::string schema;
};

// Per (priority level, flow schema), as kube labels its metrics.
struct Counts {
  std::int64_t executing = 0;
  std::int64_t waiting = 0;
  std::map<std::string, std::uint64_t> rejected;  // by reason
};
using CountKey = std::pair<std::string, std::string>;

// What happens once the lock is let go: requests to start and requests to refuse.
struct Outcomes {
  std::vector<Parked> start;
  std::vector<Parked> refuse;
};

std::vector<json> mandatory_of(std::string_view kind) {
  std::vector<json> out;
  for (const auto& object : kinds::flowcontrol_mandatory_objects())
    if (object.value("kind", "") == kind) out.push_back(object);
  return out;
}

// kube's presyncFlowSchemaStatus: the Dangling condition a FlowSchema should carry, when its
// stored one says otherwise (lastTransitionTime is filled in when it is written).
std::optional<json> dangling_condition_update(const json& object, const std::string& level, bool dangling) {
  const json wanted = {
      {"type", "Dangling"},
      {"status", dangling ? "True" : "False"},
      {"reason", dangling ? "NotFound" : "Found"},
      {"message", "This FlowSchema references the PriorityLevelConfiguration object named \"" + level +
                      (dangling ? "\" but there is no such object" : "\" and it exists")}};
  for (const auto& condition : api::print::arr(api::print::at(object, {"status", "conditions"})))
    if (api::print::str(api::print::at(condition, {"type"})) == "Dangling" &&
        api::print::at(condition, {"status"}) == wanted["status"] &&
        api::print::at(condition, {"reason"}) == wanted["reason"] &&
        api::print::at(condition, {"message"}) == wanted["message"])
      return std::nullopt;
  return wanted;
}

}  // namespace

// Writes FlowSchemas' Dangling conditions off the cache's thread, one at a time.
class FlowControl::StatusWriter {
 public:
  StatusWriter(registry::Registry& registry, api::ResourceInfo info)
      : m_registry(registry), m_info(std::move(info)), m_thread([this] { run(); }) {}
  ~StatusWriter() {
    {
      std::lock_guard lock(m_mutex);
      m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }
  void queue(const std::string& schema, json condition) {
    {
      std::lock_guard lock(m_mutex);
      m_pending[schema] = std::move(condition);
    }
    m_wake.notify_all();
  }

 private:
  void run() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_wake.wait(lock, [this] { return m_stopping || !m_pending.empty(); });
      if (m_stopping) return;
      auto next = m_pending.extract(m_pending.begin());
      lock.unlock();
      write(next.key(), std::move(next.mapped()));
      lock.lock();
    }
  }

  void write(const std::string& name, json condition) {
    condition["lastTransitionTime"] = api::print::format_rfc3339(std::chrono::system_clock::now());
    registry::WriteOptions options;
    options.subresource = "status";
    options.field_manager = "api-priority-and-fairness-config-consumer-v1";
    auto written = m_registry.update_with(
        m_info, "", name,
        [&](const json& current) -> registry::ApiResult<json> {
          json next = current;
          json conditions = json::array();
          for (const auto& kept : api::print::arr(api::print::at(current, {"status", "conditions"})))
            if (!kept.is_object() || kept.value("type", "") != "Dangling") conditions.push_back(kept);
          conditions.push_back(condition);
          next["status"]["conditions"] = std::move(conditions);
          return next;
        },
        options);
    if (!written && written.error().code != 404)
      std::cerr << "kw: cannot write the Dangling condition of FlowSchema " << name << ": " << written.error().message
                << "\n";
  }

  registry::Registry& m_registry;
  api::ResourceInfo m_info;
  std::mutex m_mutex;  // guards m_pending and m_stopping
  std::condition_variable m_wake;
  std::map<std::string, json> m_pending;  // the latest condition per FlowSchema
  bool m_stopping = false;
  std::thread m_thread;  // last: starts once the rest is ready
};

struct FlowControl::State : std::enable_shared_from_this<FlowControl::State> {
  explicit State(FlowControlOptions o) : options(o) {}

  FlowControlOptions options;
  mutable std::mutex mutex;  // guards everything below
  std::condition_variable timer_wake;
  bool stopping = false;
  std::vector<FlowSchema> schemas;      // in matching order, each naming a level in `levels`
  std::map<std::string, Level> levels;  // by name
  std::unordered_map<Ticket, Parked> parked;
  Ticket next_ticket = 1;
  std::map<CountKey, Counts> counts;
  // Told (under the lock; it must only queue) the Dangling condition a FlowSchema should have
  // when its stored one differs.
  std::function<void(const std::string& schema, json condition)> status_changed;

  // Moves the dispatched and dropped tickets' requests out of `parked`.
  void collect_locked(const std::vector<Ticket>& tickets, std::vector<Parked>& into, bool started) {
    for (const Ticket ticket : tickets) {
      auto found = parked.find(ticket);
      if (found == parked.end()) continue;
      auto& count = counts[{found->second.level, found->second.schema}];
      --count.waiting;
      if (started) ++count.executing;
      else ++count.rejected["time-out"];
      into.push_back(std::move(found->second));
      parked.erase(found);
    }
  }

  net::Seat seat_for(std::shared_ptr<QueueSet> queues, const std::string& level, const std::string& schema) {
    return net::Seat(nullptr, [state = shared_from_this(), queues = std::move(queues), level, schema](void*) {
      state->release(*queues, level, schema);
    });
  }

  void run(Outcomes outcomes) {
    for (auto& p : outcomes.refuse) p.refuse(*p.stream);
    for (auto& p : outcomes.start) p.start(std::move(p.stream), seat_for(std::move(p.queues), p.level, p.schema));
  }

  void release(QueueSet& queues, const std::string& level, const std::string& schema) {
    Outcomes outcomes;
    {
      std::lock_guard lock(mutex);
      --counts[{level, schema}].executing;
      queues.finish();
      collect_locked(queues.dispatch(), outcomes.start, true);
    }
    run(std::move(outcomes));
  }

  void apply(const std::vector<json>& fs_objects, const std::vector<json>& pl_objects) {
    Outcomes outcomes;
    {
      std::lock_guard lock(mutex);
      apply_levels_locked(pl_objects, outcomes);
      apply_schemas_locked(fs_objects);
    }
    run(std::move(outcomes));
  }

  // The levels, the mandatory ones supplied; a limited level's seats are its share of the
  // server's concurrency limit. Requests waiting in a level that went away are refused.
  void apply_levels_locked(const std::vector<json>& pl_objects, Outcomes& outcomes) {
    std::map<std::string, PriorityLevel> configs;
    for (const auto& object : pl_objects) {
      auto level = parse_priority_level(object);
      configs.emplace(level.name, std::move(level));
    }
    for (const auto& object : mandatory_of("PriorityLevelConfiguration")) {
      auto level = parse_priority_level(object);
      configs.emplace(level.name, std::move(level));  // only when missing
    }
    std::int64_t share_sum = 0;
    for (const auto& [name, config] : configs)
      if (!config.exempt) share_sum += config.nominal_concurrency_shares;
    std::map<std::string, Level> next;
    for (auto& [name, config] : configs) {
      Level level{config, nullptr};
      if (!config.exempt) {
        const QueueSetConfig queuing{
            .concurrency_limit =
                nominal_concurrency(options.server_concurrency_limit, config.nominal_concurrency_shares, share_sum),
            .queues = config.queuing ? config.queues : 0,
            .hand_size = config.hand_size,
            .queue_length_limit = config.queue_length_limit};
        if (auto old = levels.find(name); old != levels.end() && old->second.queues) {
          level.queues = std::move(old->second.queues);
          collect_locked(level.queues->reconfigure(queuing), outcomes.refuse, false);
        } else {
          level.queues = std::make_shared<QueueSet>(queuing);
        }
      }
      next.emplace(name, std::move(level));
    }
    for (auto& [name, level] : levels)
      if (!next.contains(name) && level.queues)
        collect_locked(level.queues->expire(Clock::time_point::max()), outcomes.refuse, false);
    levels = std::move(next);
    for (auto& [name, level] : levels)  // more seats may start waiting requests
      if (level.queues) collect_locked(level.queues->dispatch(), outcomes.start, true);
  }

  // The schemas in matching order, the mandatory ones supplied; those naming a missing level
  // are left out (and marked Dangling).
  void apply_schemas_locked(const std::vector<json>& fs_objects) {
    std::vector<FlowSchema> sorted;
    bool have_exempt = false, have_catch_all = false;
    for (const auto& object : fs_objects) {
      auto schema = parse_flow_schema(object);
      const bool dangling = !levels.contains(schema.priority_level);
      if (status_changed)
        if (auto condition = dangling_condition_update(object, schema.priority_level, dangling))
          status_changed(schema.name, std::move(*condition));
      if (dangling) continue;
      have_exempt = have_exempt || schema.name == "exempt";
      have_catch_all = have_catch_all || schema.name == "catch-all";
      sorted.push_back(std::move(schema));
    }
    sort_for_matching(sorted);
    for (const auto& object : mandatory_of("FlowSchema")) {
      auto schema = parse_flow_schema(object);
      if (schema.name == "exempt" && !have_exempt) sorted.insert(sorted.begin(), std::move(schema));
      else if (schema.name == "catch-all" && !have_catch_all) sorted.push_back(std::move(schema));
    }
    schemas = std::move(sorted);
  }

  void timer_loop() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      std::optional<Clock::time_point> oldest;
      for (const auto& [name, level] : levels)
        if (level.queues)
          if (auto arrival = level.queues->oldest_arrival(); arrival && (!oldest || *arrival < *oldest)) oldest = arrival;
      if (!oldest) {
        timer_wake.wait(lock);
        continue;
      }
      const auto deadline = *oldest + options.request_wait_limit;
      if (Clock::now() < deadline) {
        timer_wake.wait_until(lock, deadline);
        continue;
      }
      Outcomes outcomes;
      const auto limit = Clock::now() - options.request_wait_limit;
      for (auto& [name, level] : levels)
        if (level.queues) collect_locked(level.queues->expire(limit), outcomes.refuse, false);
      lock.unlock();
      run(std::move(outcomes));
      lock.lock();
    }
  }
};

FlowControl::FlowControl(FlowControlOptions options) : m_state(std::make_shared<State>(options)) {
  m_state->apply({}, {});
  m_timer = std::thread([state = m_state] { state->timer_loop(); });
}

FlowControl::~FlowControl() {
  m_informers.clear();  // no configuration change runs past here
  {
    std::lock_guard lock(m_state->mutex);
    m_state->status_changed = nullptr;
  }
  m_status.reset();
  std::vector<Parked> waiting;
  {
    std::lock_guard lock(m_state->mutex);
    m_state->stopping = true;
    for (auto& [ticket, parked] : m_state->parked) waiting.push_back(std::move(parked));
    m_state->parked.clear();
  }
  m_state->timer_wake.notify_all();
  m_timer.join();
  for (auto& parked : waiting) parked.refuse(*parked.stream);
}

Result<std::unique_ptr<FlowControl>> FlowControl::start(registry::Registry& registry, FlowControlOptions options) {
  auto control = std::make_unique<FlowControl>(options);
  const auto table = registry.resources();
  const auto* schemas_info = table->find_plural("flowcontrol.apiserver.k8s.io", "v1", "flowschemas");
  if (schemas_info == nullptr) return fail("flowcontrol.apiserver.k8s.io/v1 flowschemas is not served");
  control->m_status = std::make_unique<StatusWriter>(registry, *schemas_info);
  {
    std::lock_guard lock(control->m_state->mutex);
    control->m_state->status_changed = [writer = control->m_status.get()](const std::string& schema, json condition) {
      writer->queue(schema, std::move(condition));
    };
  }
  // Both sets are followed; each change rebuilds the whole configuration from the two.
  struct Objects {
    std::mutex mutex;  // guards the two sets (their informers run on different threads)
    admission::ObjectsByName schemas, levels;
  };
  auto objects = std::make_shared<Objects>();
  auto rebuild = [objects, state = control->m_state] {
    std::vector<json> schemas, levels;
    {
      std::lock_guard lock(objects->mutex);
      for (const auto& [name, object] : objects->schemas) schemas.push_back(object);
      for (const auto& [name, object] : objects->levels) levels.push_back(object);
    }
    state->apply(schemas, levels);
  };
  for (const bool schemas : {false, true}) {
    auto informer = admission::follow_by_name(
        registry, "flowcontrol.apiserver.k8s.io", "v1", schemas ? "flowschemas" : "prioritylevelconfigurations",
        [objects, rebuild, schemas](const admission::ObjectsByName& all) {
          {
            std::lock_guard lock(objects->mutex);
            (schemas ? objects->schemas : objects->levels) = all;
          }
          rebuild();
        });
    if (!informer) return std::unexpected(informer.error());
    control->m_informers.push_back(std::move(*informer));
  }
  return control;
}

void FlowControl::apply(const std::vector<json>& flow_schemas, const std::vector<json>& priority_levels) {
  m_state->apply(flow_schemas, priority_levels);
}

void FlowControl::admit(const RequestDigest& digest, std::shared_ptr<net::ResponseStream> stream,
                        net::StartRequest start, Refuse refuse) {
  auto& state = *m_state;
  std::unique_lock lock(state.mutex);
  const FlowSchema* schema = first_match(state.schemas, digest);
  if (schema == nullptr) {
    // Only when the catch-all schema's subjects were changed away: kube falls back to it too.
    const auto catch_all = std::ranges::find(state.schemas, std::string("catch-all"), &FlowSchema::name);
    if (catch_all == state.schemas.end()) {
      lock.unlock();
      return start(std::move(stream), nullptr);
    }
    schema = &*catch_all;
  }
  auto& level = state.levels.at(schema->priority_level);
  // The request's classification, as kube's setResponseHeaders gives it (the UIDs, not the
  // names an administrator chose).
  stream->add_header({"x-kubernetes-pf-flowschema-uid", schema->uid});
  stream->add_header({"x-kubernetes-pf-prioritylevel-uid", level.config.uid});
  auto classified = std::move(stream);
  if (!level.queues) {  // exempt
    lock.unlock();
    return start(std::move(classified), nullptr);
  }
  const bool queuing = level.queues->config().queues > 1;
  const std::uint64_t hash = queuing ? hash_flow(schema->name, flow_distinguisher(*schema, digest)) : 0;
  const Ticket ticket = state.next_ticket++;
  auto& count = state.counts[{level.config.name, schema->name}];
  switch (level.queues->arrive(ticket, hash, Clock::now())) {
    case QueueSet::Outcome::execute: {
      ++count.executing;
      auto seat = state.seat_for(level.queues, level.config.name, schema->name);
      lock.unlock();
      return start(std::move(classified), std::move(seat));
    }
    case QueueSet::Outcome::queued: {
      ++count.waiting;
      state.parked.emplace(ticket, Parked{std::move(classified), std::move(start), std::move(refuse), level.queues,
                                          level.config.name, schema->name});
      Outcomes outcomes;
      state.collect_locked(level.queues->dispatch(), outcomes.start, true);
      lock.unlock();
      state.timer_wake.notify_one();
      return state.run(std::move(outcomes));
    }
    case QueueSet::Outcome::reject:
      ++count.rejected[level.queues->config().queues > 0 ? "queue-full" : "concurrency-limit"];
      lock.unlock();
      return refuse(*classified);
  }
}

std::optional<FlowControl::LevelStats> FlowControl::level_stats(const std::string& name) const {
  std::lock_guard lock(m_state->mutex);
  const auto found = m_state->levels.find(name);
  if (found == m_state->levels.end() || !found->second.queues) return std::nullopt;
  const auto& queues = *found->second.queues;
  return LevelStats{queues.config().concurrency_limit, queues.executing(), queues.waiting()};
}

void FlowControl::write_metrics(std::ostream& out) const {
  std::lock_guard lock(m_state->mutex);
  out << "# HELP apiserver_flowcontrol_request_concurrency_limit Shared concurrency limit in the API Priority and "
         "Fairness subsystem\n# TYPE apiserver_flowcontrol_request_concurrency_limit gauge\n";
  for (const auto& [name, level] : m_state->levels)
    if (level.queues)
      out << "apiserver_flowcontrol_request_concurrency_limit{priority_level=\"" << name << "\"} "
          << level.queues->config().concurrency_limit << "\n";
  auto labels = [](const CountKey& key) {
    return "flow_schema=\"" + key.second + "\",priority_level=\"" + key.first + "\"";
  };
  out << "# HELP apiserver_flowcontrol_current_executing_requests Number of requests in initial (for a WATCH) or "
         "any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem\n"
      << "# TYPE apiserver_flowcontrol_current_executing_requests gauge\n";
  for (const auto& [key, count] : m_state->counts)
    out << "apiserver_flowcontrol_current_executing_requests{" << labels(key) << "} " << count.executing << "\n";
  out << "# HELP apiserver_flowcontrol_current_inqueue_requests Number of requests currently pending in queues of "
         "the API Priority and Fairness subsystem\n"
      << "# TYPE apiserver_flowcontrol_current_inqueue_requests gauge\n";
  for (const auto& [key, count] : m_state->counts)
    out << "apiserver_flowcontrol_current_inqueue_requests{" << labels(key) << "} " << count.waiting << "\n";
  out << "# HELP apiserver_flowcontrol_rejected_requests_total Number of requests rejected by API Priority and "
         "Fairness subsystem\n# TYPE apiserver_flowcontrol_rejected_requests_total counter\n";
  for (const auto& [key, count] : m_state->counts)
    for (const auto& [reason, n] : count.rejected)
      out << "apiserver_flowcontrol_rejected_requests_total{" << labels(key) << ",reason=\"" << reason << "\"} " << n
          << "\n";
}

}  // namespace kw::flowcontrol
