#include "server/aggregator/aggregator.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "core/codec/json_limits.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "core/net/client/client.hpp"
#include "core/net/client/pool.hpp"
#include "core/util/base64.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/service_resolver.hpp"

namespace kw::aggregator {
namespace {

constexpr std::string_view k_group = "apiregistration.k8s.io";
constexpr std::size_t k_max_discovery_bytes = 16u << 20;

// One APIService served elsewhere, as its stored object says.
struct Remote {
  std::string name;  // VERSION.GROUP
  std::string group;
  std::string version;
  int group_priority = 0;
  int version_priority = 0;
  std::string service_namespace;
  std::string service_name;
  int port = 443;
  std::string ca_bundle;  // PEM
  bool insecure = false;
  bool available = false;           // its Available condition is True
  nlohmann::json condition;         // that condition as stored (null: none)
  nlohmann::json resources;         // the APIResourceList its server last answered
};

bool same_server(const Remote& a, const Remote& b) {
  return a.group == b.group && a.version == b.version && a.service_namespace == b.service_namespace &&
         a.service_name == b.service_name && a.port == b.port && a.ca_bundle == b.ca_bundle && a.insecure == b.insecure;
}

std::optional<Remote> read_remote(const nlohmann::json& object) {
  const auto spec = object.value("spec", nlohmann::json::object());
  const auto service = spec.value("service", nlohmann::json());
  if (!service.is_object()) return std::nullopt;  // served by kw itself
  Remote remote;
  remote.name = object.value("metadata", nlohmann::json::object()).value("name", std::string());
  remote.group = spec.value("group", std::string());
  remote.version = spec.value("version", std::string());
  remote.group_priority = spec.value("groupPriorityMinimum", 0);
  remote.version_priority = spec.value("versionPriority", 0);
  remote.service_namespace = service.value("namespace", std::string());
  remote.service_name = service.value("name", std::string());
  remote.port = service.value("port", 443);
  if (auto bundle = util::base64_decode(spec.value("caBundle", std::string()))) remote.ca_bundle = std::move(*bundle);
  remote.insecure = spec.value("insecureSkipTLSVerify", false);
  for (const auto& condition : object.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
    if (condition.is_object() && condition.value("type", "") == "Available") {
      remote.condition = condition;
      remote.available = condition.value("status", "") == "True";
    }
  return remote;
}

net::client::ClientConfig client_config(const Remote& remote, const registry::ServiceEndpoint& endpoint,
                                        const AggregatorOptions& options) {
  net::client::ClientConfig config;
  config.url = registry::https_url(endpoint);
  config.tls_server_name = remote.service_name + "." + remote.service_namespace + ".svc";
  config.ca_data = remote.ca_bundle;
  config.insecure_skip_tls_verify = remote.insecure;
  config.cert_file = options.client_cert_file;
  config.key_file = options.client_key_file;
  config.kubeconfig_advice = false;
  return config;
}

void send_text(net::ResponseStream& stream, int code, const std::string& text) {
  std::string body = text + "\n";
  stream.begin({code,
                {{"content-type", "text/plain; charset=utf-8"},
                 {"x-content-type-options", "nosniff"},
                 {"content-length", std::to_string(body.size())}},
                false});
  stream.write(std::move(body));
  stream.finish();
}

// Headers that belong to one hop (RFC 9110 section 7.6.1), or that the proxy sets itself.
bool hop_header(std::string_view name) {
  static constexpr std::string_view k_hop[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                               "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade",
                                               "content-length", "host", "audit-id"};
  return name.starts_with(':') || std::ranges::find(k_hop, name) != std::end(k_hop);
}

// Go's url.PathEscape: how kube-apiserver writes an extra key into X-Remote-Extra-KEY.
std::string path_escape(std::string_view text) {
  static constexpr std::string_view k_kept = "-._~$&+=:@!'()*";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || k_kept.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      static constexpr char k_hex[] = "0123456789ABCDEF";
      out += '%';
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
  }
  return out;
}

// How much of a proxied response (and of each direction of a relayed upgrade) may wait in kw.
// Past it kw stops reading from the side that sends, and reads again once what waits is down to
// half: a slow reader holds its peer back as it would over one TCP connection, and kw's memory
// per proxied request stays bounded.
constexpr std::size_t k_tunnel_window = 1u << 20;

// Reaches the running request of a Client until release(): cancels it, paces the server's bytes
// to the client, or sends bytes into its tunnel and pauses or resumes its reading. Thread-safe.
class RequestHandle {
 public:
  explicit RequestHandle(net::client::Client* client) : m_client(client) {}
  void cancel() {
    {
      std::lock_guard lock(m_mutex);
      if (m_client != nullptr) m_client->cancel();
    }
    m_drained.notify_all();  // a paced response waits no more
  }
  // The client's bytes, for the server. False when the server has a window's worth waiting:
  // the caller stops reading from the client, and sent() resumes it.
  bool send(std::string_view bytes) {
    std::lock_guard lock(m_mutex);
    if (m_client == nullptr) return true;  // the tunnel is over: read on, and drop
    m_client->send(std::string(bytes));
    if (m_client->send_backlog() <= k_tunnel_window) return true;
    m_client_paused = true;
    // The writes may have drained meanwhile, before sent() could see the pause.
    return m_client->send_backlog() <= k_tunnel_window / 2 && m_client_paused.exchange(false);
  }
  // Bytes reached the server; `backlog` still wait for it.
  void sent(std::size_t backlog, net::ResponseStream& client) {
    if (backlog <= k_tunnel_window / 2 && m_client_paused.exchange(false)) client.resume_receive();
  }
  // The server's bytes were queued for the client. Past the window the server waits until the
  // client took half of them: a tunnel stops reading from it, as its other direction must go on;
  // any other response holds the calling thread (the Client's, whose connection carries only this
  // request), unless the client is gone.
  void queued_for_client(const net::ResponseStream& client, bool tunnel) {
    if (client.queued_bytes() <= k_tunnel_window) return;
    auto drained = [&] { return client.queued_bytes() <= k_tunnel_window / 2 || client.closed(); };
    std::unique_lock lock(m_mutex);
    if (m_client == nullptr) return;
    if (tunnel) {
      m_server_paused = true;
      m_client->pause_receiving();
      if (client.queued_bytes() <= k_tunnel_window / 2 && m_server_paused.exchange(false)) m_client->resume_receiving();
      return;
    }
    m_waiting = true;
    // (the wake-up comes from client_took or cancel; the period only bounds a missed one)
    while (!drained() && !m_client->cancelled()) m_drained.wait_for(lock, std::chrono::seconds(1));
    m_waiting = false;
  }
  // The client took bytes of the server's; `queued` still wait for it.
  void client_took(std::size_t queued) {
    if (queued > k_tunnel_window / 2) return;
    if (m_waiting) {
      { std::lock_guard lock(m_mutex); }
      m_drained.notify_all();
    }
    if (!m_server_paused.exchange(false)) return;
    std::lock_guard lock(m_mutex);
    if (m_client != nullptr) m_client->resume_receiving();
  }
  void release() {
    std::lock_guard lock(m_mutex);
    m_client = nullptr;
  }

