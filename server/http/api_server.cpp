#include "server/http/api_server.hpp"

#include <algorithm>
#include <random>
#include <sstream>

#include "core/codec/media_type.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"
#include "server/auth/status.hpp"
#include "server/cache/list_json.hpp"
#include "server/http/discovery.hpp"
#include "server/http/openapi.hpp"
#include "server/http/patch.hpp"
#include "server/http/request_info.hpp"
#include "server/http/respond.hpp"
#include "server/http/watch_stream.hpp"

namespace kw::http {
namespace {

std::string query_value(const std::map<std::string, std::string>& query, const char* key) {
  auto found = query.find(key);
  return found == query.end() ? "" : found->second;
}

// The request body as JSON (JSON or YAML Content-Type).
registry::ApiResult<nlohmann::json> read_body(const net::Request& request) {
  std::string essence = "application/json";
  if (const auto* type = request.header("content-type"); type && !type->empty()) {
    auto parsed = codec::parse_media_type(*type);
    if (!parsed) return std::unexpected(registry::bad_request("bad Content-Type: " + parsed.error().message));
    essence = parsed->essence();
  }
  if (essence == "application/vnd.kubernetes.protobuf") {
    auto decoded = codec::decode_object_protobuf(request.body, codec::builtin_message_for);
    if (!decoded) return std::unexpected(registry::bad_request("the request body is not valid protobuf: " + decoded.error().message));
    return std::move(*decoded);
  }
  if (essence == "application/yaml") {
    auto docs = codec::yaml_to_json(request.body);
    if (!docs) return std::unexpected(registry::bad_request("the request body is not valid YAML: " + docs.error().message));
    if (docs->size() != 1) return std::unexpected(registry::bad_request("the request body must hold exactly one object"));
    return std::move((*docs)[0]);
  }
  if (essence != "application/json")
    return std::unexpected(registry::ApiError{415, "UnsupportedMediaType",
                                              "the body of the request was in an unknown format - accepted media "
                                              "types include: application/json, application/yaml, "
                                              "application/vnd.kubernetes.protobuf",
                                              {}});
  auto parsed = nlohmann::json::parse(request.body, nullptr, false);
  if (parsed.is_discarded())
    return std::unexpected(registry::bad_request("the request body is not valid JSON"));
  return parsed;
}

registry::ApiError resource_not_found() {
  return registry::ApiError{404, "NotFound", "the server could not find the requested resource", {}};
}

registry::ApiError not_acceptable() {
  return registry::ApiError{406, "NotAcceptable",
                            "the server was unable to respond with a content type that the client supports "
                            "(application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io)",
                            {}};
}

std::string kind_list_json_kind(const api::ResourceInfo& info) { return info.list_kind; }

// The openAPIV3Schema of every custom resource version, from the stored CRDs.
CustomSchemas custom_schemas(registry::Registry& store) {
  CustomSchemas out;
  const auto table = store.resources();
  const auto* definitions = table->find_plural("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  auto listed = definitions ? store.list(*definitions, {}) : registry::ApiResult<registry::ListResult>{};
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
    registry::ApiError error{429, "TooManyRequests", "Too many requests, please try again later.", {}};
    nlohmann::json status = error.status();
    status["details"] = {{"retryAfterSeconds", 1}};
    std::string body = dump_json(status);
    stream.begin({429,
                  {{"content-type", "application/json"},
                   {"retry-after", "1"},
                   {"content-length", std::to_string(body.size())}},
                  false});
    stream.write(std::move(body));
    stream.finish();
  };
  return config;
}

void ApiServer::handle(net::Request request, std::shared_ptr<net::ResponseStream> stream) {
  ++m_requests;
  const auto query = parse_query(request.query);
  const RequestInfo info = parse_request_info(request.method, request.path, query);
  if (refuse_unauthorized(request, info, *stream)) return;
  const std::string& path = request.path;
  if (path == "/healthz" || path == "/livez" || path == "/readyz" || path.starts_with("/healthz/") ||
      path.starts_with("/livez/") || path.starts_with("/readyz/")) {
    const bool ok = !path.starts_with("/readyz") || m_registry.ready();
    std::string body = ok ? "ok" : "[-]informer-sync failed: the watch caches are not synced yet\nreadyz check failed";
    stream->begin({ok ? 200 : 503,
                   {{"content-type", "text/plain; charset=utf-8"}, {"content-length", std::to_string(body.size())}},
                   false});
    stream->write(std::move(body));
    stream->finish();
    return;
  }
  if (path == "/version") return send_json(*stream, 200, version_info());
  if (path == "/metrics") return handle_metrics(*stream);
  if (info.is_resource_request) return handle_resource(request, info, query, stream);
  if (request.method == "GET" && request.path.starts_with("/openapi/") &&
      handle_openapi(request, *stream, *m_registry.resources(), custom_schemas(m_registry)))
    return;
  if (request.method == "GET" && handle_discovery(request, info, *stream)) return;
  send_error(*stream, resource_not_found());
}

bool ApiServer::refuse_unauthorized(const net::Request& request, const RequestInfo& info,
                                    net::ResponseStream& stream) {
  if (!m_options.authenticator) return false;
  auto user = m_options.authenticator->authenticate(request);
  if (!user) {
    send_json(stream, 401, auth::unauthorized_status());
    return true;
  }
  if (!m_options.authorizer) return false;
  const auto attributes =
      info.is_resource_request
          ? auth::resource_attributes(*user, info.verb, info.namespace_, info.group, info.resource, info.subresource,
                                      info.name, request.path)
          : auth::non_resource_attributes(*user, request.method, request.path);
  const auto decision = m_options.authorizer->authorize(attributes);
  if (decision.allowed) return false;
  send_json(stream, 403, auth::forbidden_status(attributes, decision.reason));
  return true;
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
  stream.begin({200, {{"content-type", "text/plain; version=0.0.4"}, {"content-length", std::to_string(body.size())}}, false});
  stream.write(std::move(body));
  stream.finish();
}

void ApiServer::handle_resource(const net::Request& request, const RequestInfo& info,
                                const std::map<std::string, std::string>& query,
                                const std::shared_ptr<net::ResponseStream>& stream) {
  const auto table = m_registry.resources();  // keeps `resource` alive while the request runs
  const auto* resource = table->find_plural(info.group, info.version, info.resource);
  if (!resource || (!info.subresource.empty() && !resource->has_subresource(info.subresource)))
    return send_error(*stream, resource_not_found());
  if (!resource->namespaced && !info.namespace_.empty() && info.resource != "namespaces")
    return send_error(*stream, resource_not_found());
  if (info.verb.empty())
    return send_error(*stream, registry::ApiError{405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}});
  if (resource->namespaced && info.namespace_.empty() && info.verb != "list" && info.verb != "watch")
    return send_error(*stream, registry::bad_request("the resource " + resource->plural + " is namespaced: a namespace is required"));
  if (info.verb == "watch") return handle_watch(request, *resource, info, query, stream);

