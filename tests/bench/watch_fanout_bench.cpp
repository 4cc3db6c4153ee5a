// Watch fan-out through a running `kw serve`: N watchers on one namespace (HTTP/1.1 chunked,
// one connection each, or h2c streams multiplexed on few connections), then W writes per
// second of ~1 KiB ConfigMaps from one keep-alive writer for a fixed duration. Reports:
//   open_seconds       from the first watch request to the last watch answered
//   rss_per_watcher    server VmRSS growth per idle watcher (KiB), from --server-pid
//   delivery_rate      events x watchers per second, first write to last receipt
//   latency_p50/p99/max  from the moment a write is sent to its receipt by a watcher
//   cpu_per_1m         server CPU seconds (utime + stime) per 1M deliveries
//   lost, duplicated   events a watcher never got / got twice (both must be 0)
// and, with --list-objects=K, the latency of one LIST of K such ConfigMaps.
//
//   watch_fanout_bench --server=127.0.0.1:PORT [--server-pid=PID] [--watchers=1000]
//       [--rate=10] [--duration=10] [--transport=h2c|h1] [--encoding=json|protobuf]
//       [--streams-per-connection=500] [--payload=1024] [--list-objects=0] [--tag=NAME]
//       [--events-detail=1]  (per event on stderr: write round trip, first/median/last receipt)
// Output: "RESULT fanout.<tag>.<metric> <value> <unit>" lines (tag defaults to
// <transport>.<encoding>.n<N>.w<W>), the format scripts/bench.sh and summarize.py read.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "bench/fanout_client.hpp"
#include "bench/fanout_probe.hpp"

#include <nlohmann/json.hpp>

namespace {

using kw::bench::Clock;
using kw::bench::Encoding;

struct Settings {
  kw::bench::Target target;
  int server_pid = 0;
  int watchers = 1000;
  double rate = 10;
  double duration = 10;
  std::string transport = "h2c";
  std::string encoding = "json";
  int streams_per_connection = 500;
  std::size_t payload = 1024;
  int list_objects = 0;
  std::string tag;
  bool events_detail = false;  // one stderr line per event: write time, first/median/last receipt
};

std::string event_name(int index) {
  char name[32];
  std::snprintf(name, sizeof name, "%.*s%06d", static_cast<int>(kw::bench::k_event_marker.size()),
                kw::bench::k_event_marker.data(), index);
  return name;
}

bool create_namespace(kw::bench::HttpWriter& writer, const std::string& name) {
  const nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  const int status = writer.request("POST", "/api/v1/namespaces", ns.dump());
  if (status != 201 && status != 409) std::cerr << "watch_fanout_bench: namespace " << name << ": HTTP " << status << "\n";
  return status == 201 || status == 409;
}

std::string unique_namespace(const std::string& prefix) {
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(Clock::now().time_since_epoch().count() % 1000000);
}

// Lets this process hold one descriptor per HTTP/1.1 watcher.
void raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

struct Writes {
  std::vector<Clock::time_point> sent;  // epoch for a failed write
  std::vector<Clock::time_point> answered;  // when the write's response arrived
  Clock::time_point start, end;
  int ok = 0;
};

// `events` creates, paced at `rate` per second (as fast as possible when rate <= 0); stops
// early once `limit_seconds` have passed (an overloaded server answers writes slowly).
Writes write_paced(kw::bench::HttpWriter& writer, const std::string& namespace_, int events, double rate,
                   std::size_t payload, double limit_seconds) {
  std::vector<std::string> bodies;
  for (int i = 0; i < events; ++i) bodies.push_back(kw::bench::configmap_json(namespace_, event_name(i), payload));
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/configmaps";
  Writes w;
  w.sent.resize(static_cast<std::size_t>(events));
  w.answered.resize(static_cast<std::size_t>(events));
  w.start = Clock::now();
  for (int i = 0; i < events && kw::bench::seconds_since(w.start) < limit_seconds; ++i) {
    if (rate > 0)
      std::this_thread::sleep_until(w.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(i / rate)));
    const auto sent = Clock::now();
    const int status = writer.request("POST", path, bodies[static_cast<std::size_t>(i)]);
    if (status != 201) {
      std::cerr << "watch_fanout_bench: create " << i << ": HTTP " << status << "\n";
      continue;
    }
    w.sent[static_cast<std::size_t>(i)] = sent;
    w.answered[static_cast<std::size_t>(i)] = Clock::now();
    ++w.ok;
  }
  w.end = Clock::now();
  return w;
}

std::optional<kw::bench::ProcessSample> sample(const Settings& s) {
  return s.server_pid > 0 ? kw::bench::sample_process(s.server_pid) : std::nullopt;
}

