#include "bench/cluster_sim.hpp"

#include <boost/asio/steady_timer.hpp>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <unordered_map>
#include <vector>

#include "bench/cluster_objects.hpp"
#include "bench/cluster_stats.hpp"
#include "bench/cluster_watch.hpp"

namespace kw::bench::cluster {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr auto k_tick = 20ms;
constexpr auto k_lag_horizon = 10s;
constexpr int k_list_limit = 500;
constexpr int k_max_watch_restarts = 20;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

bool ok(int status) { return status >= 200 && status < 300; }

struct Pod {
  long index = 0;
  Clock::time_point create_sent;
  double kubelet_wait_ms = 0;
  bool created = false;          // the create was answered
  bool bound = false;            // a binding was sent
  bool kubelet_started = false;  // its kubelet saw it
  bool kubelet_stopping = false;  // its kubelet saw it being deleted
  bool running_seen = false;     // the scheduler saw it Running
};

struct NodeSim {
  std::string name;
  int index = 0;
  std::shared_ptr<H2Connection> connection;
  std::unique_ptr<WatchStream> pods_watch;
  std::unique_ptr<WatchStream> node_watch;
  bool pods_watching = false;
  bool node_watching = false;
  bool counted = false;  // in nodes_ready or nodes_failed
  bool registered = false;
  bool lease_busy = false;
  bool status_busy = false;
  Clock::time_point next_lease;
  Clock::time_point next_status;
};

constexpr std::size_t k_controller_watches = 3;  // pods, nodes, leases
constexpr int k_prefill_parallel = 64;           // prefill creates in flight at once

struct ControllerSim {
  int index = 0;
  std::shared_ptr<H2Connection> connection;
  std::vector<std::unique_ptr<WatchStream>> watches;  // pods, nodes, leases
  bool headed[k_controller_watches] = {};  // which watches have had their first 200
  int watching = 0;
  bool relisted = false;
};

struct Collection {
  const char* resource;  // "pods"
  const char* path;      // "/api/v1/pods"
  WatchKind kind;
};
constexpr Collection k_collections[] = {
    {"pods", "/api/v1/pods", WatchKind::pods_controller},
    {"nodes", "/api/v1/nodes", WatchKind::nodes_controller},
    {"leases", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", WatchKind::leases_controller},
};
static_assert(std::size(k_collections) == k_controller_watches);

}  // namespace

struct Cluster::State {
  State(asio::io_context& io_, const H2Endpoint& endpoint_, Options options_)
      : io(io_), endpoint(endpoint_), o(std::move(options_)), tick(io_) {}

  asio::io_context& io;
  const H2Endpoint& endpoint;
  Options o;
  Stats stats;
  std::vector<NodeSim> nodes;  // sized once; watch callbacks hold pointers into it
  std::vector<ControllerSim> controllers;
  std::unordered_map<std::string, Pod> pods;
  std::deque<std::string> live;  // created pods, oldest first
  long next_pod = 0;
  // "load-<run>-": pod names of this run, apart from an earlier run's against the same server.
  std::string pod_prefix = "load-" + std::to_string(::getpid()) + "-";
  double tokens = 0;
  int creates_in_flight = 0;
  long next_writer = 0;
  long next_binding = 0;
  asio::steady_timer tick;
  int connecting = 0;
  int next_to_connect = 0;
  int nodes_ready = 0;
  int nodes_failed = 0;
  int controllers_connected = 0;
  int controllers_watching = 0;
  std::vector<const NodeSim*> prefill_nodes;  // the registered nodes pods are prefilled onto
  long prefill_target = 0;
  long prefilled_sent = 0;
  int prefill_in_flight = 0;
  bool prefill_done = false;
  enum class Phase { setup, measured, done } phase = Phase::setup;
  Clock::time_point setup_start, measure_start, measure_end, last_tick, last_resolve, last_progress;
  std::string fatal;
  ProcessUsage server_start, self_start, server_end, self_end;

  // ---- requests ----

