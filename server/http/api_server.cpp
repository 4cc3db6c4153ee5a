#include "server/http/api_server.hpp"

#include <cstdlib>
#include <optional>
#include <sstream>

#include "core/api/selector.hpp"
#include "core/util/text.hpp"
#include "core/util/uuid.hpp"
#include "server/auth/impersonation.hpp"
#include "server/auth/status.hpp"
#include "server/http/cross_site.hpp"
#include "server/http/discovery.hpp"
#include "server/http/handlers/handlers.hpp"
#include "server/http/openapi.hpp"
#include "server/http/request_info.hpp"
#include "server/http/respond.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::http {
namespace {

// The openAPIV3Schema of every custom resource version, from the stored CRDs.
CustomSchemas custom_schemas(registry::Registry& store) {
  CustomSchemas out;
  auto listed = store.list(kinds::kind_with(kinds::Lifecycle::definition).info, {});
  if (!listed) return out;
  for (const auto& item : listed->items) {
    const auto& spec = item->object().value("spec", nlohmann::json::object());
    const std::string kind = spec.value("names", nlohmann::json::object()).value("kind", "");
    for (const auto& version : spec.value("versions", nlohmann::json::array())) {
      auto schema = version.value("schema", nlohmann::json::object()).value("openAPIV3Schema", nlohmann::json());
      if (schema.is_object())
        out[spec.value("group", "") + "/" + version.value("name", "") + "/" + kind] = std::move(schema);
    }
  }
  return out;
}

// kube-apiserver's long-running requests (exempt from the in-flight limits; audited with a
// ResponseStarted stage): watches and proxies, and the streaming subresources.
bool long_running(const RequestInfo& info) {
  const std::string& sub = info.subresource;
  return info.verb == "watch" || info.verb == "proxy" ||
         (info.is_resource_request &&
          (sub == "attach" || sub == "exec" || sub == "proxy" || sub == "log" || sub == "portforward"));
}

// An IP address as Go prints it, or "" when `text` is not one (netutils' sloppy parsing).
std::string canonical_ip(std::string_view text) {
  const auto ip = kinds::parse_ip(text);
  return ip ? kinds::ip_string(*ip) : std::string();
}

// Where a request came from, as kube's SourceIPs reads it: X-Forwarded-For's addresses,
// X-Real-Ip when it is not among them, then the peer's address unless it is the last already.
std::vector<std::string> source_ips(const net::Request& request) {
  std::vector<std::string> ips;
  if (const auto* forwarded = request.header("x-forwarded-for")) {
    std::string_view rest = *forwarded;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string_view part = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
      while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
      if (auto ip = canonical_ip(part); !ip.empty()) ips.push_back(std::move(ip));
    }
  }
  if (const auto* real = request.header("x-real-ip"))
    if (auto ip = canonical_ip(*real); !ip.empty() && std::ranges::find(ips, ip) == ips.end()) ips.push_back(std::move(ip));
  std::string_view remote = request.remote_address;  // "ip:port" or "[ip6]:port"
  if (remote.starts_with('[')) {
    remote = remote.substr(1, remote.find(']') == std::string_view::npos ? 0 : remote.find(']') - 1);
  } else if (const auto colon = remote.rfind(':'); colon != std::string_view::npos) {
    remote = remote.substr(0, colon);
  }
  if (auto ip = canonical_ip(remote); !ip.empty() && (ips.empty() || ips.back() != ip)) ips.push_back(std::move(ip));
  return ips;
}

}  // namespace

// Every answer carries the request's Audit-Id (kube-apiserver sets it on every response); with
// an audit record, the answer's start and end are the record's ResponseStarted and
// ResponseComplete (a response dropped unfinished completes it too).
class AuditedStream final : public net::ResponseStream {
 public:
  AuditedStream(std::shared_ptr<net::ResponseStream> inner, std::string audit_id)
      : m_inner(std::move(inner)), m_audit_id(std::move(audit_id)) {}
  ~AuditedStream() override {
    if (m_record) m_record->complete();
  }

