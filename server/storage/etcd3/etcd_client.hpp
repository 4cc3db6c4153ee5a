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

  // Runs fn(endpoint, context) until it succeeds, moving to the next endpoint on
  // UNAVAILABLE, all within one request_timeout deadline.
  template <class Fn>
  Result<void> call(const std::string& what, const std::string& key, Fn&& fn) {
    const auto deadline = std::chrono::system_clock::now() + m_options.request_timeout;
    grpc::Status status;
    for (std::size_t attempt = 0;; ++attempt) {
      const std::size_t index = (m_preferred.load() + attempt) % m_endpoints.size();
      grpc::ClientContext context;
      context.set_deadline(deadline);
      status = fn(*m_endpoints[index], context);
      if (status.ok()) {
        m_preferred.store(index);
        return {};
      }
      if (!retryable(status) || std::chrono::system_clock::now() + k_retry_pause >= deadline) break;
      if ((attempt + 1) % m_endpoints.size() == 0) std::this_thread::sleep_for(k_retry_pause);
    }
    return std::unexpected(error_from_status(status, what, key));
  }

  std::size_t endpoint_count() const { return m_endpoints.size(); }
  Endpoint& endpoint(std::size_t index) { return *m_endpoints[index % m_endpoints.size()]; }
  std::size_t preferred() const { return m_preferred.load(); }
  const Etcd3Options& options() const { return m_options; }

 private:
  static constexpr std::chrono::milliseconds k_retry_pause{50};
  static bool retryable(const grpc::Status& status);

  Etcd3Options m_options;
  std::vector<std::unique_ptr<Endpoint>> m_endpoints;
  std::atomic<std::size_t> m_preferred{0};    // the endpoint that answered last
  std::unique_ptr<ChannelWatcher> m_watcher;  // last: stops before the channels go
};

}  // namespace kw::storage::etcd3