  const bool table_ok = info.subresource.empty() && (info.verb == "get" || info.verb == "list");
  // autoscaling/v1 Scale has no protobuf message in kw: JSON and YAML only.
  const bool scale = info.subresource == "scale";
  const bool has_protobuf = !resource->proto_message.empty() && !scale;
  auto format = negotiate_response(request.header("accept"), {.watch = false, .table = table_ok, .protobuf = has_protobuf});
  if (!format) return send_error(*stream, not_acceptable());
  const auto include = query_value(query, "includeObject");
  if (!include.empty()) format->include_object = include;

  registry::WriteOptions write;
  write.subresource = info.subresource;
  const auto dry_run = query_value(query, "dryRun");
  if (!dry_run.empty() && dry_run != "All")
    return send_error(*stream, registry::bad_request("dryRun: Unsupported value: \"" + dry_run + "\": supported values: \"All\""));
  write.dry_run = dry_run == "All";
  const auto validation = query_value(query, "fieldValidation");
  if (validation == "Strict") write.field_validation = codec::FieldValidation::Strict;
  else if (validation == "Ignore") write.field_validation = codec::FieldValidation::Ignore;
  else if (!validation.empty() && validation != "Warn")
    return send_error(*stream, registry::bad_request("fieldValidation: Unsupported value: \"" + validation +
                                                     "\": supported values: \"Ignore\", \"Strict\", \"Warn\""));
  std::vector<std::string> warnings;
  write.warnings = &warnings;
  const auto now = std::chrono::system_clock::now();
  auto reply = [&](int status, const registry::ApiResult<nlohmann::json>& result) {
    if (!result) return send_error(*stream, result.error());
    if (format->format == Format::table) {
      nlohmann::json table = {{"kind", "Table"},
                              {"apiVersion", "meta.k8s.io/v1"},
                              {"metadata", {{"resourceVersion", result->value("metadata", nlohmann::json::object())
                                                                    .value("resourceVersion", "")}}},
                              {"columnDefinitions", table_columns(*resource)},
                              {"rows", {table_row(*resource, *result, format->include_object, now)}}};
      return send_object(*stream, status, table, *format, warnings);
    }
    send_object(*stream, status, *result, *format, warnings);
  };

