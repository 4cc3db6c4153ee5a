#pragma once
// API priority and fairness (kube-apiserver's WithPriorityAndFairness filter and its config
// controller): every request is classified by the FlowSchemas to a priority level and a flow;
// exempt levels run it at once, limited levels hold it to their share of the server's
// concurrency limit, queue it fairly (fair_queuing.hpp) or refuse it. The FlowSchemas and
// PriorityLevelConfigurations are followed live through their watch caches, and each FlowSchema's
// Dangling condition says whether its priority level exists, as kube's controller keeps it.
//
//   auto apf = FlowControl::start(registry, {.server_concurrency_limit = 600});
//   (*apf)->admit(digest, stream, std::move(start), refuse);   // on a network thread
//
// admit() never blocks: a request that must wait is parked and started later, from the thread
// whose request gave back its seat, or refused by the wait-limit timer thread.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/net/server/http_server.hpp"
#include "core/util/error.hpp"
#include "server/flowcontrol/config.hpp"

namespace kw::registry {
class Informer;
class Registry;
}  // namespace kw::registry

namespace kw::flowcontrol {

struct FlowControlOptions {
  // kube's server concurrency limit: --max-requests-inflight + --max-mutating-requests-inflight.
  int server_concurrency_limit = 600;
  // How long a request may wait in a queue before it is refused (kube: the request timeout / 4).
  std::chrono::milliseconds request_wait_limit{15000};
};

// Answers a refused request: 429 with Retry-After. Called on a network thread or on the timer
// thread, once; must not block.
using Refuse = std::function<void(net::ResponseStream&)>;

class FlowControl {
 public:
  // Follows the FlowSchemas and PriorityLevelConfigurations of the registry.
  static Result<std::unique_ptr<FlowControl>> start(registry::Registry& registry, FlowControlOptions options);
  // Without a registry: the configuration comes from apply() alone.
  explicit FlowControl(FlowControlOptions options);
  ~FlowControl();
  FlowControl(const FlowControl&) = delete;
  FlowControl& operator=(const FlowControl&) = delete;

  // A new configuration: the stored FlowSchema and PriorityLevelConfiguration objects. The
  // mandatory ones are supplied when missing; schemas naming a missing level are left out.
  void apply(const std::vector<nlohmann::json>& flow_schemas, const std::vector<nlohmann::json>& priority_levels);

  // Classifies the request and starts it (now or once a seat frees, with the seat it takes) or
  // refuses it. The response carries X-Kubernetes-PF-FlowSchema-UID and
  // X-Kubernetes-PF-PriorityLevel-UID, as kube's does.
  void admit(const RequestDigest& digest, std::shared_ptr<net::ResponseStream> stream, net::StartRequest start,
             Refuse refuse);

  // apiserver_flowcontrol_* in the Prometheus text format.
  void write_metrics(std::ostream& out) const;

  struct LevelStats {
    int concurrency_limit = 0;
    int executing = 0;
    int waiting = 0;
  };
  // The state of one limited level (nullopt: no such limited level).
  std::optional<LevelStats> level_stats(const std::string& level) const;

  struct State;

 private:
  class StatusWriter;  // FlowSchemas' status.conditions (Dangling), written off the cache's thread

  std::shared_ptr<State> m_state;  // shared with the seats handed out and the timer
  std::unique_ptr<StatusWriter> m_status;
  std::thread m_timer;             // refuses requests that waited past the wait limit
  std::vector<std::unique_ptr<registry::Informer>> m_informers;
};

}  // namespace kw::flowcontrol