 private:
  std::mutex m_mutex;
  net::client::Client* m_client;
  std::atomic<bool> m_client_paused{false};  // the client's reading stopped: the server is behind
  std::atomic<bool> m_server_paused{false};  // the server's reading stopped: the client is behind
  std::atomic<bool> m_waiting{false};        // a response waits in queued_for_client
  std::condition_variable m_drained;
};

// The Available condition an APIService gets from one check, and the resources its server listed.
struct Checked {
  std::string status, reason, message;
  nlohmann::json resources;
};

}  // namespace

struct Aggregator::State {
  State(registry::Registry& r, AggregatorOptions o, api::ResourceInfo i)
      : registry(r), options(std::move(o)), info(std::move(i)) {}

  registry::Registry& registry;
  const AggregatorOptions options;
  const api::ResourceInfo info;  // apiservices
  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool changed = false;
  std::map<std::string, Remote> remotes;  // by APIService name
  // Connections to the APIServices' servers, kept between requests and checks.
  mutable net::client::ClientPool clients;

  void upsert(const nlohmann::json& object) {  // under mutex
    const std::string name = object.value("metadata", nlohmann::json::object()).value("name", std::string());
    auto remote = read_remote(object);
    if (!remote) {
      remotes.erase(name);
      return;
    }
    auto it = remotes.find(name);
    // kw's own status writes come back here too: only a new APIService, or a new place to reach
    // its server, calls for a check before the next period.
    if (it == remotes.end() || !same_server(it->second, *remote)) changed = true;
    if (it != remotes.end()) remote->resources = std::move(it->second.resources);
    remotes[name] = std::move(*remote);
  }