  const std::string& audit_id() const { return m_audit_id; }
  // Set before the request is handled, never after.
  void attach(std::shared_ptr<audit::RequestAudit> record) { m_record = std::move(record); }
  audit::RequestAudit* record() const { return m_record.get(); }

  void add_header(net::Header header) override { m_inner->add_header(std::move(header)); }
  void begin(net::ResponseHead head) override {
    head.headers.push_back({"audit-id", m_audit_id});
    if (m_record) {
      const bool upgrade = m_inner->protocol() == net::Protocol::websocket && (head.status == 200 || head.status == 101);
      m_record->started(upgrade ? 101 : head.status);
      for (const auto& header : head.headers)
        if (header.name == "content-length") m_body_left = std::strtoull(header.value.c_str(), nullptr, 10);
    }
    m_inner->begin(std::move(head));
  }
  using net::ResponseStream::write;
  bool write(std::shared_ptr<const std::string> bytes) override {
    if (m_record && m_body_left) {
      // The last bytes of a body of known length end the response for the client: the
      // record is logged first, as kube-apiserver logs it before its handler returns.
      *m_body_left -= std::min<std::uint64_t>(*m_body_left, bytes->size());
      if (*m_body_left == 0) m_record->complete();
    }
    return m_inner->write(std::move(bytes));
  }
  void flush() override { m_inner->flush(); }
  void finish() override {
    if (m_record) m_record->complete();
    m_inner->finish();
  }
  void abort() override {
    if (m_record) m_record->complete();
    m_inner->abort();
  }
  std::size_t queued_bytes() const override { return m_inner->queued_bytes(); }
  bool closed() const override { return m_inner->closed(); }
  void on_close(std::function<void()> callback) override { m_inner->on_close(std::move(callback)); }
  void on_sent(std::function<void(std::size_t)> callback) override { m_inner->on_sent(std::move(callback)); }
  void on_receive(std::function<bool(std::string_view)> callback) override { m_inner->on_receive(std::move(callback)); }
  void resume_receive() override { m_inner->resume_receive(); }
  net::Protocol protocol() const override { return m_inner->protocol(); }

 private:
  std::shared_ptr<net::ResponseStream> m_inner;
  std::string m_audit_id;
  std::shared_ptr<audit::RequestAudit> m_record;
  std::optional<std::uint64_t> m_body_left;  // of a body whose content-length was given
};

ApiServer::ApiServer(registry::Registry& registry, ApiServerOptions options)
    : m_registry(registry), m_options(options) {}

namespace {

// kube's answer to a request refused for load (the max-in-flight and the priority and
// fairness filters alike), with Retry-After: 1.
registry::ApiError too_many_requests() {
  return registry::ApiError{429, "TooManyRequests", "Too many requests, please try again later.",
                            {{"retryAfterSeconds", 1}}};
}

// Who a request on the loopback insecure port is: trusted, as kube-apiserver's was.
auth::UserInfo unsecured_user() {
  return {.name = "system:unsecured", .groups = {auth::k_group_masters, auth::k_group_authenticated}, .uid = {}, .extra = {}};
}

}  // namespace

net::RequestClass ApiServer::classify(const net::Request& request) const {
  if (m_options.authenticator) {
    const auto user = m_options.authenticator->authenticate(request);
    if (user && user->in_group(auth::k_group_masters)) return net::RequestClass::exempt;
  }
  if (request.path.starts_with("/api/") || request.path.starts_with("/apis/")) {
    const RequestInfo info = parse_request_info(request.method, request.path, parse_query(request.query));
    if (long_running(info)) return net::RequestClass::long_running;
    if (info.is_resource_request)
      return info.verb == "get" || info.verb == "list" ? net::RequestClass::read_only : net::RequestClass::mutating;
  }
  const std::string& m = request.method;
  return m == "GET" || m == "HEAD" || m == "OPTIONS" ? net::RequestClass::read_only : net::RequestClass::mutating;
}

