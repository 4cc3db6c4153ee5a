#include "bench/cluster_stats.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kw::bench::cluster {

using nlohmann::json;

const char* watch_kind_name(WatchKind kind) {
  switch (kind) {
    case WatchKind::pods_node: return "pods@node";
    case WatchKind::pods_controller: return "pods@controller";
    case WatchKind::nodes_node: return "nodes@node";
    case WatchKind::nodes_controller: return "nodes@controller";
    case WatchKind::leases_controller: return "leases@controller";
    case WatchKind::count: break;
  }
  return "?";
}

namespace {

double round3(double value) { return static_cast<double>(static_cast<long long>(value * 1000 + 0.5)) / 1000; }

}  // namespace

json Samples::summary() {
  const auto count = static_cast<long>(ms.size());
  double max = 0;
  for (double v : ms) max = std::max(max, v);
  const double p50 = percentile(ms, 0.50);
  const double p99 = percentile(ms, 0.99);
  return {{"count", count}, {"p50_ms", round3(p50)}, {"p99_ms", round3(p99)}, {"max_ms", round3(max)}};
}

ProcessUsage read_process_usage(pid_t pid) {
  ProcessUsage usage;
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream stat(dir + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return usage;
  // Fields after the command name, which is in parentheses and may hold spaces.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return usage;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  usage.cpu_s = (utime + stime) / ticks;
  std::ifstream status(dir + "/status");
  while (std::getline(status, line))
    if (line.starts_with("VmHWM:")) usage.peak_rss_mib = std::stod(line.substr(6)) / 1024.0;
  usage.ok = true;
  return usage;
}

void Stats::request(const std::string& key, bool mutating, double ms, int status) {
  if (!m_recording) return;
  ++m_requests;
  if (status < 200 || status >= 300) {
    ++m_errors[status];
    return;
  }
  m_latency[key].add(ms);
  if (mutating) m_mutating.add(ms);
  else if (key.starts_with("LIST")) m_list.add(ms);
  else if (key.starts_with("GET")) m_get.add(ms);
}

void Stats::write_seen(std::uint64_t resource_version, Clock::time_point at) { m_writes.emplace(resource_version, at); }

void Stats::add_lag(WatchKind kind, double ms) {
  if (m_recording) m_lag[static_cast<int>(kind)].add(std::max(0.0, ms));
}

void Stats::event_seen(std::uint64_t resource_version, WatchKind kind, Clock::time_point at) {
  const auto it = m_writes.find(resource_version);
  if (it != m_writes.end()) return add_lag(kind, std::chrono::duration<double, std::milli>(at - it->second).count());
  m_pending.push_back({resource_version, kind, at});
}

void Stats::resolve_pending(Clock::time_point now, Clock::duration horizon) {
  std::vector<PendingEvent> still;
  for (const PendingEvent& event : m_pending) {
    const auto it = m_writes.find(event.resource_version);
    if (it != m_writes.end()) add_lag(event.kind, std::chrono::duration<double, std::milli>(event.at - it->second).count());
    else if (now - event.at < horizon) still.push_back(event);
  }
  m_pending = std::move(still);
  std::erase_if(m_writes, [&](const auto& entry) { return now - entry.second > horizon; });
}

long Stats::counter(const std::string& what) const {
  const auto it = m_counters.find(what);
  return it == m_counters.end() ? 0 : it->second;
}

json Stats::report(double seconds) {
  json requests = json::object();
  for (auto& [key, samples] : m_latency) requests[key] = samples.summary();
  json lags = json::object();
  Samples all_lags;
  for (int i = 0; i < static_cast<int>(WatchKind::count); ++i) {
    Samples& lag = m_lag[i];
    all_lags.ms.insert(all_lags.ms.end(), lag.ms.begin(), lag.ms.end());
    lags[watch_kind_name(static_cast<WatchKind>(i))] = lag.summary();
  }
  const json lag_all = all_lags.summary();
  const json startup = m_startup.summary();
  const json mutating = m_mutating.summary(), get = m_get.summary(), list = m_list.summary();
  json errors = json::object();
  long error_total = 0;
  for (const auto& [code, n] : m_errors) {
    errors[code == 0 ? "connection" : std::to_string(code)] = n;
    error_total += n;
  }
  json out = {
      {"duration_s", round3(seconds)},
      {"requests_per_s", round3(seconds > 0 ? static_cast<double>(m_requests) / seconds : 0)},
      {"mutating_p99_ms", mutating["p99_ms"]},
      {"get_p99_ms", get["p99_ms"]},
      {"list_p99_ms", list["p99_ms"]},
      {"watch_lag_p50_ms", lag_all["p50_ms"]},
      {"watch_lag_p99_ms", lag_all["p99_ms"]},
      {"pod_startup_p50_ms", startup["p50_ms"]},
      {"pod_startup_p99_ms", startup["p99_ms"]},
      {"errors", error_total},
      {"errors_by_code", errors},
      {"requests", requests},
      {"watch_lag", lags},
      {"pod_startup", startup},
      {"generator_loop_delay", m_loop_delay.summary()},
      {"counters", m_counters},
  };
  return out;
}

std::string format_table(const json& report) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %9s %10s %10s %10s\n", "request", "count", "p50 ms", "p99 ms", "max ms");
  out += line;
  auto row = [&](const std::string& name, const json& s) {
    std::snprintf(line, sizeof line, "%-34s %9ld %10.2f %10.2f %10.2f\n", name.c_str(), s["count"].get<long>(),
                  s["p50_ms"].get<double>(), s["p99_ms"].get<double>(), s["max_ms"].get<double>());
    out += line;
  };
  for (const auto& [key, s] : report["requests"].items()) row(key, s);
  for (const auto& [key, s] : report["watch_lag"].items()) row("watch lag " + key, s);
  row("pod start-up (kubelet delay excluded)", report["pod_startup"]);
  row("generator loop delay", report["generator_loop_delay"]);
  for (const auto& [key, value] : report.items()) {
    if (value.is_object() || value.is_array()) continue;
    out += "  " + key + ": " + value.dump() + "\n";
  }
  for (const auto& [code, n] : report["errors_by_code"].items()) out += "  error " + code + ": " + n.dump() + "\n";
  for (const auto& [what, n] : report["counters"].items()) out += "  " + what + ": " + n.dump() + "\n";
  return out;
}

}  // namespace kw::bench::cluster
