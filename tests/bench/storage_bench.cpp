// Storage backend throughput: creates/s and updates/s with 1, 8 and 64 writer threads,
// watch events/s (history replay and live, with write-ack -> receipt latency), for the
// embedded SQLite store and for the etcd3 backend against a real etcd started here; plus
// two baselines against the same etcd: a raw gRPC loop sending the very Txn requests the
// backend sends through the generated stub (same threads, same values), and etcdctl (one
// process per put).
//
//   storage_bench [--backends=sqlite,etcd3] [--threads=1,8,64] [--ops=3000] [--seconds=4]
//                 [--watch-events=2000] [--etcdctl-puts=200] [--raw-rounds=5] [--writers=kw,raw]
//                 [--verbose=1]
// Every phase stops at --ops operations or after --seconds, whichever comes first. The etcd3
// backend and the raw loop run in alternating rounds, each kw phase next to the same raw phase
// (creates: kw, raw; updates: raw, kw; the next round the other way round), so load drift on the
// machine falls on both; rates are the median of the rounds.
// --writers=kw or =raw runs one side only (for profiling); --verbose=1 prints every round.
// Output: "RESULT <backend>.<metric> <value> <unit>" lines; etcd3.tN.raw_creates/raw_updates
// are the raw loop; etcd3.tN.creates_overhead/updates_overhead are the median over rounds of
// (raw rate / kw rate - 1) in %, each round's two figures taken back to back;
// etcd3.tN.cpu_us_per_write/raw_cpu_us_per_write this process's CPU per write.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.hpp"
#include "bench/sample_pod.hpp"
#include "rpc.grpc.pb.h"
#include "server/storage/etcd3/etcd3_backend.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/etcd_process.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace {

using kw::bench::Clock;
using kw::storage::Backend;
using kw::storage::Revision;

struct Settings {
  std::vector<std::string> backends;
  std::vector<int> threads;
  int ops = 3000;
  double seconds = 4;
  int watch_events = 2000;
  int etcdctl_puts = 200;
  int raw_rounds = 3;
  bool run_kw = true, run_raw = true;  // --writers: which etcd writers the rounds run
  bool verbose = false;                // --verbose: each round's rates on stderr
};

struct Written {
  std::string key;
  Revision revision = 0;
};

struct PhaseResult {
  double per_second = 0;
  long errors = 0;
  double cpu_us_per_op = 0;  // this process's CPU time (user + system) per operation tried
};

double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs `op(thread, index)` on `threads` threads until `total` calls or the deadline; an op
// returns false on failure. Returns successful calls per second.
template <class Op>
PhaseResult run_phase(int threads, int total, double seconds, Op op) {
  std::atomic<long> done{0}, errors{0};
  const double cpu_start = process_cpu_seconds();
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const int per_thread = (total + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int i = 0; i < per_thread && Clock::now() < deadline; ++i) (op(t, i) ? done : errors)++;
    });
  for (auto& w : workers) w.join();
  const double elapsed = kw::bench::seconds_since(start);
  const double tried = std::max(1.0, static_cast<double>(done.load() + errors.load()));
  return {static_cast<double>(done.load()) / elapsed, errors.load(), (process_cpu_seconds() - cpu_start) * 1e6 / tried};
}

// The two writes the write phases time. Each returns the revision it made, or nullopt.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual std::optional<Revision> create(const std::string& key, const std::string& value) = 0;
  virtual std::optional<Revision> update(const std::string& key, const std::string& value, Revision expected) = 0;
};

class BackendWriter final : public Writer {
 public:
  explicit BackendWriter(Backend& backend) : m_backend(backend) {}
  std::optional<Revision> create(const std::string& key, const std::string& value) override {
    auto result = m_backend.create(key, value);
    return result ? std::optional(result->revision) : std::nullopt;
  }
  std::optional<Revision> update(const std::string& key, const std::string& value, Revision expected) override {
    auto result = m_backend.update(key, value, expected);
    return result ? std::optional(result->revision) : std::nullopt;
  }

 private:
  Backend& m_backend;
};

// The etcd3 backend's create and update Txn requests, sent straight through the generated
// stub on one shared channel (as the backend shares one per endpoint), with the same deadline.
class RawEtcdWriter final : public Writer {
 public:
  explicit RawEtcdWriter(const std::string& url)
      : m_stub(etcdserverpb::KV::NewStub(grpc::CreateChannel(address_of(url), grpc::InsecureChannelCredentials()))) {}