net::AdmissionConfig ApiServer::admission(std::size_t max_read_only, std::size_t max_mutating) {
  net::AdmissionConfig config;
  config.max_read_only_inflight = max_read_only;
  config.max_mutating_inflight = max_mutating;
  config.classify = [this](const net::Request& request) { return classify(request); };
  config.refuse = [this](const net::Request&, net::RequestClass kind, net::ResponseStream& stream) {
    ++(kind == net::RequestClass::mutating ? m_dropped_mutating : m_dropped_read_only);
    send_error(stream, too_many_requests());
  };
  if (auto* flow_control = m_options.flow_control) {
    config.gate = [this, flow_control](const net::Request& request, std::shared_ptr<net::ResponseStream> stream,
                                       net::StartRequest start) {
      auto digest = flow_digest(request);
      if (!digest) return start(std::move(stream), nullptr);
      const bool mutating = digest->verb != "get" && digest->verb != "list" && digest->verb != "watch";
      flow_control->admit(*digest, std::move(stream), std::move(start), [this, mutating](net::ResponseStream& refused) {
        ++(mutating ? m_dropped_mutating : m_dropped_read_only);
        send_error(refused, too_many_requests());
      });
    };
  }
  return config;
}

std::optional<flowcontrol::RequestDigest> ApiServer::flow_digest(const net::Request& request) const {
  flowcontrol::RequestDigest digest;
  if (m_options.authenticator) {
    auto user = m_options.authenticator->authenticate(request);
    if (!user) return std::nullopt;
    digest.user = std::move(user->name);
    digest.groups = std::move(user->groups);
  } else {
    auto user = unsecured_user();
    digest.user = std::move(user.name);
    digest.groups = std::move(user.groups);
  }
  const RequestInfo info = parse_request_info(request.method, request.path, parse_query(request.query));
  if (long_running(info) && info.verb != "watch") return std::nullopt;
  digest.is_resource_request = info.is_resource_request;
  if (!info.is_resource_request) {
    digest.verb = util::to_lower(request.method);
    digest.path = request.path;
    return digest;
  }
  digest.verb = info.verb;
  digest.api_group = info.group;
  digest.resource = info.resource;
  digest.subresource = info.subresource;
  // kube's RequestInfo: a namespace is in itself (/api/v1/namespaces/team is in "team").
  digest.namespace_ = info.api_prefix == "api" && info.resource == "namespaces" ? info.name : info.namespace_;
  return digest;
}

void ApiServer::handle(net::Request request, std::shared_ptr<net::ResponseStream> transport) {
  ++m_requests;
  const auto* client_audit_id = request.header("audit-id");
  auto stream = std::make_shared<AuditedStream>(
      std::move(transport), client_audit_id && !client_audit_id->empty() ? *client_audit_id : util::new_uuid());
  const auto query = parse_query(request.query);
  const RequestInfo info = parse_request_info(request.method, request.path, query);
  auth::UserInfo user;
  if (refuse_unauthorized(request, info, query, *stream, user)) return;
  const std::string& path = request.path;
  if (path == "/healthz" || path == "/livez" || path == "/readyz" || path.starts_with("/healthz/") ||
      path.starts_with("/livez/") || path.starts_with("/readyz/")) {
    const bool ok = !path.starts_with("/readyz") || m_registry.ready();
    std::string body = ok ? "ok" : "[-]informer-sync failed: the watch caches are not synced yet\nreadyz check failed";
    stream->begin({ok ? 200 : 503,
                   {{"cache-control", k_no_cache},
                    {"content-type", "text/plain; charset=utf-8"},
                    {"content-length", std::to_string(body.size())}},
                   false});
    stream->write(std::move(body));
    stream->finish();
    return;
  }
  // /version, /api, /api/v1 and /apis/GROUP/VERSION are go-restful routes in kube-apiserver:
  // GET only, 405 otherwise. /apis, /apis/GROUP and /openapi/v2 answer any method.
  if (path == "/version")
    return request.method == "GET" ? send_json(*stream, 200, version_info())
                                   : send_error(*stream, handlers::method_not_allowed());
  if (m_options.service_accounts != nullptr && request.method == "GET" && serve_openid(request, *stream)) return;
  if (path == "/metrics") return handle_metrics(*stream);
  if (m_options.aggregator != nullptr && info.parts.size() >= 3 && info.parts[0] == "apis" &&
      m_options.aggregator->serves(info.parts[1], info.parts[2]))
    return m_options.aggregator->proxy(request, info.parts[1], info.parts[2], user, *stream);
  if (info.is_resource_request) return handle_resource(request, info, query, stream, user, stream->record());
  if (request.path.starts_with("/openapi/") &&
      handle_openapi(request, *stream, *m_registry.resources(), custom_schemas(m_registry)))
    return;
  if (handle_discovery(request, info, *stream)) return;
  send_error(*stream, handlers::resource_not_found());
}