  // The APIService that serves GROUP/VERSION; nullptr when none does. Under `mutex`.
  const Remote* serving(std::string_view group, std::string_view version) const {
    for (const auto& [name, remote] : remotes)
      if (remote.group == group && remote.version == version) return &remote;
    return nullptr;
  }

  Checked check(const Remote& remote) const {
    const std::string service = "service/" + remote.service_name + " in \"" + remote.service_namespace + "\"";
    auto endpoint = registry::resolve_service(registry, remote.service_namespace, remote.service_name, remote.port);
    if (!endpoint) {
      using registry::Unreachable;
      switch (endpoint.error().why) {
        case Unreachable::no_service: return {"False", "ServiceNotFound", service + " is not present", nullptr};
        case Unreachable::no_port:
          return {"False", "ServicePortError", service + " is not listening on port " + std::to_string(remote.port),
                  nullptr};
        case Unreachable::no_endpoints:
          return {"False", "EndpointsNotFound", "cannot find endpoints for " + service, nullptr};
        case Unreachable::no_ready_endpoints:
          return {"False", "MissingEndpoints",
                  "endpoints for " + service + " have no addresses with port name \"" + endpoint.error().port_name + "\"",
                  nullptr};
        default:
          return {"False", "ServiceAccessError", service + " cannot be checked due to: " + endpoint.error().message,
                  nullptr};
      }
    }
    auto config = client_config(remote, *endpoint, options);
    config.connect_timeout = std::chrono::seconds(5);
    config.request_timeout = std::chrono::seconds(5);
    config.user_agent = "kube-aggregator";
    const std::string path = "/apis/" + remote.group + "/" + remote.version;
    const std::string url = config.url + path;
    auto failing = [&](const std::string& why) {
      return Checked{"False", "FailedDiscoveryCheck", "failing or missing response from " + url + ": " + why, nullptr};
    };
    auto client = clients.acquire(config);
    if (!client) return failing(client.error().message);
    auto answer = (*client)->request({.method = "GET",
                                      .target = path,
                                      .headers = {{"Accept", "application/json"},
                                                  {"X-Remote-User", "system:kube-aggregator"},
                                                  {"X-Remote-Group", "system:masters"}}},
                                     k_max_discovery_bytes);
    if (!answer) return failing("Get \"" + url + "\": " + answer.error().message);
    if (answer->head.status < 200 || answer->head.status >= 300)
      return failing("bad status from " + url + ": " + std::to_string(answer->head.status));
    auto parsed = codec::parse_json(answer->body);
    return {"True", "Passed", "all checks passed", parsed && parsed->is_object() ? *parsed : nlohmann::json()};
  }

  // Writes the Available condition when it changed (lastTransitionTime moves with its status).
  void record(const Remote& remote, const Checked& checked) const {
    if (remote.condition.is_object() && remote.condition.value("status", "") == checked.status &&
        remote.condition.value("reason", "") == checked.reason &&
        remote.condition.value("message", "") == checked.message)
      return;
    registry::WriteOptions write;
    write.subresource = "status";
    write.field_manager = "kube-apiserver";
    (void)registry.update_with(
        info, "", remote.name,
        [&](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
          nlohmann::json out = now;
          auto& conditions = out["status"]["conditions"];
          if (!conditions.is_array()) conditions = nlohmann::json::array();
          auto it = std::ranges::find_if(conditions, [](const nlohmann::json& c) { return c.value("type", "") == "Available"; });
          nlohmann::json condition = {{"type", "Available"}, {"status", checked.status}, {"reason", checked.reason},
                                      {"message", checked.message}};
          const bool same_status = it != conditions.end() && it->value("status", "") == checked.status;
          condition["lastTransitionTime"] = same_status && it->contains("lastTransitionTime")
                                                ? (*it)["lastTransitionTime"]
                                                : nlohmann::json(rfc3339_now());
          if (it != conditions.end()) *it = std::move(condition);
          else conditions.push_back(std::move(condition));
          return out;
        },
        write);
  }

