#pragma once
// Clients kept for reuse, so that the server's own calls to the same peer (webhooks, CRD
// conversion, aggregated APIs) go over connections already open: no new TCP and TLS handshake
// per request, and the same HTTP/2 session where the peer speaks it. Each Client carries one
// request at a time, so callers in parallel lease one Client each; a Client goes back to the
// pool when its lease ends, unless it was cancelled.
//
//   net::client::ClientPool pool;
//   auto lease = pool.acquire(config);          // a kept Client made from the same config, or a new one
//   if (!lease) ... lease.error() is Client::create's
//   auto answer = (*lease)->request(request);   // *lease is the Client
//
// Thread-safe. At most `max_idle_per_peer` Clients wait per config; one idle longer than
// `idle_lifetime` is dropped at the next acquire or release.
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/net/client/client.hpp"
#include "core/util/error.hpp"

namespace kw::net::client {

class ClientPool {
 public:
  struct Limits {
    std::size_t max_idle_per_peer = 16;
    std::chrono::seconds idle_lifetime{90};
  };
  ClientPool() : ClientPool(Limits{}) {}
  explicit ClientPool(Limits limits) : m_shared(std::make_shared<Shared>(limits)) {}

 private:
  struct Idle {
    std::unique_ptr<Client> client;
    std::chrono::steady_clock::time_point since;
  };
  struct Shared {
    explicit Shared(Limits l) : limits(l) {}
    const Limits limits;
    mutable std::mutex mutex;
    std::map<std::string, std::vector<Idle>> idle;  // by config_key, most recently used last
    void give_back(const std::string& key, std::unique_ptr<Client> client);
    // Under mutex: moves the Clients idle past their lifetime to `out`.
    void expire(std::chrono::steady_clock::time_point now, std::vector<std::unique_ptr<Client>>& out);
  };

 public:
  class Lease {
   public:
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Client& operator*() const { return *m_client; }
    Client* operator->() const { return m_client.get(); }

   private:
    friend class ClientPool;
    Lease(std::weak_ptr<Shared> pool, std::string key, std::unique_ptr<Client> client)
        : m_pool(std::move(pool)), m_key(std::move(key)), m_client(std::move(client)) {}
    std::weak_ptr<Shared> m_pool;  // the Client is dropped when the pool is gone
    std::string m_key;
    std::unique_ptr<Client> m_client;
  };

  Result<Lease> acquire(const ClientConfig& config);
  // Clients waiting in the pool now (for tests and metrics).
  std::size_t idle() const;

 private:
  std::shared_ptr<Shared> m_shared;
};

// Everything in a ClientConfig that makes two Clients different peers or connections.
std::string config_key(const ClientConfig& config);

}  // namespace kw::net::client
