#pragma once
// The simulated cluster: N kubelets (one HTTP/2 connection each: Node and Lease heartbeats,
// a watch on their pods and one on their Node, pods started on sight), C controllers (one
// connection each: paged LISTs, then watches on pods, nodes and leases; the first one
// schedules pods by binding them, the others create and delete pods at the churn rate), all
// on one io_context thread. run() returns the report once the measured window is over.
#include <boost/asio/io_context.hpp>

#include <sys/types.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/h2_mux.hpp"
#include "core/util/error.hpp"

namespace kw::bench::cluster {

struct Options {
  int nodes = 5000;
  int pods_per_node = 30;
  double churn = 100;  // pod creations (and, at steady state, deletions) per second
  int controllers = 10;
  double duration_s = 60;
  double kubelet_delay_ms = 100;  // a kubelet's simulated container start, excluded from start-up
  double heartbeat_s = 10;        // Lease renewal period
  double status_s = 60;           // Node status period (read, then patched)
  double setup_timeout_s = 600;
  // Before measuring, create the steady state's pods (pods_per_node per node) already
  // scheduled, so the measured window runs at full size rather than growing towards it.
  bool prefill = false;
  int connect_parallel = 64;  // connections being set up at once
  std::string namespace_name = "cluster-load";
  pid_t server_pid = 0;  // when set, its CPU and peak RSS over the measured window are reported
};

class Cluster {
 public:
  Cluster(boost::asio::io_context& io, const H2Endpoint& endpoint, Options options);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Sets up, runs the measured window and stops; the report (Stats::report plus nodes, pods),
  // or an error when set-up did not finish in time.
  Result<nlohmann::json> run();

  struct State;

 private:
  std::unique_ptr<State> m_state;
};

}  // namespace kw::bench::cluster
