#include "server/http/api_server.hpp"

#include <sstream>

#include "core/api/selector.hpp"
#include "server/auth/impersonation.hpp"
#include "server/auth/status.hpp"
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
    const auto& spec = item->object.value("spec", nlohmann::json::object());
    const std::string kind = spec.value("names", nlohmann::json::object()).value("kind", "");
    for (const auto& version : spec.value("versions", nlohmann::json::array())) {
      auto schema = version.value("schema", nlohmann::json::object()).value("openAPIV3Schema", nlohmann::json());
      if (schema.is_object())
        out[spec.value("group", "") + "/" + version.value("name", "") + "/" + kind] = std::move(schema);
    }
  }
  return out;
}

}  // namespace

ApiServer::ApiServer(registry::Registry& registry, ApiServerOptions options)
    : m_registry(registry), m_options(options) {}

net::RequestClass ApiServer::classify(const net::Request& request) const {
  if (m_options.authenticator) {
    const auto user = m_options.authenticator->authenticate(request);
    if (user && user->in_group(auth::k_group_masters)) return net::RequestClass::exempt;
  }
  if (request.path.starts_with("/api/") || request.path.starts_with("/apis/")) {
    const RequestInfo info = parse_request_info(request.method, request.path, parse_query(request.query));
    const std::string& sub = info.subresource;
    if (info.verb == "watch" || info.verb == "proxy" ||
        (info.is_resource_request &&
         (sub == "attach" || sub == "exec" || sub == "proxy" || sub == "log" || sub == "portforward")))
      return net::RequestClass::long_running;
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
    send_error(stream, registry::ApiError{429, "TooManyRequests", "Too many requests, please try again later.",
                                          {{"retryAfterSeconds", 1}}});
  };
  return config;
}

void ApiServer::handle(net::Request request, std::shared_ptr<net::ResponseStream> stream) {
  ++m_requests;
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
  if (path == "/version") return send_json(*stream, 200, version_info());
  if (m_options.service_accounts != nullptr && request.method == "GET" && serve_openid(request, *stream)) return;
  if (path == "/metrics") return handle_metrics(*stream);
  if (info.is_resource_request) return handle_resource(request, info, query, stream, user);
  if (request.method == "GET" && request.path.starts_with("/openapi/") &&
      handle_openapi(request, *stream, *m_registry.resources(), custom_schemas(m_registry)))
    return;
  if (request.method == "GET" && handle_discovery(request, info, *stream)) return;
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

bool ApiServer::refuse_unauthorized(const net::Request& request, const RequestInfo& info,
                                    const std::map<std::string, std::string>& query, net::ResponseStream& stream,
                                    auth::UserInfo& who) {
  if (!m_options.authenticator) {
    // The loopback insecure port trusts every request, as kube-apiserver's did.
    who = auth::UserInfo{.name = "system:unsecured", .groups = {auth::k_group_masters, auth::k_group_authenticated}, .uid = {}, .extra = {}};
    return false;
  }
  auto user = m_options.authenticator->authenticate(request);
  if (!user) {
    send_json(stream, 401, auth::unauthorized_status());
    return true;
  }
  who = *user;
  if (!m_options.authorizer) return false;
  // Impersonation headers: act as the user they name, once the requester may.
  auto acting = auth::impersonate(who, request.headers, *m_options.authorizer);
  if (!acting) {
    send_json(stream, acting.error().value("code", 500), acting.error());
    return true;
  }
  if (*acting) who = std::move(**acting);
  const auto attributes = authorization_attributes(who, request, info, query);
  const auto decision = m_options.authorizer->authorize(attributes);
  if (decision.allowed) return false;
  send_json(stream, 403, auth::forbidden_status(attributes, decision.reason));
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
  nlohmann::json body;
  if (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis")) {
    if (const auto version = aggregated_discovery_wanted(request.header("accept")); !version.empty()) {
      const std::string api_version = "apidiscovery.k8s.io/" + version;
      send_json(stream, 200, aggregated_discovery(table, parts[0] == "api", api_version),
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
    body = api_group_list(table);
  } else if (parts.size() == 2 && parts[0] == "apis") {
    body = api_group(table, parts[1]);
  } else if (parts.size() == 3 && parts[0] == "apis") {
    body = api_resource_list(table, parts[1], parts[2]);
  } else {
    return false;
  }
  if (body.is_null()) return false;
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
  out << "# HELP apiserver_terminated_watchers_total Watchers closed for being too slow.\n"
      << "# TYPE apiserver_terminated_watchers_total counter\n";
  const auto metrics = m_registry.cache_metrics();
  for (const auto& [prefix, m] : metrics)
    out << "apiserver_terminated_watchers_total{prefix=\"" << prefix << "\"} " << m.terminated_watchers << "\n";
  out << "# HELP kw_watch_cache_watchers Open watchers per cache.\n# TYPE kw_watch_cache_watchers gauge\n";
  for (const auto& [prefix, m] : metrics) out << "kw_watch_cache_watchers{prefix=\"" << prefix << "\"} " << m.watchers << "\n";
  out << "# HELP kw_watch_cache_events_total Events processed per cache.\n# TYPE kw_watch_cache_events_total counter\n";
  for (const auto& [prefix, m] : metrics) out << "kw_watch_cache_events_total{prefix=\"" << prefix << "\"} " << m.events << "\n";
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
                                const std::shared_ptr<net::ResponseStream>& stream, const auth::UserInfo& user) {
  const auto table = m_registry.resources();  // keeps `resource` alive while the request runs
  const auto* resource = table->find_plural(info.group, info.version, info.resource);
  if (!resource || (!info.subresource.empty() && !resource->has_subresource(info.subresource)) ||
      (!resource->namespaced && !info.namespace_.empty()))
    return send_error(*stream, handlers::resource_not_found());
  const handlers::ResourceRequest r{request,    info,       query, *resource, stream, m_registry, user,
                                    m_options.authenticator, m_options.authorizer, m_options.service_accounts};
  handlers::serve(r, {.max_queue_bytes = m_options.max_watch_queue_bytes,
                      .min_request_timeout = m_options.min_request_timeout,
                      .started = &m_watches_started});
}

}  // namespace kw::http