namespace {

// What authorization is asked about a request, as kube's RequestInfoFactory reads it: a
// namespace names itself as its namespace (/api/v1/namespaces/team is in namespace "team"),
// and a list or watch pinned to one name by fieldSelector=metadata.name=NAME is about NAME.
auth::Attributes authorization_attributes(const auth::UserInfo& user, const net::Request& request,
                                          const RequestInfo& info, const std::map<std::string, std::string>& query) {
  if (!info.is_resource_request) return auth::non_resource_attributes(user, request.method, request.path);
  std::string ns = info.namespace_;
  if (info.api_prefix == "api" && info.resource == "namespaces" && !info.name.empty()) ns = info.name;
  std::string name = info.name;
  if (name.empty() && (info.verb == "list" || info.verb == "watch")) {
    if (const auto selector = query.find("fieldSelector"); selector != query.end())
      if (auto parsed = api::FieldSelector::parse(selector->second))
        for (const auto& requirement : parsed->requirements())
          if (requirement.field == "metadata.name" && requirement.op == api::FieldOperator::equals &&
              kinds::path_segment_errors(requirement.value).empty())
            name = requirement.value;
  }
  return auth::resource_attributes(user, info.verb, std::move(ns), info.group, info.resource, info.subresource,
                                   std::move(name), request.path);
}

}  // namespace

bool ApiServer::admits_body(const net::Request& head) const {
  if (!m_options.authenticator) return !cross_site_refusal(head).has_value();
  return m_options.authenticator->authenticate(head).has_value();
}

bool ApiServer::refuse_unauthorized(const net::Request& request, const RequestInfo& info,
                                    const std::map<std::string, std::string>& query, AuditedStream& stream,
                                    auth::UserInfo& who) {
  const auto* auditor = m_options.auditor;
  std::shared_ptr<audit::RequestAudit> record;
  auto facts = [&] {
    const auto* agent = request.header("user-agent");
    return audit::RequestFacts{.audit_id = stream.audit_id(),
                               .request_uri = request.query.empty() ? request.path : request.path + "?" + request.query,
                               .user_agent = agent ? *agent : std::string(),
                               .source_ips = source_ips(request),
                               .api_version = info.is_resource_request ? info.version : std::string(),
                               .received = std::chrono::system_clock::now(),
                               .long_running = long_running(info)};
  };
  if (!m_options.authenticator) {
    // The loopback insecure port trusts every request, as kube-apiserver's did, but for what a
    // browser may send there from another site.
    if (auto refusal = cross_site_refusal(request)) {
      send_error(stream, *refusal);
      return true;
    }
    who = unsecured_user();
    if (auditor) stream.attach(auditor->begin(facts(), authorization_attributes(who, request, info, query)));
    return false;
  }
  auto user = m_options.authenticator->authenticate(request);
  if (!user) {
    if (auditor) {
      // Written as the 401 begins (kube's failed-authentication audit).
      stream.attach(auditor->begin_unauthenticated(facts(), authorization_attributes({}, request, info, query)));
      if (auto* failed = stream.record()) failed->response_object(auth::unauthorized_status());
    }
    send_json(stream, 401, auth::unauthorized_status());
    return true;
  }
  who = *user;
  // The policy sees who authenticated, before any impersonation.
  auto attributes = authorization_attributes(who, request, info, query);
  if (auditor) {
    record = auditor->begin(facts(), attributes);
    stream.attach(record);  // answers from here on (403) complete it
  }
  if (!m_options.authorizer) return false;
  // Impersonation headers: act as the user they name, once the requester may.
  auto acting = auth::impersonate(who, request.headers, *m_options.authorizer);
  if (!acting) {
    if (record) record->response_object(acting.error());
    send_json(stream, acting.error().value("code", 500), acting.error());
    return true;
  }
  if (*acting) {
    who = std::move(**acting);
    attributes.user = who;
    if (record) record->impersonating(who);
  }
  const auto decision = m_options.authorizer->authorize(attributes, record != nullptr);
  if (record) {
    record->annotate("authorization.k8s.io/decision", decision.allowed ? "allow" : "forbid");
    record->annotate("authorization.k8s.io/reason", decision.reason);
  }
  if (decision.allowed) return false;
  const auto forbidden = auth::forbidden_status(attributes, decision.reason);
  if (record) record->response_object(forbidden);
  send_json(stream, 403, forbidden);
  return true;
}

