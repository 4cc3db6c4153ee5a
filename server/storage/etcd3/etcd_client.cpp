#include "server/storage/etcd3/etcd_client.hpp"

#include <fstream>
#include <sstream>

namespace kw::storage::etcd3 {
namespace {

constexpr std::chrono::milliseconds k_connect_timeout{2000};

Result<std::string> read_pem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::unexpected(Error{ErrorCode::invalid, "", 0, std::string("cannot read the etcd ") + what + " " + path});
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<std::shared_ptr<grpc::ChannelCredentials>> credentials(const Etcd3Options& options, bool tls) {
  if (!tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!options.ca_file.empty()) {
    auto ca = read_pem(options.ca_file, "CA file");
    if (!ca) return std::unexpected(ca.error());
    ssl.pem_root_certs = *ca;
  }
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    auto cert = read_pem(options.cert_file, "client certificate");
    if (!cert) return std::unexpected(cert.error());
    auto key = read_pem(options.key_file, "client key");
    if (!key) return std::unexpected(key.error());
    ssl.pem_cert_chain = *cert;
    ssl.pem_private_key = *key;
  }
  return grpc::SslCredentials(ssl);
}

grpc::ChannelArguments channel_arguments() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // Each channel keeps its own subchannels: backoff state is not shared between clients.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC core takes this as the shortest time one connection attempt may last (TCP connect
  // up to the server's SETTINGS frame), not as a backoff: at 100 ms a restarting or busy
  // etcd never finished a handshake in time.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(k_connect_timeout.count()));
  // Pings only while calls are open (etcd refuses pings without streams), and not more
  // often than etcd's --grpc-keepalive-min-time (5 s by default) allows.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  // A quiet watch stream sends no data; keep pinging it so a vanished etcd is noticed.
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  return args;
}

}  // namespace

Error error_from_status(const grpc::Status& status, const std::string& what, const std::string& key) {
  const std::string& detail = status.error_message();
  auto has = [&](const char* text) { return detail.find(text) != std::string::npos; };
  const std::string prefix = "etcd " + what + ": ";
  if (has("required revision has been compacted")) {
    return Error{ErrorCode::compacted, key, 0, prefix + detail + "; read or watch from a newer revision"};
  }
  if (has("future revision")) return Error{ErrorCode::invalid, key, 0, prefix + detail};
  if (has("request is too large") || status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
    return Error{ErrorCode::too_large, key, 0, prefix + detail + "; store a smaller object"};
  }
  switch (status.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Error{
          ErrorCode::timeout, key, 0,
          prefix + "no answer before the deadline (" + detail + "); check that a quorum of etcd members is up"};
    case grpc::StatusCode::UNAVAILABLE:
      return Error{ErrorCode::unavailable, key, 0,
                   prefix + "etcd is unreachable (" + detail + "); check that etcd is running and reachable"};
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      return Error{ErrorCode::invalid, key, 0, prefix + detail};
    default:
      return Error{ErrorCode::unavailable, key, 0, prefix + detail};
  }
}

bool Client::is_ready(Endpoint& endpoint) { return endpoint.channel->GetState(false) == GRPC_CHANNEL_READY; }

std::vector<std::size_t> Client::attempt_order() const {
  const std::size_t count = m_endpoints.size();
  const std::size_t start = m_preferred.load();
  std::vector<std::size_t> order;
  order.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (is_ready(*m_endpoints[(start + i) % count])) order.push_back((start + i) % count);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!is_ready(*m_endpoints[(start + i) % count])) order.push_back((start + i) % count);
  }
  return order;
}

std::size_t Client::pick_endpoint(std::size_t start) const {
  for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
    const std::size_t index = (start + i) % m_endpoints.size();
    if (is_ready(*m_endpoints[index])) return index;
  }
  return start % m_endpoints.size();
}

std::chrono::system_clock::time_point Client::attempt_deadline(std::chrono::system_clock::time_point deadline,
                                                               bool ready, std::size_t untried) {
  if (ready || untried <= 1) return deadline;
  const auto now = std::chrono::system_clock::now();
  const auto share = std::max<std::chrono::system_clock::duration>((deadline - now) / untried, k_min_attempt);
  return std::min(deadline, now + share);
}

bool Client::try_next(const grpc::Status& status, Endpoint& endpoint, bool was_ready) {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) return true;
  if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) return false;
  if (!was_ready && !is_ready(endpoint)) return true;  // never connected, so never sent
  // Connected but silent: this call's outcome is unknown, the next one starts elsewhere.
  for (std::size_t index = 0; index < m_endpoints.size(); ++index) {
    if (m_endpoints[index].get() != &endpoint) continue;
    std::size_t expected = index;
    m_preferred.compare_exchange_strong(expected, (index + 1) % m_endpoints.size());
  }
  return false;
}

Result<std::shared_ptr<Client>> Client::connect(const Etcd3Options& options) {
  if (options.endpoints.empty()) {
    return std::unexpected(Error{ErrorCode::invalid, "", 0, "no etcd endpoint given; pass at least one"});
  }
  auto client = std::make_shared<Client>();
  client->m_options = options;
  for (const std::string& url : options.endpoints) {
    std::string address = url;
    bool tls = !options.ca_file.empty();
    if (address.starts_with("https://")) {
      tls = true;
      address.erase(0, 8);
    } else if (address.starts_with("http://")) {
      address.erase(0, 7);
    }
    while (!address.empty() && address.back() == '/') address.pop_back();
    if (address.empty()) return std::unexpected(Error{ErrorCode::invalid, "", 0, "empty etcd endpoint in " + url});
    auto creds = credentials(options, tls);
    if (!creds) return std::unexpected(creds.error());
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->address = address;
    endpoint->channel = grpc::CreateCustomChannel(address, *creds, channel_arguments());
    endpoint->kv = etcdserverpb::KV::NewStub(endpoint->channel);
    endpoint->watch = etcdserverpb::Watch::NewStub(endpoint->channel);
    endpoint->lease = etcdserverpb::Lease::NewStub(endpoint->channel);
    endpoint->maintenance = etcdserverpb::Maintenance::NewStub(endpoint->channel);
    client->m_endpoints.push_back(std::move(endpoint));
  }
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (const auto& endpoint : client->m_endpoints) channels.push_back(endpoint->channel);
  client->m_watcher = std::make_unique<ChannelWatcher>(std::move(channels));
  return client;
}

}  // namespace kw::storage::etcd3
