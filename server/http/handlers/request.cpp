#include "server/http/handlers/request.hpp"

#include <algorithm>
#include <cstdio>

#include "core/codec/json_limits.hpp"
#include "core/codec/media_type.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"
#include "server/apply/field_manager.hpp"
#include "server/cache/list_json.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::http::handlers {
namespace {

registry::ApiError not_acceptable() {
  return registry::ApiError{406, "NotAcceptable",
                            "the server was unable to respond with a content type that the client supports "
                            "(application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io)",
                            {}};
}

}  // namespace

std::string ResourceRequest::param(const char* key) const {
  auto found = query.find(key);
  return found == query.end() ? "" : found->second;
}

void ResourceRequest::fail(const registry::ApiError& error, const std::vector<std::string>& warnings) const {
  if (audit) audit->response_object(error.status());
  send_error(*stream, error, warnings);
}

void ResourceRequest::audited_request(const nlohmann::json& object) const {
  if (audit) audit->request_object(object);
}

registry::ApiResult<nlohmann::json> read_body(const net::Request& request, std::vector<std::string>* duplicates,
                                              std::string_view* json_text) {
  std::string essence = "application/json";
  if (const auto* type = request.header("content-type"); type && !type->empty()) {
    auto parsed = codec::parse_media_type(*type);
    if (!parsed) return std::unexpected(registry::bad_request("bad Content-Type: " + parsed.error().message));
    essence = parsed->essence();
  }
  if (essence == "application/vnd.kubernetes.protobuf") {
    auto decoded = codec::decode_object_protobuf(request.body, codec::builtin_message_for);
    if (!decoded)
      return std::unexpected(registry::bad_request("the request body is not valid protobuf: " + decoded.error().message));
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
  auto parsed = codec::parse_json(request.body, codec::k_max_json_depth, duplicates);
  if (!parsed) return std::unexpected(registry::bad_request("the request body is not valid JSON: " + parsed.error().message));
  if (json_text) *json_text = request.body;
  return std::move(*parsed);
}

std::optional<Negotiated> negotiate(const ResourceRequest& r, const Offers& offers) {
  auto format = negotiate_response(r.request.header("accept"), offers);
  if (!format) {
    r.fail(not_acceptable());
    return std::nullopt;
  }
  if (const auto include = r.param("includeObject"); !include.empty()) format->include_object = include;
  return format;
}

registry::ApiError options_invalid(std::string_view options_kind, nlohmann::json causes) {
  auto summary = registry::causes_summary(causes);
  return registry::invalid("meta.k8s.io", std::string(options_kind), "", std::move(causes), summary);
}

std::optional<registry::ApiError> dry_run_refusal(std::string_view options_kind, const nlohmann::json& modes) {
  if (modes.is_array() && std::all_of(modes.begin(), modes.end(), [](const nlohmann::json& m) { return m == "All"; }))
    return std::nullopt;
  kinds::Causes causes = nlohmann::json::array();
  kinds::unsupported_rendered(causes, "dryRun", kinds::go_slice(modes), {"All"});
  return options_invalid(options_kind, std::move(causes));
}

bool WriteContext::begin(const ResourceRequest& r, const Offers& offers, std::string_view options_kind) {
  auto negotiated = negotiate(r, offers);
  if (!negotiated) return false;
  format = std::move(*negotiated);
  registry::WriteOptions& write = options;
  write.subresource = r.info.subresource;
  if (!r.user.name.empty()) write.requester = auth::user_info_to_json(r.user);
  // kube's ValidateDryRun and ValidateFieldValidation: 422 on the request's options kind.
  const auto dry_run = r.param("dryRun");
  if (!dry_run.empty())
    if (auto refused = dry_run_refusal(options_kind, nlohmann::json::array({dry_run}))) {
      r.fail(*refused);
      return false;
    }
  write.dry_run = dry_run == "All";
  const auto validation = r.param("fieldValidation");
  if (validation == "Strict") {
    write.field_validation = codec::FieldValidation::Strict;
  } else if (validation == "Ignore") {
    write.field_validation = codec::FieldValidation::Ignore;
  } else if (!validation.empty() && validation != "Warn") {
    kinds::Causes causes = nlohmann::json::array();
    kinds::unsupported_rendered(causes, "fieldValidation", util::go_quote(validation), {"", "Ignore", "Strict", "Warn"});
    r.fail(options_invalid(options_kind, std::move(causes)));
    return false;
  }
  write.warnings = &warnings;
  if (r.audit != nullptr && (r.info.verb == "create" || r.info.verb == "update"))
    write.decoded = [audit = r.audit](const nlohmann::json& object) { audit->request_object(object); };
  if (r.audit != nullptr)
    write.annotate = [audit = r.audit](const std::string& key, const std::string& value) { audit->annotate(key, value); };
  return true;
}

registry::ApiResult<nlohmann::json> WriteContext::read_object(const ResourceRequest& r) {
  const bool validating = options.field_validation != codec::FieldValidation::Ignore;
  if (!validating) return read_body(r.request);
  return read_body(r.request, &options.duplicate_fields, &options.json_body);
}

bool WriteContext::track(const ResourceRequest& r, std::string_view options_kind, PatchKind patch) {
  const std::string manager = r.param("fieldManager");
  nlohmann::json causes = nlohmann::json::array();
  auto cause = [&](const char* reason, std::string message, const char* field) {
    causes.push_back({{"reason", reason}, {"message", std::move(message)}, {"field", field}});
  };
  if (patch.patch && !patch.apply && r.has_param("force"))
    cause("FieldValueForbidden", "Forbidden: may not be specified for non-apply patch", "force");
  if (patch.apply && manager.empty()) cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager");
  if (manager.size() > 128) cause("FieldValueTooLong", "Too long: must have at most 128 bytes", "fieldManager");
  for (std::size_t i = 0; i < manager.size(); ++i) {
    const auto c = static_cast<unsigned char>(manager[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", c);
      cause("FieldValueInvalid",
            "Invalid value: " + nlohmann::json(manager).dump() + ": invalid character " + code + " (at position " +
                std::to_string(i) + ")",
            "fieldManager");
    }
  }
  if (!causes.empty()) {
    r.fail(options_invalid(options_kind, std::move(causes)));
    return false;
  }
  if (!manager.empty()) {
    options.field_manager = manager;
  } else {
    const auto* agent = r.request.header("user-agent");
    options.field_manager = apply::manager_from_user_agent(agent ? *agent : std::string_view());
    if (options.field_manager.empty()) options.field_manager = "unknown";
  }
  return true;
}

void reply(const ResourceRequest& r, const Negotiated& format, int status,
           const registry::ApiResult<nlohmann::json>& result, const std::vector<std::string>& warnings) {
  if (!result) return r.fail(result.error(), warnings);
  if (format.metadata_only) {
    const auto partial = partial_object_metadata(*result);
    if (r.audit) r.audit->response_object(partial);
    return send_object(*r.stream, status, partial, format, warnings);
  }
  if (format.format != Format::table) {
    if (r.audit) r.audit->response_object(*result);
    return send_object(*r.stream, status, *result, format, warnings);
  }
  const auto rv = result->value("metadata", nlohmann::json::object()).value("resourceVersion", "");
  const auto row = table_row(r.resource, *result, format.include_object, std::chrono::system_clock::now());
  const auto table = table_document(r.resource, {{"resourceVersion", rv}}, nlohmann::json::array({row}));
  if (r.audit) r.audit->response_object(table);
  send_object(*r.stream, status, table, format, warnings);
}

void reply_cached(const ResourceRequest& r, const Negotiated& format, const cache::StoredObject& object,
                  const std::vector<std::string>& warnings) {
  const bool json = format.format == Format::json;
  const bool protobuf = format.format == Format::protobuf && !object.protobuf.empty();
  if (format.metadata_only || (!json && !protobuf)) return reply(r, format, 200, object.object(), warnings);
  if (r.audit && r.audit->wants_response_object()) r.audit->response_object(object.object());
  if (json) {
    // Encoded once and kept for the next reader, as LISTs and watches keep it, until the cache's
    // sweep makes the object lean again: a lean object decoded for every GET costs several times
    // the GET itself.
    const std::string& encoded = object.json();
    std::string body;
    body.reserve(encoded.size() + 1);
    body += encoded;
    body += '\n';
    return send_encoded(*r.stream, 200, body, format, warnings);
  }
  send_encoded(*r.stream, 200, cache::enveloped_protobuf(object), format, warnings);
}

void reply_list(const ResourceRequest& r, const Negotiated& format, const registry::ListResult& listed) {
  nlohmann::json meta = {{"resourceVersion", listed.resource_version}};
  if (!listed.continue_token.empty()) meta["continue"] = listed.continue_token;
  if (listed.remaining) meta["remainingItemCount"] = *listed.remaining;
  const auto& resource = r.resource;
  auto send = [&](const nlohmann::json& body) {
    if (r.audit) r.audit->response_object(body);
    send_object(*r.stream, 200, body, format);
  };
  if (format.format == Format::table) {
    const auto now = std::chrono::system_clock::now();
    nlohmann::json rows = nlohmann::json::array();
    // A lean object's tree is made for its row only.
    for (const auto& item : listed.items)
      item->with_tree([&](const nlohmann::json& object) {
        rows.push_back(table_row(resource, object, format.include_object, now));
      });
    return send(table_document(resource, std::move(meta), std::move(rows)));
  }
  if (format.metadata_only) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : listed.items)
      item->with_tree([&](const nlohmann::json& object) { items.push_back(partial_object_metadata(object)); });
    return send({{"kind", "PartialObjectMetadataList"},
                 {"apiVersion", "meta.k8s.io/v1"},
                 {"metadata", meta},
                 {"items", std::move(items)}});
  }
  auto whole_list = [&] {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : listed.items) items.push_back(item->object());
    return nlohmann::json{{"kind", resource.list_kind},
                          {"apiVersion", resource.api_version()},
                          {"metadata", meta},
                          {"items", std::move(items)}};
  };
  if (format.format == Format::json) {
    // Joined from each cached object's JSON, encoded once per object version.
    if (r.audit && r.audit->wants_response_object()) r.audit->response_object(whole_list());
    std::string bytes = cache::list_json(resource.list_kind, resource.api_version(), meta, listed.items);
    bytes += '\n';
    return send_encoded(*r.stream, 200, std::move(bytes), format);
  }
  if (format.format == Format::protobuf && !resource.proto_message.empty()) {
    // Joined from each object's stored message, with nothing decoded or copied twice.
    if (r.audit && r.audit->wants_response_object()) r.audit->response_object(whole_list());
    const codec::ListMetaFields list_meta{.resource_version = listed.resource_version,
                                          .continue_token = listed.continue_token,
                                          .remaining_item_count = listed.remaining};
    auto bytes = cache::list_protobuf(resource.list_kind, resource.api_version(), list_meta, listed.items,
                                      resource.proto_message);
    if (bytes) return send_encoded(*r.stream, 200, std::move(*bytes), format);
  }
  send(whole_list());
}

registry::ApiError resource_not_found() {
  return registry::ApiError{404, "NotFound", "the server could not find the requested resource", {}};
}

registry::ApiError method_not_allowed() {
  return registry::ApiError{.code = 405,
                            .reason = "MethodNotAllowed",
                            .message = "the server does not allow this method on the requested resource",
                            .details = nlohmann::json::object(),
                            .keep_empty_details = true};
}

}  // namespace kw::http::handlers