// The OpenID Connect discovery documents of the ServiceAccount token issuer, for relying
// parties outside the cluster (kube's /.well-known/openid-configuration and /openid/v1/jwks).
bool ApiServer::serve_openid(const net::Request& request, net::ResponseStream& stream) {
  static constexpr const char* k_public_hour = "public, max-age=3600";  // relying parties may cache them
  const auto* tokens = m_options.service_accounts;
  if (request.path == "/.well-known/openid-configuration") {
    const std::string* host = request.header("host");
    const std::string jwks_uri = "https://" + (host ? *host : std::string("localhost")) + "/openid/v1/jwks";
    send_json(stream, 200, tokens->openid_configuration(jwks_uri), "application/json", k_public_hour);
    return true;
  }
  if (request.path == "/openid/v1/jwks") {
    send_json(stream, 200, tokens->jwks(), "application/jwk-set+json", k_public_hour);
    return true;
  }
  return false;
}

bool ApiServer::handle_discovery(const net::Request& request, const RequestInfo& info, net::ResponseStream& stream) {
  const auto& parts = info.parts;
  const auto snapshot = m_registry.resources();
  const auto& table = *snapshot;
  const auto remote = m_options.aggregator ? m_options.aggregator->groups() : std::vector<aggregator::RemoteGroup>{};
  nlohmann::json body;
  if (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis")) {
    if (const auto version = aggregated_discovery_wanted(request.header("accept")); !version.empty()) {
      const std::string api_version = "apidiscovery.k8s.io/" + version;
      send_json(stream, 200, aggregated_discovery(table, parts[0] == "api", api_version, remote),
                "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList");
      return true;
    }
  }
  if (parts.size() == 1 && parts[0] == "api") {
    const auto* host = request.header("host");
    body = api_versions(host ? *host : "127.0.0.1");
  } else if (parts.size() == 2 && parts[0] == "api") {
    body = api_resource_list(table, "", parts[1]);
  } else if (parts.size() == 1 && parts[0] == "apis") {
    body = api_group_list(table, remote);
  } else if (parts.size() == 2 && parts[0] == "apis") {
    body = api_group(table, parts[1], remote);
  } else if (parts.size() == 3 && parts[0] == "apis") {
    body = api_resource_list(table, parts[1], parts[2]);
  } else {
    return false;
  }
  if (body.is_null()) return false;
  const bool any_method = parts[0] == "apis" && parts.size() <= 2;
  if (request.method != "GET" && !any_method) {
    send_error(stream, handlers::method_not_allowed());
    return true;
  }
  auto format = negotiate_response(request.header("accept"), {.watch = false, .table = false, .protobuf = true});
  if (!format) format = Negotiated{};
  // /api has no apiVersion in JSON; its protobuf envelope says v1, as every discovery type's does.
  if (format->format == Format::protobuf && !body.contains("apiVersion")) body["apiVersion"] = "v1";
  send_object(stream, 200, body, *format);
  return true;
}