  static std::string rfc3339_now() {
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    return codec::scalars::format_rfc3339({now.time_since_epoch().count(), 0}, 0);
  }

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait_for(lock, options.check_period, [this] { return stopping || changed; });
      if (stopping) return;
      changed = false;
      std::vector<Remote> due;
      for (const auto& [name, remote] : remotes) due.push_back(remote);
      lock.unlock();
      for (const auto& remote : due) {
        Checked checked = check(remote);
        record(remote, checked);
        std::lock_guard relock(mutex);
        if (auto it = remotes.find(remote.name); it != remotes.end() && !checked.resources.is_null())
          it->second.resources = std::move(checked.resources);
      }
      lock.lock();
    }
  }
};

Result<std::unique_ptr<Aggregator>> Aggregator::start(registry::Registry& registry, AggregatorOptions options) {
  const auto table = registry.resources();
  const auto* info = table->find_plural(std::string(k_group), "v1", "apiservices");
  if (info == nullptr) return fail("apiregistration.k8s.io/v1 apiservices is not served");
  auto state = std::make_shared<State>(registry, std::move(options), *info);
  std::unique_ptr<Aggregator> aggregator(new Aggregator(state));
  registry::InformerHandlers handlers;
  handlers.replace = [state](const std::vector<cache::ObjectPtr>& all) {
    std::lock_guard lock(state->mutex);
    state->remotes.clear();
    for (const auto& object : all) state->upsert(object->object());
    state->changed = true;
    state->wake.notify_all();
  };
  handlers.change = [state](cache::EventType type, const cache::ObjectPtr& object) {
    std::lock_guard lock(state->mutex);
    if (type == cache::EventType::deleted) state->remotes.erase(object->name);
    else state->upsert(object->object());
    state->wake.notify_all();
  };
  auto informer = registry::Informer::start(registry, *info, std::move(handlers));
  if (!informer) return fail("cannot follow apiservices: " + informer.error().message);
  aggregator->m_informer = std::move(*informer);
  aggregator->m_checker = std::thread([state] { state->run(); });
  return aggregator;
}

Aggregator::~Aggregator() {
  m_informer.reset();
  {
    std::lock_guard lock(m_state->mutex);
    m_state->stopping = true;
  }
  m_state->wake.notify_all();
  if (m_checker.joinable()) m_checker.join();
}

bool Aggregator::serves(std::string_view group, std::string_view version) const {
  std::lock_guard lock(m_state->mutex);
  return m_state->serving(group, version) != nullptr;
}