  using Then = std::function<void(int status, const std::string& body)>;
  void call(H2Connection& connection, std::string key, std::string method, std::string path,
            std::string content_type, std::string body, Then then) {
    const auto start = Clock::now();
    const bool mutating = method != "GET";
    const bool has_version = method == "POST" || method == "PUT" || method == "PATCH";
    H2Request request{std::move(method), std::move(path), std::string(k_accept), std::move(content_type), std::move(body)};
    auto done = [this, key, start, mutating, has_version, then](int status, std::string answer) {
      const auto now = Clock::now();
      stats.request(key, mutating, ms_between(start, now), status);
      if (phase == Phase::setup && !ok(status) && status != 409) stats.count("setup errors");
      if (ok(status) && has_version) {
        if (auto view = read_object(answer, false); view && view->resource_version != 0)
          stats.write_seen(view->resource_version, now);
      }
      if (then) then(status, answer);
    };
    if (!h2_call(connection, std::move(request), done)) done(0, {});
  }

  std::string pod_path(const std::string& name) const {
    return "/api/v1/namespaces/" + o.namespace_name + "/pods/" + name;
  }

  // ---- set-up ----

  void start() {
    setup_start = last_tick = last_resolve = last_progress = Clock::now();
    nodes.resize(static_cast<std::size_t>(o.nodes));
    controllers.resize(static_cast<std::size_t>(o.controllers));
    for (int i = 0; i < o.nodes; ++i) {
      nodes[static_cast<std::size_t>(i)].index = i;
      nodes[static_cast<std::size_t>(i)].name = "sim-node-" + std::to_string(i);
    }
    for (int i = 0; i < o.controllers; ++i) connect_controller(i);
    arm_tick();
  }

  void connect_controller(int i) {
    H2Connection::open(io, endpoint, [this, i](Result<std::shared_ptr<H2Connection>> connection) {
      if (!connection) return fail("controller " + std::to_string(i) + ": " + connection.error().message);
      ControllerSim& c = controllers[static_cast<std::size_t>(i)];
      c.index = i;
      c.connection = std::move(*connection);
      if (++controllers_connected < o.controllers) return;
      // The namespace the pods live in, then the kubelets.
      call(*controllers[0].connection, "POST namespaces", "POST", "/api/v1/namespaces", "application/json",
           namespace_body(o.namespace_name), [this](int status, const std::string&) {
             if (!ok(status) && status != 409) return fail("cannot create namespace " + o.namespace_name);
             connect_nodes();
           });
    });
  }

  void connect_nodes() {
    while (connecting < o.connect_parallel && next_to_connect < o.nodes) {
      const int i = next_to_connect++;
      ++connecting;
      H2Connection::open(io, endpoint, [this, i](Result<std::shared_ptr<H2Connection>> connection) {
        --connecting;
        NodeSim& node = nodes[static_cast<std::size_t>(i)];
        if (!connection) {
          stats.count("node connections failed");
          node_counted(node, false);
        } else {
          node.connection = std::move(*connection);
          register_node(node);
        }
        if (phase != Phase::done) connect_nodes();
      });
    }
  }

  void register_node(NodeSim& node) {
    call(*node.connection, "POST nodes", "POST", "/api/v1/nodes", "application/json", node_body(node.name, node.index),
         [this, &node](int status, const std::string&) {
           if (!ok(status) && status != 409) return node_counted(node, false);
           call(*node.connection, "POST leases", "POST",
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "application/json",
                lease_body(node.name), [this, &node](int lease_status, const std::string&) {
                  if (!ok(lease_status) && lease_status != 409) return node_counted(node, false);
                  start_kubelet(node);
                });
         });
  }

  void start_kubelet(NodeSim& node) {
    node.registered = true;
    // Heartbeats spread evenly over their periods by node index; the status half a lease period
    // after the lease.
    const auto period = seconds(o.heartbeat_s);
    const auto status_period = seconds(o.status_s);
    const auto offset = period * node.index / std::max(1, o.nodes);
    node.next_lease = Clock::now() + offset;
    node.next_status = Clock::now() + (status_period * node.index / std::max(1, o.nodes) + period / 2) % status_period;
    node.pods_watch = std::make_unique<WatchStream>(
        "/api/v1/pods?fieldSelector=spec.nodeName%3D" + node.name, false,
        WatchStream::Callbacks{[this, &node](const WatchEvent& event) { kubelet_pod_event(node, event); },
                               [this, &node](int status) {
                                 node.pods_watching = status == 200;
                                 node_watch_head(node, status);
                               },
                               [this, &node](int status) { watch_ended(node.connection, *node.pods_watch, status); }});
    node.node_watch = std::make_unique<WatchStream>(
        "/api/v1/nodes?fieldSelector=metadata.name%3D" + node.name, false,
        WatchStream::Callbacks{[this](const WatchEvent& event) { lag(event, WatchKind::nodes_node); },
                               [this, &node](int status) {
                                 node.node_watching = status == 200;
                                 node_watch_head(node, status);
                               },
                               [this, &node](int status) { watch_ended(node.connection, *node.node_watch, status); }});
    node.pods_watch->start(*node.connection, "");
    node.node_watch->start(*node.connection, "");
  }