  std::optional<Revision> create(const std::string& key, const std::string& value) override {
    etcdserverpb::TxnRequest txn;
    add_compare(txn, key, etcdserverpb::Compare::CREATE, etcdserverpb::Compare::EQUAL, 0);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(value);
    txn.add_failure()->mutable_request_range()->set_key(key);
    return send(txn);
  }
  std::optional<Revision> update(const std::string& key, const std::string& value, Revision expected) override {
    etcdserverpb::TxnRequest txn;
    add_compare(txn, key, etcdserverpb::Compare::CREATE, etcdserverpb::Compare::GREATER, 0);
    add_compare(txn, key, etcdserverpb::Compare::MOD, etcdserverpb::Compare::EQUAL, expected);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(value);
    put->set_ignore_lease(true);
    txn.add_failure()->mutable_request_range()->set_key(key);
    return send(txn);
  }

 private:
  static std::string address_of(std::string url) {
    if (auto scheme = url.find("://"); scheme != std::string::npos) url.erase(0, scheme + 3);
    return url;
  }
  static void add_compare(etcdserverpb::TxnRequest& txn, const std::string& key,
                          etcdserverpb::Compare::CompareTarget target, etcdserverpb::Compare::CompareResult result,
                          Revision revision) {
    auto* compare = txn.add_compare();
    compare->set_key(key);
    compare->set_target(target);
    compare->set_result(result);
    if (target == etcdserverpb::Compare::CREATE) {
      compare->set_create_revision(revision);
    } else {
      compare->set_mod_revision(revision);
    }
  }
  std::optional<Revision> send(const etcdserverpb::TxnRequest& txn) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    etcdserverpb::TxnResponse response;
    if (!m_stub->Txn(&context, txn, &response).ok() || !response.succeeded()) return std::nullopt;
    return response.header().revision();
  }

  std::unique_ptr<etcdserverpb::KV::Stub> m_stub;
};

struct WriteRates {
  PhaseResult creates, updates;
};

// The keys one writer created (per thread), which its update phase then rewrites.
using WrittenKeys = std::vector<std::vector<Written>>;

// Creates keys under `prefix` with `threads` writers, remembering them in `written`.
PhaseResult measure_creates(Writer& writer, const std::string& prefix, int threads, const Settings& s,
                            WrittenKeys& written) {
  const std::string value = kw::bench::sample_pod_compact();
  written.assign(static_cast<std::size_t>(threads), {});
  return run_phase(threads, s.ops, s.seconds, [&](int t, int i) {
    Written w{prefix + "/t" + std::to_string(t) + "-" + std::to_string(i), 0};
    auto revision = writer.create(w.key, value);
    if (!revision) return false;
    w.revision = *revision;
    written[static_cast<std::size_t>(t)].push_back(std::move(w));
    return true;
  });
}

// Updates the keys of `written` round-robin, each guarded by the revision it was last written at.
PhaseResult measure_updates(Writer& writer, int threads, const Settings& s, WrittenKeys& written) {
  const std::string value = kw::bench::sample_pod_compact();
  return run_phase(threads, s.ops, s.seconds, [&](int t, int i) {
    auto& mine = written[static_cast<std::size_t>(t)];
    if (mine.empty()) return false;
    Written& w = mine[static_cast<std::size_t>(i) % mine.size()];
    auto revision = writer.update(w.key, value, w.revision);
    if (!revision) return false;
    w.revision = *revision;
    return true;
  });
}

void report_errors(const std::string& tag, const WriteRates& rates) {
  const long errors = rates.creates.errors + rates.updates.errors;
  if (errors > 0) kw::bench::report(tag + ".errors", double(errors), "ops");
}

void bench_writes(Backend& backend, const std::string& name, const std::string& prefix, int threads,
                  const Settings& s) {
  BackendWriter writer(backend);
  WrittenKeys written;
  WriteRates rates;
  rates.creates = measure_creates(writer, prefix, threads, s, written);
  rates.updates = measure_updates(writer, threads, s, written);
  const std::string tag = name + ".t" + std::to_string(threads);
  kw::bench::report(tag + ".creates", rates.creates.per_second, "ops/s");
  kw::bench::report(tag + ".updates", rates.updates.per_second, "ops/s");
  report_errors(tag, rates);
}