  if (scale && info.verb == "get") return reply(200, m_registry.get_scale(*resource, info.namespace_, info.name));
  if (info.verb == "get") return reply(200, m_registry.get(*resource, info.namespace_, info.name, query_value(query, "resourceVersion")));
  if (info.verb == "list") {
    registry::ListRequest list;
    list.namespace_ = info.namespace_;
    list.label_selector = query_value(query, "labelSelector");
    list.field_selector = query_value(query, "fieldSelector");
    list.resource_version = query_value(query, "resourceVersion");
    list.resource_version_match = query_value(query, "resourceVersionMatch");
    list.continue_token = query_value(query, "continue");
    if (const auto limit = query_value(query, "limit"); !limit.empty()) {
      try {
        list.limit = std::stoll(limit);
      } catch (const std::exception&) {
        return send_error(*stream, registry::bad_request("limit: Invalid value: \"" + limit + "\": must be an integer"));
      }
    }
    if (query_bool(query, "sendInitialEvents"))
      return send_error(*stream, registry::ApiError{422, "Invalid", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list", {}});
    auto listed = m_registry.list(*resource, list);
    if (!listed) return send_error(*stream, listed.error());
    nlohmann::json meta = {{"resourceVersion", listed->resource_version}};
    if (!listed->continue_token.empty()) meta["continue"] = listed->continue_token;
    if (listed->remaining) meta["remainingItemCount"] = *listed->remaining;
    if (format->format == Format::table) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& item : listed->items) rows.push_back(table_row(*resource, item->object, format->include_object, now));
      return send_object(*stream, 200,
                         {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", meta},
                          {"columnDefinitions", table_columns(*resource)}, {"rows", rows}},
                         *format);
    }
    if (format->format == Format::json) {
      // Joined from each cached object's JSON, encoded once per object version.
      std::string bytes = cache::list_json(kind_list_json_kind(*resource), resource->api_version(), meta, listed->items);
      bytes += '\n';
      return send_encoded(*stream, 200, std::move(bytes), *format);
    }
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : listed->items) items.push_back(item->object);
    return send_object(*stream, 200,
                       {{"kind", kind_list_json_kind(*resource)}, {"apiVersion", resource->api_version()},
                        {"metadata", meta}, {"items", std::move(items)}},
                       *format);
  }
  if (info.verb == "delete" || info.verb == "deletecollection") {
    nlohmann::json options;
    if (!request.body.empty()) {
      auto body = read_body(request);
      if (!body) return send_error(*stream, body.error());
      options = std::move(*body);
    }
    // DeleteOptions.dryRun (kubectl sends it in the body) means the same as the query's.
    if (options.is_object() && options.contains("dryRun")) {
      const auto& modes = options["dryRun"];
      if (!modes.is_array() || std::any_of(modes.begin(), modes.end(), [](const nlohmann::json& m) { return m != "All"; }))
        return send_error(*stream, registry::bad_request("dryRun: Unsupported value: " + dump_json(modes) +
                                                         ": supported values: \"All\""));
      if (!modes.empty()) write.dry_run = true;
    }
    if (info.verb == "delete") return reply(200, m_registry.remove(*resource, info.namespace_, info.name, options, write));
    registry::ListRequest list;
    list.namespace_ = info.namespace_;
    list.label_selector = query_value(query, "labelSelector");
    list.field_selector = query_value(query, "fieldSelector");
    auto listed = m_registry.list(*resource, list);
    if (!listed) return send_error(*stream, listed.error());
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : listed->items) {
      auto removed = m_registry.remove(*resource, item->namespace_, item->name, options, write);
      if (removed) items.push_back(*removed);
      else if (removed.error().code != 404) return send_error(*stream, removed.error());
    }
    return send_object(*stream, 200,
                       {{"kind", resource->list_kind}, {"apiVersion", resource->api_version()},
                        {"metadata", {{"resourceVersion", listed->resource_version}}}, {"items", items}},
                       *format);
  }
  if (info.verb == "create" || info.verb == "update") {
    auto body = read_body(request);
    if (!body) return send_error(*stream, body.error());
    if (info.verb == "create") {
      if (!info.name.empty() || !info.subresource.empty())
        return send_error(*stream, registry::ApiError{405, "MethodNotAllowed", "POST is not supported on a named object", {}});
      return reply(201, m_registry.create(*resource, info.namespace_, std::move(*body), write));
    }
    if (scale)
      return reply(200, m_registry.update_scale(
                            *resource, info.namespace_, info.name,
                            [&](const nlohmann::json&) -> registry::ApiResult<nlohmann::json> { return *body; }, write));
    return reply(200, m_registry.update(*resource, info.namespace_, info.name, std::move(*body), write));
  }
  if (info.verb == "patch") {
    const auto* type_header = request.header("content-type");
    auto media = type_header ? codec::parse_media_type(*type_header) : kw::fail("missing");
    auto type = media ? patch_type(media->essence()) : std::nullopt;
    // Custom resources have no merge keys: kube-apiserver refuses strategic merge patches.
    if (type == PatchType::strategic && resource->custom && !scale) type.reset();
    if (!type && resource->custom && !scale)
      return send_error(*stream, registry::ApiError{415, "UnsupportedMediaType",
                                                    "the body of the request was in an unknown format - accepted media types include: "
                                                    "application/json-patch+json, application/merge-patch+json, "
                                                    "application/apply-patch+yaml",
                                                    {}});
    if (!type)
      return send_error(*stream, registry::ApiError{415, "UnsupportedMediaType",
                                                    "the body of the request was in an unknown format - accepted media types include: "
                                                    "application/json-patch+json, application/merge-patch+json, "
                                                    "application/strategic-merge-patch+json",
                                                    {}});
    auto patch = [&](const nlohmann::json& current) { return apply_patch(current, request.body, *type); };
    if (scale) return reply(200, m_registry.update_scale(*resource, info.namespace_, info.name, patch, write));
    return reply(200, m_registry.update_with(*resource, info.namespace_, info.name, patch, write));
  }
  send_error(*stream, registry::ApiError{405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}});
}

