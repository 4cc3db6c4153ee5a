// Watch fan-out through a running `kw serve`: W watchers on one namespace (HTTP/1.1 chunked,
// one connection each, or h2c streams multiplexed on few connections), E pod creates from
// one keep-alive writer; measures the write rate, the delivery rate (events x watchers per
// second, from the first write to the last receipt) and the latency from write ack to
// receipt (p50/p99; an event seen before its ack counts as 0). W=0 gives the write-rate
// baseline, JSON and protobuf the encoding comparison.
//
//   watch_fanout_bench --server=127.0.0.1:PORT [--watchers=10,100,1000] [--events=1000]
//       [--encodings=json,protobuf] [--transports=h1,h2c] [--seconds=60] [--streams-per-connection=500]
//       [--max-deliveries=300000]
// A scenario writes min(events, max-deliveries / W) pods, so events x watchers stays bounded.
// Output: "RESULT fanout.<transport>.<encoding>.w<W>.<metric> <value> <unit>" lines.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "bench/fanout_client.hpp"
#include "bench/sample_pod.hpp"

namespace {

using kw::bench::Clock;
using kw::bench::Encoding;

struct Settings {
  kw::bench::Target target;
  std::vector<int> watchers;
  int events = 1000;
  std::vector<std::string> encodings, transports;
  double seconds = 60;
  int streams_per_connection = 500;
  long max_deliveries = 300000;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::string pod_body(const std::string& namespace_, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "%.*s%06d", static_cast<int>(kw::bench::k_event_marker.size()),
                kw::bench::k_event_marker.data(), index);
  nlohmann::json pod = nlohmann::json::parse(kw::bench::k_sample_pod_json);
  auto& meta = pod["metadata"];
  meta["name"] = name;
  meta["namespace"] = namespace_;
  for (const char* server_set : {"resourceVersion", "uid", "creationTimestamp", "generateName"}) meta.erase(server_set);
  return pod.dump();
}

bool create_namespace(kw::bench::HttpWriter& writer, const std::string& name) {
  const nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  const int status = writer.request("POST", "/api/v1/namespaces", ns.dump());
  if (status != 201 && status != 409) std::cerr << "watch_fanout_bench: namespace " << name << ": HTTP " << status << "\n";
  return status == 201 || status == 409;
}

struct Writes {
  std::vector<Clock::time_point> acks;  // epoch for a failed write
  Clock::time_point start, end;
  int ok = 0;
};

Writes write_pods(kw::bench::HttpWriter& writer, const std::string& namespace_, int events, double seconds) {
  std::vector<std::string> bodies;
  for (int i = 0; i < events; ++i) bodies.push_back(pod_body(namespace_, i));
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/pods";
  Writes w;
  w.acks.resize(static_cast<std::size_t>(events));
  w.start = Clock::now();
  for (int i = 0; i < events && kw::bench::seconds_since(w.start) < seconds; ++i) {
    const int status = writer.request("POST", path, bodies[static_cast<std::size_t>(i)]);
    if (status != 201) {
      if (status < 0 || i == 0) std::cerr << "watch_fanout_bench: create " << i << ": HTTP " << status << "\n";
      continue;
    }
    w.acks[static_cast<std::size_t>(i)] = Clock::now();
    ++w.ok;
  }
  w.end = Clock::now();
  return w;
}

// One scenario: W watchers, then the writes, then wait for the deliveries.
void run_scenario(const Settings& s, const std::string& transport, const std::string& encoding, int watchers) {
  const std::string tag = "fanout." + (watchers == 0 ? std::string("baseline") : transport + "." + encoding) + ".w" +
                          std::to_string(watchers);
  const std::string ns = "fan-" + transport + "-" + encoding + "-" + std::to_string(watchers) + "-" +
                         std::to_string(::getpid()) + "-" + std::to_string(Clock::now().time_since_epoch().count() % 100000);
  kw::bench::HttpWriter writer(s.target);
  if (!create_namespace(writer, ns)) return;

  const int events = watchers == 0 ? s.events
                                   : static_cast<int>(std::clamp<long>(s.max_deliveries / watchers, 1, s.events));
  kw::bench::Receipts receipts(std::max(watchers, 1), events);
  receipts.encoding = encoding == "protobuf" ? Encoding::protobuf : Encoding::json;
  const std::string accept = encoding == "protobuf" ? "application/vnd.kubernetes.protobuf;stream=watch"
                                                    : "application/json";
  const std::string path = "/api/v1/namespaces/" + ns + "/pods?watch=1";
  std::optional<kw::bench::WatchLoop> loop;
  if (watchers > 0) {
    auto connections = transport == "h2c"
                           ? kw::bench::open_h2c_watchers(s.target, path, accept, watchers, s.streams_per_connection, receipts)
                           : kw::bench::open_h1_watchers(s.target, path, accept, watchers, receipts);
    loop.emplace(std::move(connections));
    const auto opened = Clock::now();
    while (receipts.ready + receipts.failed < watchers && kw::bench::seconds_since(opened) < 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (receipts.ready < watchers) {
      std::cerr << tag << ": only " << receipts.ready << "/" << watchers << " watches started\n";
      kw::bench::report(tag + ".watch_start_failures", watchers - receipts.ready, "watchers");
    }
  }

  const Writes writes = write_pods(writer, ns, events, s.seconds);
  const double write_seconds = std::chrono::duration<double>(writes.end - writes.start).count();
  kw::bench::report(tag + ".write_rate", writes.ok / write_seconds, "ops/s");
  kw::bench::report(tag + ".events", events, "events");
  if (writes.ok < events) kw::bench::report(tag + ".write_failures", events - writes.ok, "ops");
  if (watchers == 0) return;

  const long expected = static_cast<long>(writes.ok) * receipts.ready;
  // Watchers closed early (slow-consumer policy) never reach `expected`: the deadline bounds the wait.
  while (receipts.delivered < expected && kw::bench::seconds_since(writes.start) < s.seconds &&
         receipts.failed < watchers)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  loop.reset();  // joins the loop thread: the receipts are now ours to read

  Clock::time_point last = writes.start;
  std::vector<double> latency_ms;
  latency_ms.reserve(static_cast<std::size_t>(expected));
  for (int w = 0; w < watchers; ++w)
    for (int e = 0; e < events; ++e) {
      const auto at = receipts.at(w, e);
      const auto acked = writes.acks[static_cast<std::size_t>(e)];
      if (at == Clock::time_point{} || acked == Clock::time_point{}) continue;
      last = std::max(last, at);
      latency_ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(at - acked).count()));
    }
  const double span = std::chrono::duration<double>(last - writes.start).count();
  kw::bench::report(tag + ".delivery_rate", span > 0 ? double(receipts.delivered) / span : 0, "events/s");
  kw::bench::report(tag + ".latency_p50", kw::bench::percentile(latency_ms, 0.50), "ms");
  kw::bench::report(tag + ".latency_p99", kw::bench::percentile(latency_ms, 0.99), "ms");
  const long lost = static_cast<long>(writes.ok) * watchers - receipts.delivered;
  if (lost > 0) kw::bench::report(tag + ".undelivered", double(lost), "events");
  if (receipts.failed > 0) kw::bench::report(tag + ".closed_watchers", receipts.failed, "watchers");
}