double median_of(std::vector<double> values) { return kw::bench::percentile(values, 0.5); }

// One side of the etcd comparison: its writer and the figures of each round.
struct EtcdSide {
  Writer& writer;
  const char* name;  // "kw" or "raw"
  std::vector<double> creates, updates, cpu;
};

// The etcd3 backend against the raw gRPC loop on the same etcd. Each round runs the create
// phases of both back to back, then both update phases in the opposite order (kw, raw, raw, kw
// in even rounds, raw, kw, kw, raw in odd ones), so the two figures compared are always taken
// next to each other and load drift on the machine falls on both.
void bench_etcd_writes(Backend& backend, const std::string& url, const std::string& prefix, int threads,
                       const Settings& s) {
  BackendWriter kw_writer(backend);
  RawEtcdWriter raw_writer(url);
  EtcdSide kw{kw_writer, "kw", {}, {}, {}}, raw{raw_writer, "raw", {}, {}, {}};
  std::vector<double> create_overheads, update_overheads;  // per round: raw rate / kw rate - 1
  const std::string tag = "etcd3.t" + std::to_string(threads);
  for (int round = 0; round < std::max(1, s.raw_rounds); ++round) {
    const std::string at = prefix + "/r" + std::to_string(round) + "/";
    std::vector<EtcdSide*> order;
    if (s.run_kw) order.push_back(&kw);
    if (s.run_raw) order.push_back(&raw);
    if (round % 2 == 1) std::reverse(order.begin(), order.end());
    std::vector<WrittenKeys> written(order.size());
    std::vector<WriteRates> rates(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      rates[i].creates = measure_creates(order[i]->writer, at + order[i]->name, threads, s, written[i]);
    for (std::size_t j = order.size(); j-- > 0;)
      rates[j].updates = measure_updates(order[j]->writer, threads, s, written[j]);
    for (std::size_t i = 0; i < order.size(); ++i) {
      EtcdSide& side = *order[i];
      side.creates.push_back(rates[i].creates.per_second);
      side.updates.push_back(rates[i].updates.per_second);
      side.cpu.push_back((rates[i].creates.cpu_us_per_op + rates[i].updates.cpu_us_per_op) / 2);
      report_errors(&side == &kw ? tag : "etcd3.raw.t" + std::to_string(threads), rates[i]);
      if (s.verbose)
        std::cerr << "round " << round << " t" << threads << " " << side.name << ": creates "
                  << rates[i].creates.per_second << "/s updates " << rates[i].updates.per_second << "/s cpu "
                  << side.cpu.back() << " us/write\n";
    }
    if (order.size() == 2 && kw.creates.back() > 0 && kw.updates.back() > 0) {
      create_overheads.push_back((raw.creates.back() / kw.creates.back() - 1) * 100);
      update_overheads.push_back((raw.updates.back() / kw.updates.back() - 1) * 100);
    }
  }
  kw::bench::report(tag + ".creates", median_of(kw.creates), "ops/s");
  kw::bench::report(tag + ".updates", median_of(kw.updates), "ops/s");
  kw::bench::report(tag + ".raw_creates", median_of(raw.creates), "ops/s");
  kw::bench::report(tag + ".raw_updates", median_of(raw.updates), "ops/s");
  if (!create_overheads.empty()) {
    kw::bench::report(tag + ".creates_overhead", median_of(create_overheads), "%");
    kw::bench::report(tag + ".updates_overhead", median_of(update_overheads), "%");
  }
  // Client CPU per write is steadier than rates on a loaded machine: what the backend adds
  // on top of gRPC shows here even when etcd's own latency hides it in the rates.
  kw::bench::report(tag + ".cpu_us_per_write", median_of(kw.cpu), "us");
  kw::bench::report(tag + ".raw_cpu_us_per_write", median_of(raw.cpu), "us");
}

// Counts watch events and remembers when each revision arrived.
class EventCounter {
 public:
  EventCounter(Revision base, int expected) : m_base(base), m_expected(expected), m_arrival(std::size_t(expected)) {}
  kw::storage::WatchCallbacks callbacks() {
    return {.on_events = [this](std::vector<kw::storage::Event> events) { add(events); },
            .on_error = [this](kw::storage::Error e) { fail(e.message); },
            .on_progress = nullptr};
  }
  // True when all expected events came before the deadline.
  bool wait(double seconds) {
    std::unique_lock lock(m_mutex);
    return m_done.wait_for(lock, std::chrono::duration<double>(seconds),
                           [&] { return m_count >= m_expected || !m_error.empty(); }) && m_error.empty();
  }
  Clock::time_point arrival(Revision revision) const { return m_arrival[std::size_t(revision - m_base - 1)]; }
  Clock::time_point last() const { return m_last; }
  int count() const { return m_count; }
  const std::string& error() const { return m_error; }

 private:
  void add(const std::vector<kw::storage::Event>& events) {
    const auto now = Clock::now();
    std::lock_guard lock(m_mutex);
    for (const auto& e : events) {
      const Revision slot = e.kv.mod_revision - m_base - 1;
      if (slot >= 0 && slot < m_expected) m_arrival[std::size_t(slot)] = now;
    }
    m_count += static_cast<int>(events.size());
    m_last = now;
    if (m_count >= m_expected) m_done.notify_all();
  }
  void fail(const std::string& message) {
    std::lock_guard lock(m_mutex);
    m_error = message.empty() ? "watch failed" : message;
    m_done.notify_all();
  }

  Revision m_base;
  int m_expected;
  std::mutex m_mutex;  // guards everything below
  std::condition_variable m_done;
  std::vector<Clock::time_point> m_arrival;
  int m_count = 0;
  Clock::time_point m_last;
  std::string m_error;
};

// Writes `n` creates under `prefix` with 8 threads; returns each revision's ack time (by revision - base - 1).
std::vector<Clock::time_point> write_events(Backend& backend, const std::string& prefix, Revision base, int n,
                                            double seconds) {
  const std::string value = kw::bench::sample_pod_compact();
  std::vector<Clock::time_point> acks(static_cast<std::size_t>(n));
  std::mutex acks_mutex;
  run_phase(8, n, seconds, [&](int t, int i) {
    auto result = backend.create(prefix + "/e" + std::to_string(t) + "-" + std::to_string(i), value);
    if (!result) return false;
    const auto now = Clock::now();
    const Revision slot = result->revision - base - 1;
    std::lock_guard lock(acks_mutex);
    if (slot >= 0 && slot < n) acks[std::size_t(slot)] = now;
    return true;
  });
  return acks;
}

void bench_watch(Backend& backend, const std::string& name, const std::string& prefix, const Settings& s) {
  const int n = s.watch_events;
  // Replay: N events already in history, delivered to a watch that starts before them.
  auto base = backend.current_revision();
  if (!base) return kw::bench::report(name + ".watch.failed", 1, "");
  write_events(backend, prefix + "/replay", *base, n, s.seconds * 4);
  EventCounter replay(*base, n);
  const auto replay_start = Clock::now();
  auto handle = backend.watch(prefix + "/replay/", *base, replay.callbacks());
  if (handle && replay.wait(s.seconds * 4))
    kw::bench::report(name + ".watch_replay", n / std::chrono::duration<double>(replay.last() - replay_start).count(),
                      "events/s");
  else
    std::cerr << name << ": replay watch got " << replay.count() << "/" << n << " events " << replay.error() << "\n";
  if (handle) handle->reset();

  // Live: a watch open first, then 8 writers; rate over the write window, latency per event.
  base = backend.current_revision();
  if (!base) return;
  EventCounter live(*base, n);
  auto live_handle = backend.watch(prefix + "/live/", *base, live.callbacks());
  if (!live_handle) return kw::bench::report(name + ".watch.failed", 1, "");
  const auto start = Clock::now();
  const auto acks = write_events(backend, prefix + "/live", *base, n, s.seconds * 4);
  if (!live.wait(s.seconds * 4)) {
    std::cerr << name << ": live watch got " << live.count() << "/" << n << " events " << live.error() << "\n";
    return;
  }
  std::vector<double> latency_ms;
  for (int i = 0; i < n; ++i) {
    const auto arrived = live.arrival(*base + i + 1);
    const auto acked = acks[std::size_t(i)];
    if (acked == Clock::time_point{} || arrived == Clock::time_point{}) continue;
    latency_ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(arrived - acked).count()));
  }
  kw::bench::report(name + ".watch_live", n / std::chrono::duration<double>(live.last() - start).count(), "events/s");
  kw::bench::report(name + ".watch_live_p50", kw::bench::percentile(latency_ms, 0.5), "ms");
  kw::bench::report(name + ".watch_live_p99", kw::bench::percentile(latency_ms, 0.99), "ms");
}