void ApiServer::handle_metrics(net::ResponseStream& stream) {
  std::ostringstream out;
  out << "# HELP apiserver_request_total Requests served.\n# TYPE apiserver_request_total counter\n"
      << "apiserver_request_total " << m_requests.load() << "\n"
      << "# HELP kw_watches_started_total Watches started.\n# TYPE kw_watches_started_total counter\n"
      << "kw_watches_started_total " << m_watches_started.load() << "\n";
  out << "# HELP apiserver_dropped_requests_total Requests refused by the in-flight limit (429).\n"
      << "# TYPE apiserver_dropped_requests_total counter\n"
      << "apiserver_dropped_requests_total{request_kind=\"readOnly\"} " << m_dropped_read_only.load() << "\n"
      << "apiserver_dropped_requests_total{request_kind=\"mutating\"} " << m_dropped_mutating.load() << "\n";
  if (const auto* flow_control = m_options.flow_control) flow_control->write_metrics(out);
  if (const auto* auditor = m_options.auditor) {
    out << "# HELP apiserver_audit_event_total Audit events handed to the audit log.\n"
        << "# TYPE apiserver_audit_event_total counter\n"
        << "apiserver_audit_event_total " << auditor->events() << "\n"
        << "# HELP apiserver_audit_error_total Audit events dropped (buffer full) or not written.\n"
        << "# TYPE apiserver_audit_error_total counter\n"
        << "apiserver_audit_error_total{plugin=\"log\"} " << auditor->errors() << "\n";
  }
  out << "# HELP apiserver_terminated_watchers_total Watchers closed for being too slow.\n"
      << "# TYPE apiserver_terminated_watchers_total counter\n";
  const auto metrics = m_registry.cache_metrics();
  for (const auto& [prefix, m] : metrics)
    out << "apiserver_terminated_watchers_total{prefix=\"" << prefix << "\"} " << m.terminated_watchers << "\n";
  out << "# HELP kw_watch_cache_watchers Open watchers per cache.\n# TYPE kw_watch_cache_watchers gauge\n";
  for (const auto& [prefix, m] : metrics) out << "kw_watch_cache_watchers{prefix=\"" << prefix << "\"} " << m.watchers << "\n";
  out << "# HELP kw_watch_cache_events_total Events processed per cache.\n# TYPE kw_watch_cache_events_total counter\n";
  for (const auto& [prefix, m] : metrics) out << "kw_watch_cache_events_total{prefix=\"" << prefix << "\"} " << m.events << "\n";
  out << "# HELP kw_watch_cache_dispatch_candidates_total Watcher-event pairs dispatch considered per cache.\n"
      << "# TYPE kw_watch_cache_dispatch_candidates_total counter\n";
  for (const auto& [prefix, m] : metrics)
    out << "kw_watch_cache_dispatch_candidates_total{prefix=\"" << prefix << "\"} " << m.dispatch_candidates << "\n";
  std::string body = out.str();
  stream.begin({200,
                {{"cache-control", k_no_cache},
                 {"content-type", "text/plain; version=0.0.4"},
                 {"content-length", std::to_string(body.size())}},
                false});
  stream.write(std::move(body));
  stream.finish();
}

void ApiServer::handle_resource(const net::Request& request, const RequestInfo& info,
                                const std::map<std::string, std::string>& query,
                                const std::shared_ptr<net::ResponseStream>& stream, const auth::UserInfo& user,
                                audit::RequestAudit* audit) {
  const auto table = m_registry.resources();  // keeps `resource` alive while the request runs
  const auto* resource = table->find_plural(info.group, info.version, info.resource);
  if (!resource || (!info.subresource.empty() && !resource->has_subresource(info.subresource)) ||
      (!resource->namespaced && !info.namespace_.empty()))
    return send_error(*stream, handlers::resource_not_found());
  const handlers::ResourceRequest r{request,
                                    info,
                                    query,
                                    *resource,
                                    stream,
                                    m_registry,
                                    user,
                                    m_options.authenticator,
                                    m_options.authorizer,
                                    m_options.service_accounts,
                                    audit};
  handlers::serve(r, {.max_queue_bytes = m_options.max_watch_queue_bytes,
                      .min_request_timeout = m_options.min_request_timeout,
                      .started = &m_watches_started});
}

}  // namespace kw::http
