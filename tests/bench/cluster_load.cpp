// cluster_load: a whole cluster's API traffic against one API server, from one process on
// one thread (Asio + nghttp2, HTTP/2 over TLS with protobuf as client-go speaks it).
//
//   cluster_load [--nodes N] [--pods-per-node P] [--churn PODS_PER_S] [--controllers C]
//                [--duration S] (--kubeconfig FILE | --server URL) [--pid SERVER_PID]
//                [--kubelet-delay-ms MS] [--heartbeat-s S] [--status-s S] [--setup-timeout S]
//                [--prefill 1]
//
// Simulated: N kubelets, one h2 connection each (as every kubelet has its own): a ~4 KiB Node
// registered, a Lease renewed (merge PATCH of renewTime) every heartbeat period and the Node's
// status read and patched every status period (default 10 s and 60 s), spread evenly over them; a watch on the node's pods
// (fieldSelector=spec.nodeName) and one on its Node (metadata.name); a pod bound to the node
// is patched to Running (conditions, podIP, containerStatuses) after --kubelet-delay-ms, and
// one being deleted is deleted for good (gracePeriodSeconds=0) after the same delay.
// C controllers, one connection each: paged LISTs of pods, nodes and leases, then watches
// from the lists' resourceVersions; the first schedules pods (POST pods/NAME/binding,
// round-robin over nodes), the others create pods at --churn per second up to P per node
// and then replace them (a graceful DELETE of the oldest + a create) at the same rate; each
// relists pods and nodes once during the window. --duration seconds are measured after set-up
// (nodes registered, every watch open); the ramp of pod creation is part of the measured load,
// unless --prefill 1 creates the P per node first (already scheduled, started by their kubelets)
// so the window runs at the steady state's size.
// One process, one thread: the simulated clients are event-driven state on one io_context, and
// each keeps its own connection, so the server sees as many h2 connections as a real cluster.
//
// Output: one JSON document on stdout (the keys nodes, pods, duration_s, requests_per_s,
// mutating_p99_ms, get_p99_ms, list_p99_ms, watch_lag_p99_ms, pod_startup_p99_ms,
// server_cpu_cores, server_rss_mib, errors: the count of failed requests, by HTTP code in
// errors_by_code, 0 standing for a connection failure; and details), a table on stderr.
// Latencies are per "VERB resource" (LIST is one page). Watch lag is the time from a write's
// response to the event carrying its resourceVersion reaching a watch (0 when the event
// overtakes the response); pod start-up is create sent -> Running seen by the scheduler, minus
// the kubelet's delay. Server CPU and peak RSS (--pid) and the generator's own CPU cover the
// measured window; generator_loop_delay says how late its timer ran (a busy generator).
// Exit status 0 when the run completed (errors are reported, not fatal), 1 otherwise.
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "bench/cluster_sim.hpp"
#include "bench/cluster_stats.hpp"
#include "core/kubeconfig/kubeconfig.hpp"