std::vector<RemoteGroup> Aggregator::groups() const {
  std::vector<Remote> all;
  {
    std::lock_guard lock(m_state->mutex);
    for (const auto& [name, remote] : m_state->remotes) all.push_back(remote);
  }
  // kube's order: groups by their highest groupPriorityMinimum, then name; versions by
  // versionPriority, then name.
  std::ranges::sort(all, [](const Remote& a, const Remote& b) {
    if (a.version_priority != b.version_priority) return a.version_priority > b.version_priority;
    return a.version < b.version;
  });
  std::map<std::string, std::pair<int, RemoteGroup>> by_name;
  for (const auto& remote : all) {
    auto& [priority, group] = by_name[remote.group];
    group.name = remote.group;
    priority = std::max(priority, remote.group_priority);
    group.versions.emplace_back(remote.version, remote.resources);
  }
  std::vector<std::pair<int, RemoteGroup>> ordered;
  for (auto& [name, entry] : by_name) ordered.push_back(std::move(entry));
  std::ranges::stable_sort(ordered, [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<RemoteGroup> out;
  for (auto& [priority, group] : ordered) out.push_back(std::move(group));
  return out;
}

void Aggregator::proxy(const net::Request& request, std::string_view group, std::string_view version,
                       const auth::UserInfo& user, net::ResponseStream& stream) const {
  std::optional<Remote> remote;
  {
    std::lock_guard lock(m_state->mutex);
    if (const Remote* serving = m_state->serving(group, version)) remote = *serving;
  }
  if (!remote) return send_text(stream, 404, "404 page not found");
  if (!remote->available) return send_text(stream, 503, "service unavailable");
  auto endpoint = registry::resolve_service(m_state->registry, remote->service_namespace, remote->service_name, remote->port);
  if (!endpoint) return send_text(stream, 503, "service unavailable");
  auto config = client_config(*remote, *endpoint, m_state->options);
  // A watch runs until either side ends it, and so does an upgrade (a WebSocket relayed as bytes
  // once the server switched protocols); anything else gets kube-apiserver's 60 s.
  const bool upgrade = request.protocol == net::Protocol::websocket;
  const bool watch = request.path.find("/watch/") != std::string::npos ||
                     request.query.find("watch=true") != std::string::npos ||
                     request.query.find("watch=1") != std::string::npos;
  config.request_timeout = std::chrono::seconds(60);
  auto lease = m_state->clients.acquire(config);
  if (!lease) return send_text(stream, 500, lease.error().message);
  // The stream's close callback can come from a transport thread at any time, even once the
  // Client is back in the pool: it cancels through this handle, which lets go of it first.
  const auto cancel = std::make_shared<RequestHandle>(&**lease);
  net::client::Request forwarded{.method = request.method,
                                 .target = request.path + (request.query.empty() ? "" : "?" + request.query),
                                 .body = request.body,
                                 .streaming = watch,
                                 .upgrade = upgrade};
  for (const auto& [name, value] : request.headers) {
    if (hop_header(name) || name == "authorization" || name.starts_with("impersonate-") || name.starts_with("x-remote-"))
      continue;
    forwarded.headers.emplace_back(name, value);
  }
  if (upgrade) {
    forwarded.headers.emplace_back("Connection", "Upgrade");
    forwarded.headers.emplace_back("Upgrade", request.header("upgrade") ? *request.header("upgrade") : "websocket");
    stream.on_receive([cancel](std::string_view bytes) { return cancel->send(bytes); });
  }
  stream.on_sent([cancel](std::size_t queued) { cancel->client_took(queued); });
  forwarded.headers.emplace_back("X-Remote-User", user.name);
  for (const auto& group : user.groups) forwarded.headers.emplace_back("X-Remote-Group", group);
  for (const auto& [key, values] : user.extra)
    for (const auto& value : values) forwarded.headers.emplace_back("X-Remote-Extra-" + path_escape(key), value);
  bool began = false;
  net::client::StreamHandler handler;
  handler.on_head = [&](const net::client::ResponseHead& head) {
    net::ResponseHead out{head.status, {}, false};
    // A switch of protocols keeps its Connection and Upgrade fields: the client needs them.
    const bool switched = upgrade && head.status == 101;
    for (const auto& [name, value] : head.headers)
      if (switched ? !name.starts_with(':') : !hop_header(name)) out.headers.push_back({name, value});
    stream.begin(std::move(out));
    began = true;
    stream.on_close([cancel] { cancel->cancel(); });
    return true;
  };
  handler.on_data = [&](std::string_view bytes) {
    if (!stream.write(std::string(bytes))) return false;
    stream.flush();
    cancel->queued_for_client(stream, upgrade);
    return true;
  };
  handler.on_sent = [&](std::size_t backlog) { cancel->sent(backlog, stream); };
  auto result = (*lease)->stream(forwarded, handler);
  cancel->release();
  if (!began) {
    const std::string why = result ? std::string("the server sent no answer") : result.error().message;
    return send_text(stream, 503, "Error trying to reach service: '" + why + "'");
  }
  stream.finish();
}

}  // namespace kw::aggregator