// Where each event's latency goes: the write's round trip, then the spread of its receipts.
void print_event_detail(const kw::bench::Receipts& receipts, const Writes& writes) {
  auto ms = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  std::vector<double> at_ms;
  for (int e = 0; e < receipts.events(); ++e) {
    const auto sent = writes.sent[static_cast<std::size_t>(e)];
    if (sent == Clock::time_point{}) continue;
    at_ms.clear();
    for (int w = 0; w < receipts.watchers(); ++w)
      if (const auto at = receipts.at(w, e); at != Clock::time_point{}) at_ms.push_back(ms(sent, at));
    if (at_ms.empty()) continue;
    std::sort(at_ms.begin(), at_ms.end());
    std::fprintf(stderr, "event %d: write %.1f ms, receipts first %.1f median %.1f last %.1f ms (%zu)\n", e,
                 ms(sent, writes.answered[static_cast<std::size_t>(e)]), at_ms.front(), at_ms[at_ms.size() / 2],
                 at_ms.back(), at_ms.size());
  }
}

void run_fanout(const Settings& s) {
  const std::string tag = "fanout." + s.tag;
  kw::bench::HttpWriter writer(s.target);
  const std::string ns = unique_namespace("fan");
  if (!create_namespace(writer, ns)) return;
  const int events = std::max(1, static_cast<int>(s.rate > 0 ? s.rate * s.duration : s.duration));
  kw::bench::Receipts receipts(s.watchers, events);
  receipts.encoding = s.encoding == "protobuf" ? Encoding::protobuf : Encoding::json;
  const std::string accept =
      s.encoding == "protobuf" ? "application/vnd.kubernetes.protobuf;stream=watch" : "application/json";
  const std::string path = "/api/v1/namespaces/" + ns + "/configmaps?watch=1&resourceVersion=0";

  // Open the watchers, then let the server settle before sampling its idle memory.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto before_open = sample(s);
  const auto open_start = Clock::now();
  auto connections = s.transport == "h2c"
                         ? kw::bench::open_h2c_watchers(s.target, path, accept, s.watchers, s.streams_per_connection, receipts)
                         : kw::bench::open_h1_watchers(s.target, path, accept, s.watchers, receipts);
  kw::bench::WatchLoop loop(std::move(connections));
  while (receipts.ready + receipts.failed < s.watchers && kw::bench::seconds_since(open_start) < 60)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double open_seconds = kw::bench::seconds_since(open_start);
  kw::bench::report(tag + ".open_seconds", open_seconds, "s");
  if (receipts.ready < s.watchers) {
    std::cerr << tag << ": only " << receipts.ready << "/" << s.watchers << " watches started\n";
    kw::bench::report(tag + ".watch_start_failures", s.watchers - receipts.ready, "watchers");
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto idle = sample(s);
  if (before_open && idle && receipts.ready > 0)
    kw::bench::report(tag + ".rss_per_watcher", (idle->rss_kib - before_open->rss_kib) / receipts.ready, "KiB");

  const double client_cpu_before = kw::bench::sample_process(::getpid()).value_or(kw::bench::ProcessSample{}).cpu_seconds;
  const Writes writes = write_paced(writer, ns, events, s.rate, s.payload, s.duration * 2 + 5);
  const long expected = static_cast<long>(writes.ok) * receipts.ready;
  while (receipts.delivered < expected && kw::bench::seconds_since(writes.end) < 15 && receipts.failed < s.watchers)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto after = sample(s);
  const double client_cpu = kw::bench::sample_process(::getpid()).value_or(kw::bench::ProcessSample{}).cpu_seconds -
                            client_cpu_before;
  const long delivered = receipts.delivered.load();
  const long duplicated = receipts.duplicated.load();
  const int closed = receipts.failed.load();
  std::vector<double> latency_ms;
  latency_ms.reserve(static_cast<std::size_t>(delivered));
  Clock::time_point last = writes.start;
  for (int w = 0; w < s.watchers; ++w)
    for (int e = 0; e < events; ++e) {
      const auto at = receipts.at(w, e);
      const auto sent = writes.sent[static_cast<std::size_t>(e)];
      if (at == Clock::time_point{} || sent == Clock::time_point{}) continue;
      last = std::max(last, at);
      latency_ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(at - sent).count()));
    }
  if (s.events_detail) print_event_detail(receipts, writes);
  const double write_seconds = std::chrono::duration<double>(writes.end - writes.start).count();
  const double span = std::chrono::duration<double>(last - writes.start).count();
  kw::bench::report(tag + ".write_rate", write_seconds > 0 ? writes.ok / write_seconds : 0, "ops/s");
  kw::bench::report(tag + ".events", writes.ok, "events");
  kw::bench::report(tag + ".delivery_rate", span > 0 ? double(delivered) / span : 0, "events/s");
  kw::bench::report(tag + ".latency_p50", kw::bench::percentile(latency_ms, 0.50), "ms");
  kw::bench::report(tag + ".latency_p99", kw::bench::percentile(latency_ms, 0.99), "ms");
  kw::bench::report(tag + ".latency_max", latency_ms.empty() ? 0 : latency_ms.back(), "ms");
  if (idle && after && delivered > 0)
    kw::bench::report(tag + ".cpu_per_1m", (after->cpu_seconds - idle->cpu_seconds) / double(delivered) * 1e6, "cpu-s");
  // The load generator's own CPU: near 1 s per second means the client, not kw, was the limit.
  if (span > 0) kw::bench::report(tag + ".client_cpu_share", client_cpu / span, "cpu-s/s");
  kw::bench::report(tag + ".lost", double(std::max(0L, static_cast<long>(writes.ok) * s.watchers - delivered)), "events");
  kw::bench::report(tag + ".duplicated", double(duplicated), "events");
  if (closed > 0) kw::bench::report(tag + ".closed_watchers", closed, "watchers");
}