namespace {

using kw::bench::cluster::Options;

struct Flags {
  Options options;
  std::string server;
  std::string kubeconfig;
  pid_t pid = 0;
};

// "--name value" or "--name=value".
kw::Result<Flags> parse_flags(int argc, char** argv) {
  Flags flags;
  Options& o = flags.options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string name(arg), value;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      name = std::string(arg.substr(0, eq));
      value = std::string(arg.substr(eq + 1));
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return kw::fail(name + " needs a value");
    }
    auto number = [&](double& out, double min) -> kw::Result<void> {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
      if (ec != std::errc() || end != value.data() + value.size() || out < min)
        return kw::fail(name + ": not a number >= " + std::to_string(min) + ": " + value);
      return {};
    };
    auto integer = [&](int& out, int min) -> kw::Result<void> {
      double v = 0;
      if (auto r = number(v, min); !r) return r;
      out = static_cast<int>(v);
      return {};
    };
    kw::Result<void> r;
    if (name == "--nodes") r = integer(o.nodes, 1);
    else if (name == "--pods-per-node") r = integer(o.pods_per_node, 0);
    else if (name == "--churn") r = number(o.churn, 0);
    else if (name == "--controllers") r = integer(o.controllers, 1);
    else if (name == "--duration") r = number(o.duration_s, 1);
    else if (name == "--kubelet-delay-ms") r = number(o.kubelet_delay_ms, 0);
    else if (name == "--heartbeat-s") r = number(o.heartbeat_s, 0.1);
    else if (name == "--status-s") r = number(o.status_s, 0.1);
    else if (name == "--setup-timeout") r = number(o.setup_timeout_s, 1);
    else if (name == "--prefill") {
      int prefill = 0;
      r = integer(prefill, 0);
      o.prefill = prefill != 0;
    }
    else if (name == "--server") flags.server = value;
    else if (name == "--kubeconfig") flags.kubeconfig = value;
    else if (name == "--pid") {
      int pid = 0;
      r = integer(pid, 1);
      flags.pid = pid;
    } else return kw::fail("unknown flag " + name + " (see the header of tests/bench/cluster_load.cpp)");
    if (!r) return std::unexpected(r.error());
  }
  if (flags.server.empty() == flags.kubeconfig.empty()) return kw::fail("give one of --kubeconfig FILE or --server URL");
  return flags;
}

// The connection settings: --server as given (h2c for http://), or the kubeconfig's cluster and user.
kw::Result<kw::bench::H2Endpoint> make_endpoint(const Flags& flags) {
  kw::net::client::ClientConfig config;
  std::string token;
  if (!flags.server.empty()) {
    config.url = flags.server.find("://") == std::string::npos ? "http://" + flags.server : flags.server;
    config.insecure_skip_tls_verify = true;
  } else {
    kw::kubeconfig::Overrides overrides;
    overrides.kubeconfig = flags.kubeconfig;
    auto rest = kw::kubeconfig::load(overrides, kw::kubeconfig::Environment::from_process());
    if (!rest) return std::unexpected(rest.error());
    config.url = rest->server;
    config.ca_file = rest->ca_file;
    config.ca_data = rest->ca_data;
    config.cert_file = rest->cert_file;
    config.cert_data = rest->cert_data;
    config.key_file = rest->key_file;
    config.key_data = rest->key_data;
    config.tls_server_name = rest->tls_server_name;
    config.insecure_skip_tls_verify = rest->insecure_skip_tls_verify;
    token = rest->token;
  }
  auto url = kw::net::client::parse_url(config.url);
  if (!url) return std::unexpected(url.error());
  if (url->host != "127.0.0.1" && url->host != "localhost" && url->host != "::1")
    return kw::fail("cluster_load only talks to this machine (127.0.0.1), not " + url->host);
  config.ping_interval = std::chrono::seconds(0);
  return kw::bench::H2Endpoint::create(std::move(config), std::move(token));
}

void raise_fd_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int main(int argc, char** argv) {
  auto flags = parse_flags(argc, argv);
  if (!flags) {
    std::fprintf(stderr, "cluster_load: %s\n", flags.error().message.c_str());
    return 2;
  }
  raise_fd_limit();
  auto endpoint = make_endpoint(*flags);
  if (!endpoint) {
    std::fprintf(stderr, "cluster_load: %s\n", endpoint.error().message.c_str());
    return 2;
  }
  flags->options.server_pid = flags->pid;
  boost::asio::io_context io(1);
  auto report = [&] {
    kw::bench::cluster::Cluster cluster(io, *endpoint, flags->options);
    return cluster.run();
  }();
  if (!report) {
    std::fprintf(stderr, "cluster_load: %s\n", report.error().message.c_str());
    return 1;
  }
  nlohmann::json& out = *report;
  out["generator_total_cpu_s"] = kw::bench::cluster::read_process_usage(::getpid()).cpu_s;
  std::cerr << kw::bench::cluster::format_table(out);
  std::cout << out.dump(2) << std::endl;
  return 0;
}