  void node_watch_head(NodeSim& node, int status) {
    if (status != 200) stats.count("watch refused");
    if (node.counted) return;
    if (status != 200) return node_counted(node, false);
    if (node.pods_watching && node.node_watching) node_counted(node, true);
  }

  void node_counted(NodeSim& node, bool ready) {
    if (node.counted) return;
    node.counted = true;
    (ready ? nodes_ready : nodes_failed)++;
    if (nodes_ready + nodes_failed != o.nodes) return;
    if (o.prefill) return start_prefill();
    start_controllers();
  }

  // ---- the steady state's pods, before measuring ----

  void start_prefill() {
    if (nodes_ready == 0) return fail("no node finished registering");
    for (const NodeSim& node : nodes)
      if (node.registered && node.connection->alive()) prefill_nodes.push_back(&node);
    prefill_target = static_cast<long>(o.pods_per_node) * nodes_ready;
    std::fprintf(stderr, "cluster_load: creating %ld scheduled pods before measuring\n", prefill_target);
    for (int i = 0; i < k_prefill_parallel; ++i) prefill_next();
  }

  // Creates the next pod, bound to a node in turn; the kubelets start them as they see them.
  void prefill_next() {
    if (phase != Phase::setup) return;
    if (prefilled_sent >= prefill_target || prefill_nodes.empty()) {
      if (prefill_in_flight == 0 && !prefill_done) {
        prefill_done = true;
        start_controllers();
      }
      return;
    }
    const long index = next_pod++;
    const NodeSim& node = *prefill_nodes[static_cast<std::size_t>(prefilled_sent++ % static_cast<long>(prefill_nodes.size()))];
    const std::string name = pod_prefix + std::to_string(index);
    Pod& pod = pods[name];
    pod.index = index;
    pod.bound = true;
    pod.running_seen = true;  // no start-up sample: these start before the window
    pod.create_sent = Clock::now();
    ++prefill_in_flight;
    call(*node.connection, "POST pods (prefill)", "POST", "/api/v1/namespaces/" + o.namespace_name + "/pods",
         "application/json", pod_body(name, o.namespace_name, index, node.name),
         [this, name](int status, const std::string&) {
           --prefill_in_flight;
           if (ok(status)) {
             stats.count("pods prefilled");
             if (auto it = pods.find(name); it != pods.end()) it->second.created = true;
             live.push_back(name);
           } else {
             stats.count("prefill failures");
             pods.erase(name);
           }
           prefill_next();
         });
  }

  void start_controllers() {
    if (nodes_ready == 0) return fail("no node finished registering");
    for (ControllerSim& c : controllers)
      for (std::size_t i = 0; i < std::size(k_collections); ++i) {
        const Collection& collection = k_collections[i];
        const bool scheduler = c.index == 0 && i == 0;
        c.watches.push_back(std::make_unique<WatchStream>(
            collection.path, scheduler,
            WatchStream::Callbacks{
                [this, &c, i](const WatchEvent& event) { controller_event(c, i, event); },
                [this, &c, i](int status) {
                  if (status != 200) return stats.count("watch refused");
                  if (c.headed[i]) return;  // a restarted watch
                  c.headed[i] = true;
                  if (++c.watching == static_cast<int>(std::size(k_collections))) controller_watching();
                },
                [this, &c, i](int status) { watch_ended(c.connection, *c.watches[i], status); }}));
      }
    for (ControllerSim& c : controllers) list_then_watch(c, 0);
  }

  // Lists collection `i` in pages, then watches it from the list's resourceVersion.
  void list_then_watch(ControllerSim& c, std::size_t i) {
    if (i == std::size(k_collections)) return;
    list_pages(c, i, "", [this, &c, i](std::string resource_version) {
      c.watches[i]->start(*c.connection, std::move(resource_version));
      list_then_watch(c, i + 1);
    });
  }

