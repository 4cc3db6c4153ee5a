#pragma once
// What the cluster load generator measures: request latencies by verb and resource, watch
// delivery lag (a write's response time matched to the event by its resourceVersion), pod
// start-up latency, errors by HTTP code, and process CPU and memory from /proc.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_util.hpp"

namespace kw::bench::cluster {

// Which watch saw an event, for the lag figures.
enum class WatchKind { pods_node, pods_controller, nodes_node, nodes_controller, leases_controller, count };
const char* watch_kind_name(WatchKind kind);

struct Samples {
  std::vector<double> ms;
  void add(double value) { ms.push_back(value); }
  // {"count", "p50_ms", "p99_ms", "max_ms"}; sorts.
  nlohmann::json summary();
};

// CPU seconds (user + system) and peak RSS of a process, from /proc/PID/{stat,status}.
struct ProcessUsage {
  double cpu_s = 0;
  double peak_rss_mib = 0;
  bool ok = false;
};
ProcessUsage read_process_usage(pid_t pid);

// The table printed on stderr for a report.
std::string format_table(const nlohmann::json& report);

class Stats {
 public:
  // Only what happens while recording is on is counted (the measured window).
  void set_recording(bool on) { m_recording = on; }
  bool recording() const { return m_recording; }

  // A finished request: "verb resource" key, e.g. "PATCH nodes/status"; status 0 = failed.
  void request(const std::string& key, bool mutating, double ms, int status);
  // A write's response: its resourceVersion was current at `at`.
  void write_seen(std::uint64_t resource_version, Clock::time_point at);
  // An event reached a watch at `at`; matched now or by resolve_pending() once the write's
  // response is in (an event may overtake the response: its lag then counts as 0).
  void event_seen(std::uint64_t resource_version, WatchKind kind, Clock::time_point at);
  // Matches pending events and forgets writes and events older than `horizon`.
  void resolve_pending(Clock::time_point now, Clock::duration horizon);
  void pod_started(double ms) {
    if (m_recording) m_startup.add(ms);
  }
  // How late the generator's own timer fired: its loop's delay (a busy generator skews the rest).
  void loop_delay(double ms) {
    if (m_recording) m_loop_delay.add(ms);
  }
  void count(const std::string& what, long n = 1) { m_counters[what] += n; }
  long counter(const std::string& what) const;
  long requests() const { return m_requests; }

  // The top-level figures and the detail; `seconds` is the measured window's length.
  nlohmann::json report(double seconds);

 private:
  struct PendingEvent {
    std::uint64_t resource_version;
    WatchKind kind;
    Clock::time_point at;
  };
  void add_lag(WatchKind kind, double ms);

  bool m_recording = false;
  long m_requests = 0;
  std::map<std::string, Samples> m_latency;
  Samples m_mutating, m_get, m_list;
  Samples m_lag[static_cast<int>(WatchKind::count)];
  Samples m_startup;
  Samples m_loop_delay;
  std::map<int, long> m_errors;
  std::map<std::string, long> m_counters;
  std::unordered_map<std::uint64_t, Clock::time_point> m_writes;
  std::vector<PendingEvent> m_pending;
};

}  // namespace kw::bench::cluster