Settings parse(int argc, char** argv) {
  Settings s;
  const std::string server = kw::bench::flag(argc, argv, "server", "");
  const std::size_t colon = server.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--server=HOST:PORT is required");
  s.target.host = server.substr(0, colon);
  s.target.port = std::stoi(server.substr(colon + 1));
  s.watchers = kw::bench::parse_int_list(kw::bench::flag(argc, argv, "watchers", "10,100,1000"));
  s.events = std::stoi(kw::bench::flag(argc, argv, "events", "1000"));
  s.encodings = split(kw::bench::flag(argc, argv, "encodings", "json,protobuf"));
  s.transports = split(kw::bench::flag(argc, argv, "transports", "h1,h2c"));
  s.seconds = std::stod(kw::bench::flag(argc, argv, "seconds", "60"));
  s.streams_per_connection = std::stoi(kw::bench::flag(argc, argv, "streams-per-connection", "500"));
  s.max_deliveries = std::stol(kw::bench::flag(argc, argv, "max-deliveries", "300000"));
  if (s.events <= 0 || s.events > 1000000 || s.streams_per_connection <= 0 || s.max_deliveries <= 0)
    throw std::invalid_argument("--events must be 1..1000000, --streams-per-connection and --max-deliveries positive");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Settings s = parse(argc, argv);
    run_scenario(s, "h1", "json", 0);
    for (const auto& transport : s.transports)
      for (const auto& encoding : s.encodings)
        for (int watchers : s.watchers)
          if (watchers > 0) run_scenario(s, transport, encoding, watchers);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "watch_fanout_bench: " << e.what() << "\n";
    return 2;
  }
}