// K ConfigMaps in one namespace, then the median of 5 LISTs (resourceVersion=0: from the cache).
void run_list(const Settings& s) {
  kw::bench::HttpWriter writer(s.target);
  const std::string ns = unique_namespace("list");
  if (!create_namespace(writer, ns)) return;
  const std::string path = "/api/v1/namespaces/" + ns + "/configmaps";
  for (int i = 0; i < s.list_objects; ++i)
    if (const int status = writer.request("POST", path, kw::bench::configmap_json(ns, "cm-" + std::to_string(i), s.payload));
        status != 201) {
      std::cerr << "watch_fanout_bench: list setup create " << i << ": HTTP " << status << "\n";
      return;
    }
  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    const int status = writer.request("GET", path + "?resourceVersion=0", "");
    seconds.push_back(kw::bench::seconds_since(start));
    if (status != 200) std::cerr << "watch_fanout_bench: list: HTTP " << status << "\n";
  }
  kw::bench::report("fanout.list.n" + std::to_string(s.list_objects) + ".seconds", kw::bench::percentile(seconds, 0.5), "s");
}

Settings parse(int argc, char** argv) {
  Settings s;
  const std::string server = kw::bench::flag(argc, argv, "server", "");
  const std::size_t colon = server.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--server=HOST:PORT is required");
  s.target.host = server.substr(0, colon);
  s.target.port = std::stoi(server.substr(colon + 1));
  s.server_pid = std::stoi(kw::bench::flag(argc, argv, "server-pid", "0"));
  s.watchers = std::stoi(kw::bench::flag(argc, argv, "watchers", "1000"));
  s.rate = std::stod(kw::bench::flag(argc, argv, "rate", "10"));
  s.duration = std::stod(kw::bench::flag(argc, argv, "duration", "10"));
  s.transport = kw::bench::flag(argc, argv, "transport", "h2c");
  s.encoding = kw::bench::flag(argc, argv, "encoding", "json");
  s.streams_per_connection = std::stoi(kw::bench::flag(argc, argv, "streams-per-connection", "500"));
  s.payload = static_cast<std::size_t>(std::stoul(kw::bench::flag(argc, argv, "payload", "1024")));
  s.list_objects = std::stoi(kw::bench::flag(argc, argv, "list-objects", "0"));
  s.events_detail = kw::bench::flag(argc, argv, "events-detail", "0") == "1";
  if (s.watchers < 0 || s.watchers > 100000 || s.rate > 10000 || s.duration <= 0 || s.streams_per_connection <= 0)
    throw std::invalid_argument("--watchers must be 0..100000, --rate <= 10000, --duration and --streams-per-connection positive");
  if (s.transport != "h2c" && s.transport != "h1") throw std::invalid_argument("--transport must be h2c or h1");
  if (s.encoding != "json" && s.encoding != "protobuf") throw std::invalid_argument("--encoding must be json or protobuf");
  std::string rate = kw::bench::flag(argc, argv, "rate", "10");
  s.tag = kw::bench::flag(argc, argv, "tag",
                          s.transport + "." + s.encoding + ".n" + std::to_string(s.watchers) + ".w" + rate);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Settings s = parse(argc, argv);
    raise_open_files_limit();
    if (s.watchers > 0) run_fanout(s);
    if (s.list_objects > 0) run_list(s);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "watch_fanout_bench: " << e.what() << "\n";
    return 2;
  }
}