// etcd_url: the etcd the backend talks to, for the raw baseline; empty for the embedded store.
void bench_backend(Backend& backend, const std::string& name, const std::string& etcd_url, const Settings& s) {
  const std::string prefix = "/registry/bench/" + std::to_string(Clock::now().time_since_epoch().count());
  for (int threads : s.threads) {
    const std::string at = prefix + "/w" + std::to_string(threads);
    if (etcd_url.empty()) {
      bench_writes(backend, name, at, threads, s);
    } else {
      bench_etcd_writes(backend, etcd_url, at, threads, s);
    }
  }
  bench_watch(backend, name, prefix, s);
}

// One etcdctl process per put, sequential: the command-line baseline against the same etcd.
void bench_etcdctl(const std::string& endpoint, const Settings& s) {
  const std::string value = kw::bench::sample_pod_compact();
  const auto start = Clock::now();
  int done = 0;
  for (int i = 0; i < s.etcdctl_puts && kw::bench::seconds_since(start) < s.seconds * 4; ++i) {
    std::vector<std::string> args = {"etcdctl", "--endpoints=" + endpoint, "put",
                                     "/registry/bench/etcdctl/" + std::to_string(i), value};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int spawned = posix_spawnp(&pid, "etcdctl", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (spawned == 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) ++done;
  }
  kw::bench::report("etcdctl.t1.creates", done / kw::bench::seconds_since(start), "ops/s");
}

int run(const Settings& s) {
  for (const auto& name : s.backends) {
    if (name == "sqlite") {
      kw::testing::TempDir dir("kw-bench-sqlite");
      kw::storage::SqliteOptions options;
      options.data_dir = dir.path();
      auto backend = kw::storage::open_sqlite_backend(options);
      if (!backend) {
        std::cerr << "storage_bench: cannot open sqlite: " << backend.error().message << "\n";
        return 1;
      }
      bench_backend(**backend, "sqlite", "", s);
    } else if (name == "etcd3") {
      kw::testing::EtcdProcess etcd;
      kw::storage::Etcd3Options options;
      options.endpoints = {etcd.client_url(0)};
      auto backend = kw::storage::open_etcd3_backend(options);
      if (!backend || !(*backend)->health()) {
        std::cerr << "storage_bench: etcd3 backend is not usable\n";
        return 1;
      }
      bench_backend(**backend, "etcd3", etcd.client_url(0), s);
      if (s.etcdctl_puts > 0) bench_etcdctl(etcd.client_url(0), s);
    } else {
      std::cerr << "storage_bench: unknown backend " << name << " (sqlite or etcd3)\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  try {
    std::string backends = kw::bench::flag(argc, argv, "backends", "sqlite,etcd3");
    for (std::size_t at = 0; at <= backends.size();) {
      const std::size_t comma = std::min(backends.find(',', at), backends.size());
      s.backends.push_back(backends.substr(at, comma - at));
      at = comma + 1;
    }
    s.threads = kw::bench::parse_int_list(kw::bench::flag(argc, argv, "threads", "1,8,64"));
    s.ops = std::stoi(kw::bench::flag(argc, argv, "ops", "3000"));
    s.seconds = std::stod(kw::bench::flag(argc, argv, "seconds", "4"));
    s.watch_events = std::stoi(kw::bench::flag(argc, argv, "watch-events", "2000"));
    s.etcdctl_puts = std::stoi(kw::bench::flag(argc, argv, "etcdctl-puts", "200"));
    s.raw_rounds = std::stoi(kw::bench::flag(argc, argv, "raw-rounds", "5"));
    const std::string writers = "," + kw::bench::flag(argc, argv, "writers", "kw,raw") + ",";
    s.run_kw = writers.find(",kw,") != std::string::npos;
    s.run_raw = writers.find(",raw,") != std::string::npos;
    s.verbose = kw::bench::flag(argc, argv, "verbose", "0") != "0";
    return run(s);
  } catch (const std::exception& e) {
    std::cerr << "storage_bench: " << e.what() << "\n";
    return 2;
  }
}
