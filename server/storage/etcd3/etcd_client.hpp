#pragma once
// gRPC channels to the etcd endpoints, with failover and a deadline on every call
// (private to this folder).
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rpc.grpc.pb.h"
#include "server/storage/etcd3/channel_watcher.hpp"
#include "server/storage/etcd3/etcd3_backend.hpp"

namespace kw::storage::etcd3 {

struct Endpoint {
  std::string address;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<etcdserverpb::KV::Stub> kv;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
};

// Maps a failed gRPC status to a storage Error; `what` names the operation.
Error error_from_status(const grpc::Status& status, const std::string& what, const std::string& key = "");

class Client {
 public:
  static Result<std::shared_ptr<Client>> connect(const Etcd3Options& options);

  // Runs fn(endpoint, context) until it succeeds, all within one request_timeout deadline.
  // Endpoints with a ready connection are tried first, starting at the one that answered
  // last. A call moves on to the next endpoint when it was surely not sent: UNAVAILABLE, or
  // its share of the deadline ran out while the endpoint was still connecting (a silent
  // host). A call that timed out on a connected endpoint is not repeated elsewhere (it may
  // have been applied), but the next call starts at another endpoint.
  template <class Fn>
  Result<void> call(const std::string& what, const std::string& key, Fn&& fn) {
    const auto deadline = std::chrono::system_clock::now() + m_options.request_timeout;
    const std::vector<std::size_t> order = attempt_order();
    grpc::Status status;
    for (std::size_t attempt = 0;; ++attempt) {
      const std::size_t index = order[attempt % order.size()];
      Endpoint& endpoint = *m_endpoints[index];
      const bool ready = is_ready(endpoint);
      const std::size_t untried = order.size() - attempt % order.size();
      grpc::ClientContext context;
      context.set_deadline(attempt_deadline(deadline, ready, untried));
      status = fn(endpoint, context);
      if (status.ok()) {
        // Written only when it changes: every writer thread passes here once per call.
        if (m_preferred.load(std::memory_order_relaxed) != index) m_preferred.store(index);
        return {};
      }
      if (!try_next(status, endpoint, ready) || std::chrono::system_clock::now() + k_retry_pause >= deadline) break;
      if ((attempt + 1) % order.size() == 0) std::this_thread::sleep_for(k_retry_pause);
    }
    return std::unexpected(error_from_status(status, what, key));
  }

  // The endpoint a new stream should use: the first one with a ready connection from `start`
  // on (wrapping), or `start` itself when none is ready.
  std::size_t pick_endpoint(std::size_t start) const;

  std::size_t endpoint_count() const { return m_endpoints.size(); }
  Endpoint& endpoint(std::size_t index) { return *m_endpoints[index % m_endpoints.size()]; }
  std::size_t preferred() const { return m_preferred.load(); }
  const Etcd3Options& options() const { return m_options; }

 private:
  static constexpr std::chrono::milliseconds k_retry_pause{50};
  // The shortest share of the deadline an endpoint that is still connecting gets.
  static constexpr std::chrono::milliseconds k_min_attempt{100};

  static bool is_ready(Endpoint& endpoint);
  // Every endpoint once: the ready ones first, each group in order from the preferred one.
  std::vector<std::size_t> attempt_order() const;
  // The deadline of one attempt: all that is left on a ready endpoint, otherwise a fair share
  // of it among the `untried` endpoints left in this round.
  static std::chrono::system_clock::time_point attempt_deadline(std::chrono::system_clock::time_point deadline,
                                                                bool ready, std::size_t untried);
  // Whether a failed attempt may be repeated on the next endpoint (see call()); moves the
  // preferred endpoint on after a timeout on a connected one.
  bool try_next(const grpc::Status& status, Endpoint& endpoint, bool was_ready);

  Etcd3Options m_options;
  std::vector<std::unique_ptr<Endpoint>> m_endpoints;
  std::atomic<std::size_t> m_preferred{0};    // the endpoint that answered last
  std::unique_ptr<ChannelWatcher> m_watcher;  // last: stops before the channels go
};

}  // namespace kw::storage::etcd3