  void list_pages(ControllerSim& c, std::size_t i, std::string token, std::function<void(std::string)> done) {
    const Collection& collection = k_collections[i];
    std::string path = std::string(collection.path) + "?limit=" + std::to_string(k_list_limit);
    if (!token.empty()) path += "&continue=" + token;
    call(*c.connection, std::string("LIST ") + collection.resource, "GET", path, {}, {},
         [this, &c, i, done = std::move(done)](int status, const std::string& body) mutable {
           if (phase == Phase::done) return;
           auto view = ok(status) ? read_list(body) : std::nullopt;
           if (!view) {
             stats.count("list failures");
             return done("");
           }
           stats.count(std::string("listed ") + k_collections[i].resource, view->items);
           if (!view->list_continue.empty()) return list_pages(c, i, view->list_continue, std::move(done));
           done(std::to_string(view->resource_version));
         });
  }

  void controller_watching() {
    if (++controllers_watching < o.controllers || phase != Phase::setup) return;
    phase = Phase::measured;
    measure_start = Clock::now();
    stats.set_recording(true);
    if (o.server_pid) server_start = read_process_usage(o.server_pid);
    self_start = read_process_usage(::getpid());
    std::fprintf(stderr, "cluster_load: set-up done in %.1f s (%d nodes ready, %d failed); measuring for %.0f s\n",
                 ms_between(setup_start, measure_start) / 1000, nodes_ready, nodes_failed, o.duration_s);
  }

  // ---- watches ----

  void lag(const WatchEvent& event, WatchKind kind) {
    if (event.type == "ADDED" || event.type == "MODIFIED" || event.type == "DELETED")
      stats.event_seen(event.object.resource_version, kind, Clock::now());
  }

  void watch_ended(const std::shared_ptr<H2Connection>& connection, WatchStream& watch, int status) {
    if (phase == Phase::done) return;
    if (!connection || !connection->alive()) return stats.count("connections lost");
    stats.count(status == 200 ? "watches ended by the server" : "watches failed");
    if (stats.counter("watch restarts") >= k_max_watch_restarts * (o.nodes + o.controllers)) return;
    stats.count("watch restarts");
    auto timer = std::make_shared<asio::steady_timer>(io, 1s);
    timer->async_wait([this, timer, connection, &watch](const boost::system::error_code&) {
      if (phase != Phase::done && connection->alive()) watch.restart(*connection);
    });
  }

  // The kubelet: a pod bound to the node starts after the simulated delay (a status PATCH to
  // Running); a pod being deleted is stopped after the same delay and deleted for good.
  void kubelet_pod_event(NodeSim& node, const WatchEvent& event) {
    lag(event, WatchKind::pods_node);
    if (event.type != "ADDED" && event.type != "MODIFIED") return;
    const auto it = pods.find(event.object.name);
    if (it == pods.end()) return;
    Pod& pod = it->second;
    const bool stop = event.object.deleting;
    if (stop ? pod.kubelet_stopping : pod.kubelet_started) return;
    (stop ? pod.kubelet_stopping : pod.kubelet_started) = true;
    const auto seen = Clock::now();
    auto timer = std::make_shared<asio::steady_timer>(
        io, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(o.kubelet_delay_ms)));
    timer->async_wait([this, timer, &node, name = event.object.name, seen, stop](const boost::system::error_code&) {
      const auto found = pods.find(name);
      if (phase == Phase::done || found == pods.end() || !node.connection->alive()) return;
      if (stop) {
        call(*node.connection, "DELETE pods (kubelet)", "DELETE", pod_path(name) + "?gracePeriodSeconds=0", {}, {},
             nullptr);
        return;
      }
      found->second.kubelet_wait_ms = ms_between(seen, Clock::now());
      call(*node.connection, "PATCH pods/status", "PATCH", pod_path(name) + "/status",
           "application/strategic-merge-patch+json", pod_running_patch(name, found->second.index), nullptr);
    });
  }

