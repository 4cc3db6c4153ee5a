#include "core/net/client/pool.hpp"

#include <algorithm>

namespace kw::net::client {

std::string config_key(const ClientConfig& config) {
  // Fields joined with a separator no field can hold unescaped (PEM and URLs have no NUL).
  std::string key;
  auto add = [&key](std::string_view field) {
    key += field;
    key += '\0';
  };
  add(config.url);
  add(config.ca_file);
  add(config.ca_data);
  add(config.cert_file);
  add(config.cert_data);
  add(config.key_file);
  add(config.key_data);
  add(config.tls_server_name);
  add(config.proxy_url);
  add(config.insecure_skip_tls_verify ? "insecure" : "verify");
  add(transport_name(config.transport));
  add(std::to_string(config.connect_timeout.count()));
  add(std::to_string(config.request_timeout.count()));
  add(std::to_string(config.keepalive.count()));
  add(std::to_string(config.ping_interval.count()));
  add(config.user_agent);
  add(config.kubeconfig_advice ? "advice" : "");
  return key;
}

void ClientPool::Shared::expire(std::chrono::steady_clock::time_point now, std::vector<std::unique_ptr<Client>>& out) {
  for (auto it = idle.begin(); it != idle.end();) {
    auto& waiting = it->second;
    while (!waiting.empty() && now - waiting.front().since >= limits.idle_lifetime) {
      out.push_back(std::move(waiting.front().client));
      waiting.erase(waiting.begin());
    }
    it = waiting.empty() ? idle.erase(it) : std::next(it);
  }
}

void ClientPool::Shared::give_back(const std::string& key, std::unique_ptr<Client> client) {
  std::vector<std::unique_ptr<Client>> dropped;  // closed after the lock is released
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex);
  expire(now, dropped);
  auto& waiting = idle[key];
  if (waiting.size() >= limits.max_idle_per_peer) {
    dropped.push_back(std::move(waiting.front().client));
    waiting.erase(waiting.begin());
  }
  waiting.push_back({std::move(client), now});
}

ClientPool::Lease::~Lease() {
  if (!m_client || m_client->cancelled()) return;
  if (auto pool = m_pool.lock()) pool->give_back(m_key, std::move(m_client));
}

Result<ClientPool::Lease> ClientPool::acquire(const ClientConfig& config) {
  std::string key = config_key(config);
  std::vector<std::unique_ptr<Client>> dropped;  // closed after the lock is released
  {
    std::lock_guard lock(m_shared->mutex);
    m_shared->expire(std::chrono::steady_clock::now(), dropped);
    if (auto it = m_shared->idle.find(key); it != m_shared->idle.end() && !it->second.empty()) {
      // The most recently used first: its connection is the likeliest to be open still.
      std::unique_ptr<Client> client = std::move(it->second.back().client);
      it->second.pop_back();
      if (it->second.empty()) m_shared->idle.erase(it);
      return Lease(m_shared, std::move(key), std::move(client));
    }
  }
  auto created = Client::create(config);
  if (!created) return std::unexpected(created.error());
  return Lease(m_shared, std::move(key), std::move(*created));
}

std::size_t ClientPool::idle() const {
  std::lock_guard lock(m_shared->mutex);
  std::size_t count = 0;
  for (const auto& [key, waiting] : m_shared->idle) count += waiting.size();
  return count;
}

}  // namespace kw::net::client