void ApiServer::handle_watch(const net::Request& request, const api::ResourceInfo& resource, const RequestInfo& info,
                             const std::map<std::string, std::string>& query,
                             const std::shared_ptr<net::ResponseStream>& stream) {
  auto format = negotiate_response(request.header("accept"),
                                   {.watch = true, .table = true, .protobuf = !resource.proto_message.empty()});
  if (!format) return send_error(*stream, not_acceptable());
  if (const auto include = query_value(query, "includeObject"); !include.empty()) format->include_object = include;
  auto filter = m_registry.make_filter(resource, info.namespace_, query_value(query, "labelSelector"),
                                       query_value(query, "fieldSelector"));
  if (!filter) return send_error(*stream, filter.error());
  filter->name = info.name;

  cache::WatchRequest watch;
  watch.filter = std::move(*filter);
  watch.allow_bookmarks = query_bool(query, "allowWatchBookmarks");
  const auto rv = query_value(query, "resourceVersion");
  const auto rv_match = query_value(query, "resourceVersionMatch");
  const bool initial = query_bool(query, "sendInitialEvents");
  if (query.contains("sendInitialEvents") && rv_match != "NotOlderThan")
    return send_error(*stream, registry::ApiError{422, "Invalid",
                                                  "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                                                  "resourceVersionMatch to NotOlderThan", {}});
  if (!rv_match.empty() && !query.contains("sendInitialEvents"))
    return send_error(*stream, registry::ApiError{422, "Invalid",
                                                  "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden "
                                                  "for watch unless sendInitialEvents is provided", {}});
  if (rv.empty() || rv == "0" || initial) {
    watch.mode = cache::StartMode::current_state;
    if (!initial && query.contains("sendInitialEvents")) {
      watch.mode = cache::StartMode::exact;  // sendInitialEvents=false: changes only
    }
    watch.initial_events_end = initial && watch.allow_bookmarks;
    watch.consistent = rv.empty();
  } else {
    watch.mode = cache::StartMode::exact;
  }
  if (!rv.empty()) {
    try {
      std::size_t used = 0;
      watch.revision = std::stoll(rv, &used);
      if (used != rv.size() || watch.revision < 0) throw std::invalid_argument("rv");
    } catch (const std::exception&) {
      return send_error(*stream, registry::bad_request("invalid resource version: " + rv));
    }
  }
  std::chrono::seconds timeout{0};
  if (const auto t = query_value(query, "timeoutSeconds"); !t.empty()) {
    try {
      timeout = std::chrono::seconds(std::stoll(t));
    } catch (const std::exception&) {
      return send_error(*stream, registry::bad_request("timeoutSeconds: Invalid value: \"" + t + "\""));
    }
  }
  if (timeout.count() <= 0) {
    std::mt19937_64 engine{std::random_device{}()};
    const auto base = m_options.min_request_timeout.count();
    timeout = std::chrono::seconds(base + static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(base)));
  }
  watch.deadline = std::chrono::steady_clock::now() + timeout;

  auto cache = m_registry.cache_for(resource);
  if (!cache || !cache->ready()) {
    stream->begin({429, {{"content-type", "application/json"}, {"retry-after", "1"}}, false});
    stream->write(registry::ApiError{429, "TooManyRequests", "the watch cache is not ready yet; retry", {}}.status().dump());
    stream->finish();
    return;
  }
  // sendInitialEvents=false: changes only, no initial state. With resourceVersion "0" they
  // start at the cache's revision; unset (consistent), the cache first catches up with storage.
  if (watch.mode == cache::StartMode::exact && rv == "0") watch.revision = cache->revision();
  // Over WebSocket, protobuf events travel as binary messages and JSON/YAML as text.
  const bool binary = format->format == Format::protobuf;
  net::ResponseHead head{200, {{"content-type", format->content_type}, {"cache-control", "no-cache, private"}}, binary};
  stream->begin(head);
  auto sink = std::make_shared<WatchStream>(stream, resource, *format, m_options.max_watch_queue_bytes,
                                            request.protocol == net::Protocol::websocket);
  ++m_watches_started;
  auto started = cache->watch(watch, sink);
  if (!started) {
    // After the request was accepted, errors travel inside the stream (HTTP 200 + ERROR).
    auto status = registry::from_storage(started.error(), resource.group, resource.plural, "");
    if (started.error().code == storage::ErrorCode::compacted) status.message = started.error().message;
    stream->write(sink->error_frame(status.status()));
    stream->finish();
    return;
  }
  stream->flush();
}

}  // namespace kw::http