  void controller_event(ControllerSim& c, std::size_t collection, const WatchEvent& event) {
    lag(event, k_collections[collection].kind);
    if (c.index != 0 || collection != 0 || event.type == "BOOKMARK" || event.type == "ERROR") return;
    // The scheduler: bind what is unscheduled, see pods reach Running and go.
    const auto it = pods.find(event.object.name);
    if (it == pods.end()) return;
    if (event.type == "DELETED") {
      pods.erase(it);
      stats.count("pods gone");
      return;
    }
    Pod& pod = it->second;
    if (event.object.phase == "Running" && !pod.running_seen) {
      pod.running_seen = true;
      stats.count("pods running");
      stats.pod_started(ms_between(pod.create_sent, Clock::now()) - pod.kubelet_wait_ms);
    }
    if (!event.object.node_name.empty() || event.object.deleting || pod.bound) return;
    pod.bound = true;
    const NodeSim& node = nodes[static_cast<std::size_t>(next_binding++ % o.nodes)];
    call(*c.connection, "POST pods/binding", "POST", pod_path(event.object.name) + "/binding", "application/json",
         binding_body(event.object.name, o.namespace_name, node.name), nullptr);
  }

  // ---- the steady load ----

  void arm_tick() {
    tick.expires_after(k_tick);
    tick.async_wait([this](const boost::system::error_code& ec) {
      if (!ec && phase != Phase::done) on_tick();
    });
  }

  void on_tick() {
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last_tick).count();
    stats.loop_delay(std::max(0.0, ms_between(last_tick + k_tick, now)));
    last_tick = now;
    if (phase == Phase::setup && now - setup_start > std::chrono::duration<double>(o.setup_timeout_s))
      return fail("set-up did not finish in " + std::to_string(static_cast<int>(o.setup_timeout_s)) + " s (" +
                  std::to_string(nodes_ready) + " nodes ready, " + std::to_string(controllers_watching) +
                  " controllers watching)");
    heartbeats(now);
    if (phase == Phase::setup && now - last_progress >= 10s) {
      last_progress = now;
      std::fprintf(stderr,
                   "cluster_load: setting up: %d of %d nodes ready (%d failed), %ld of %ld pods prefilled, "
                   "%d controllers watching\n",
                   nodes_ready, o.nodes, nodes_failed, static_cast<long>(live.size()), prefill_target,
                   controllers_watching);
    }
    if (now - last_resolve >= 1s) {
      stats.resolve_pending(now, k_lag_horizon);
      last_resolve = now;
    }
    if (phase == Phase::measured) {
      churn(dt);
      relists(now);
      if (now - measure_start >= std::chrono::duration<double>(o.duration_s)) return finish();
    }
    arm_tick();
  }

  static Clock::duration seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  void heartbeats(Clock::time_point now) {
    const auto period = seconds(o.heartbeat_s);
    for (NodeSim& node : nodes) {
      if (!node.registered || !node.connection->alive()) continue;
      if (now >= node.next_lease) {
        node.next_lease += period;
        if (node.lease_busy) {
          stats.count("heartbeats skipped");
        } else {
          node.lease_busy = true;
          call(*node.connection, "PATCH leases", "PATCH",
               "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + node.name,
               "application/merge-patch+json", lease_renew_patch(),
               [&node](int, const std::string&) { node.lease_busy = false; });
        }
      }
      if (now >= node.next_status) {
        node.next_status += seconds(o.status_s);
        if (node.status_busy) {
          stats.count("heartbeats skipped");
        } else {
          // As the kubelet: read the Node (from the cache), then patch its status.
          node.status_busy = true;
          call(*node.connection, "GET nodes", "GET", "/api/v1/nodes/" + node.name + "?resourceVersion=0", {}, {},
               [this, &node](int, const std::string&) {
                 call(*node.connection, "PATCH nodes/status", "PATCH", "/api/v1/nodes/" + node.name + "/status",
                      "application/strategic-merge-patch+json", node_status_patch(),
                      [&node](int, const std::string&) { node.status_busy = false; });
               });
        }
      }
    }
  }

  void churn(double dt) {
    const long steady = static_cast<long>(o.pods_per_node) * nodes_ready;
    const int max_in_flight = std::max(100, static_cast<int>(o.churn * 2));
    tokens = std::min(tokens + o.churn * dt, o.churn + 1);
    for (; tokens >= 1; tokens -= 1) {
      if (creates_in_flight >= max_in_flight) {
        stats.count("pod creates skipped (server behind)");
        continue;
      }
      if (static_cast<long>(live.size()) >= steady && !live.empty()) delete_oldest();
      create_pod();
    }
  }

  ControllerSim& writer() {
    if (o.controllers == 1) return controllers[0];
    return controllers[static_cast<std::size_t>(1 + next_writer++ % (o.controllers - 1))];
  }

  void create_pod() {
    const long index = next_pod++;
    const std::string name = pod_prefix + std::to_string(index);
    Pod& pod = pods[name];
    pod.index = index;
    pod.create_sent = Clock::now();
    ++creates_in_flight;
    call(*writer().connection, "POST pods", "POST", "/api/v1/namespaces/" + o.namespace_name + "/pods",
         "application/json", pod_body(name, o.namespace_name, index), [this, name](int status, const std::string&) {
           --creates_in_flight;
           if (!ok(status)) {
             pods.erase(name);
             return;
           }
           stats.count("pods created");
           if (auto it = pods.find(name); it != pods.end()) it->second.created = true;
           live.push_back(name);
         });
  }

  void delete_oldest() {
    const std::string name = live.front();
    live.pop_front();
    // Graceful, as a ReplicaSet controller deletes: the kubelet finishes the deletion, and the
    // pod is forgotten once the scheduler's watch sees it gone.
    call(*writer().connection, "DELETE pods", "DELETE", pod_path(name), {}, {}, [this](int status, const std::string&) {
      if (ok(status)) stats.count("pods deleted");
    });
  }

  // Each controller relists pods and nodes once, at its own point of the window.
  void relists(Clock::time_point now) {
    for (ControllerSim& c : controllers) {
      const double at = o.duration_s * (c.index + 0.5) / o.controllers;
      if (c.relisted || now - measure_start < std::chrono::duration<double>(at)) continue;
      c.relisted = true;
      list_pages(c, 0, "", [this, &c](std::string) { list_pages(c, 1, "", [](std::string) {}); });
    }
  }

  // ---- the end ----

  void fail(std::string what) {
    if (phase == Phase::done) return;
    fatal = std::move(what);
    finish();
  }

  void finish() {
    const auto now = Clock::now();
    if (phase == Phase::measured) stats.resolve_pending(now, k_lag_horizon);
    stats.set_recording(false);
    measure_end = now;
    if (o.server_pid) server_end = read_process_usage(o.server_pid);
    self_end = read_process_usage(::getpid());
    const bool measured = phase == Phase::measured;
    phase = Phase::done;
    if (!measured) measure_start = now;
    tick.cancel();
    for (NodeSim& node : nodes)
      if (node.connection) node.connection->close();
    for (ControllerSim& c : controllers)
      if (c.connection) c.connection->close();
  }
};

Cluster::Cluster(asio::io_context& io, const H2Endpoint& endpoint, Options options)
    : m_state(std::make_unique<State>(io, endpoint, std::move(options))) {}

Cluster::~Cluster() = default;

Result<nlohmann::json> Cluster::run() {
  State& s = *m_state;
  s.start();
  const auto bound = std::chrono::duration<double>(s.o.setup_timeout_s + s.o.duration_s + 60);
  s.io.run_for(std::chrono::duration_cast<std::chrono::milliseconds>(bound));
  if (s.phase != State::Phase::done) s.fail("the run did not end in time");
  // Let the closed connections' pending operations complete (bounded).
  s.io.restart();
  s.io.run_for(2s);
  if (!s.fatal.empty()) return kw::fail(s.fatal);
  nlohmann::json report = s.stats.report(ms_between(s.measure_start, s.measure_end) / 1000);
  report["nodes"] = s.nodes_ready;
  report["nodes_failed"] = s.nodes_failed;
  report["pods"] = static_cast<long>(s.live.size());
  report["pods_target"] = static_cast<long>(s.o.pods_per_node) * s.nodes_ready;
  report["controllers"] = s.o.controllers;
  report["churn_per_s"] = s.o.churn;
  report["setup_s"] = ms_between(s.setup_start, s.measure_start) / 1000;
  const double seconds = report["duration_s"].get<double>();
  if (s.server_start.ok && s.server_end.ok) {
    const double cpu = s.server_end.cpu_s - s.server_start.cpu_s;
    report["server_cpu_s"] = cpu;
    report["server_cpu_cores"] = seconds > 0 ? cpu / seconds : 0;
    report["server_rss_mib"] = s.server_end.peak_rss_mib;
  } else {
    report["server_cpu_cores"] = nullptr;
    report["server_rss_mib"] = nullptr;
  }
  const double own = s.self_end.cpu_s - s.self_start.cpu_s;
  report["generator_cpu_s"] = own;
  report["generator_cpu_cores"] = seconds > 0 ? own / seconds : 0;
  return report;
}

}  // namespace kw::bench::cluster
