#include "cli/client/list.hpp"

#include "cli/print/table_event.hpp"
#include "core/codec/media_type.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"

namespace kw::cli {

using nlohmann::json;

namespace {

constexpr std::string_view k_table_accept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

std::string essence_of(const std::string& content_type) {
  auto media = codec::parse_media_type(content_type);
  return media ? media->essence() : std::string();
}

ApiError response_error(const net::client::Response& response) {
  ApiError error{response.head.status, error_message(response), {}};
  const auto body = json::parse(response.body, nullptr, false);
  if (body.is_object() && body.value("kind", json()) == "Status") {
    const auto reason = body.find("reason");
    if (reason != body.end() && reason->is_string()) error.reason = reason->get<std::string>();
  }
  return error;
}

}  // namespace

std::string accept_for(const Query& query, bool watch) {
  if (query.encoding == "yaml") return "application/yaml";
  if (query.encoding == "protobuf") return "application/vnd.kubernetes.protobuf, application/json";
  (void)watch;
  return query.want_table ? std::string(k_table_accept) : std::string("application/json");
}

std::string query_string(const Query& query, bool watch, const std::string& resource_version,
                         const std::string& continue_token) {
  std::vector<std::string> params;
  if (!query.label_selector.empty()) params.push_back("labelSelector=" + url_escape(query.label_selector));
  if (!query.field_selector.empty()) params.push_back("fieldSelector=" + url_escape(query.field_selector));
  if (watch) {
    params.push_back("watch=1");
    params.push_back("allowWatchBookmarks=true");
  } else if (query.chunk_size > 0) {
    params.push_back("limit=" + std::to_string(query.chunk_size));
  }
  if (!continue_token.empty()) params.push_back("continue=" + url_escape(continue_token));
  if (!resource_version.empty()) params.push_back("resourceVersion=" + url_escape(resource_version));
  if (query.want_table && query.include_object && query.encoding == "json") params.push_back("includeObject=Object");
  std::string out;
  for (std::size_t i = 0; i < params.size(); ++i) out += (i ? "&" : "?") + params[i];
  return out;
}

Result<json> decode_body(const std::string& content_type, std::string_view body, bool thin) {
  const std::string essence = essence_of(content_type);
  if (essence == "application/vnd.kubernetes.protobuf") {
    auto decoded = thin ? codec::decode_object_protobuf(body, codec::builtin_message_for)
                        : codec::decode_object_protobuf_go_shaped(body, codec::builtin_message_for);
    if (!decoded) return fail("cannot decode protobuf response: " + decoded.error().message);
    return decoded;
  }
  if (essence == "application/yaml") {
    auto docs = codec::yaml_to_json(body);
    if (!docs) return fail("cannot decode YAML response: " + docs.error().message);
    if (docs->empty()) return fail("empty YAML response");
    return docs->front();
  }
  json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return fail("the server sent a response that is not JSON (Content-Type '" + content_type + "')");
  return parsed;
}

namespace {

// Moves body[key] out (or `fallback` when absent).
json take(json& body, const char* key, json fallback) {
  const auto it = body.find(key);
  return it == body.end() ? std::move(fallback) : std::move(*it);
}

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void read_columns(const json& table, KindInfo& kind) {
  const auto defs = table.find("columnDefinitions");
  if (defs == table.end() || !defs->is_array() || defs->empty()) return;
  kind.columns.clear();
  for (const auto& d : *defs) {
    if (!d.is_object()) continue;
    const auto priority = d.find("priority");
    kind.columns.push_back(api::ColumnDefinition{
        .name = string_field(d, "name"), .type = string_field(d, "type"), .format = string_field(d, "format"),
        .description = string_field(d, "description"),
        .priority = priority != d.end() && priority->is_number_integer() ? priority->get<int>() : 0,
        .json_path = {}});
  }
}

void collect_items(json&& body, KindInfo& kind, const std::string& type, std::vector<Item>& out) {
  if (!body.is_object()) return;
  if (string_field(body, "kind") == "Table") {
    read_columns(body, kind);
    if (auto rows = body.find("rows"); rows != body.end() && rows->is_array())
      for (auto& row : *rows)
        if (row.is_object())
          out.push_back(Item{type, take(row, "object", json::object()), take(row, "cells", json::array())});
    return;
  }
  if (auto items = body.find("items"); items != body.end() && items->is_array() && !body.contains("spec")) {
    for (auto& item : *items) out.push_back(Item{type, std::move(item), nullptr});
    return;
  }
  // An empty list decoded from protobuf has no "items" at all (an empty repeated field is
  // not on the wire): a nameless "...List" is still a list, of nothing.
  if (!body.contains("items") && string_field(body, "kind").ends_with("List") && !body.contains("spec")) {
    const auto meta = body.find("metadata");
    if (meta == body.end() || !meta->is_object() || !meta->contains("name")) return;
  }
  out.push_back(Item{type, std::move(body), nullptr});
}

ApiResult<Listing> list_objects(ApiClient& api, KindInfo& kind, const Query& query,
                                const std::function<void(Item&)>& keep) {
  Listing listing;
  std::string continue_token;
  const std::string base = collection_path(kind, kind.info && kind.info->namespaced, query.namespace_name);
  for (int page = 0;; ++page) {
    auto response = api.get(base + query_string(query, false, "", continue_token), accept_for(query, false));
    if (!response) return std::unexpected(ApiError{0, response.error().message, {}});
    if (response->head.status != 200) return std::unexpected(response_error(*response));
    const std::string* content_type = response->head.header("content-type");
    auto body = decode_body(content_type ? *content_type : "application/json", response->body, bool(keep));
    if (!body) return std::unexpected(ApiError{response->head.status, body.error().message, {}});
    const json metadata = body->value("metadata", json::object());
    const std::size_t first = listing.items.size();
    collect_items(std::move(*body), kind, "", listing.items);
    if (keep)
      for (std::size_t i = first; i < listing.items.size(); ++i) keep(listing.items[i]);
    if (page == 0) listing.resource_version = metadata.value("resourceVersion", "");
    continue_token = metadata.value("continue", "");
    if (continue_token.empty()) break;
  }
  return listing;
}

ApiResult<Listing> get_object(ApiClient& api, KindInfo& kind, const Query& query, const std::string& name) {
  std::string path = collection_path(kind, kind.info && kind.info->namespaced, query.namespace_name) + "/" +
                     url_escape(name);
  if (!query.subresource.empty()) path += "/" + query.subresource;
  Query single = query;
  single.chunk_size = 0;
  single.label_selector.clear();
  single.field_selector.clear();
  auto response = api.get(path + query_string(single, false, "", ""), accept_for(query, false));
  if (!response) return std::unexpected(ApiError{0, response.error().message, {}});
  if (response->head.status != 200) return std::unexpected(response_error(*response));
  const std::string* content_type = response->head.header("content-type");
  auto body = decode_body(content_type ? *content_type : "application/json", response->body);
  if (!body) return std::unexpected(ApiError{response->head.status, body.error().message, {}});
  Listing listing;
  listing.resource_version = body->value("metadata", json::object()).value("resourceVersion", "");
  collect_items(std::move(*body), kind, "", listing.items);
  return listing;
}

Result<EventDecoder> EventDecoder::create(const std::string& content_type, bool message_framed) {
  EventDecoder decoder;
  decoder.m_message_framed = message_framed;
  const std::string essence = essence_of(content_type);
  if (essence == "application/vnd.kubernetes.protobuf") {
    decoder.m_format = Format::Protobuf;
    decoder.m_frames = codec::make_length_prefixed_frame_decoder();
  } else if (essence == "application/yaml") {
    decoder.m_format = Format::Yaml;
    decoder.m_frames = codec::make_yaml_watch_frame_decoder();
  } else if (essence == "application/json" || essence.empty()) {
    decoder.m_frames = codec::make_json_frame_decoder();
  } else {
    return fail("the server sent watch events as '" + content_type + "', which kw cannot decode");
  }
  return decoder;
}

Result<RawEvent> EventDecoder::decode_frame(std::string_view frame) const {
  RawEvent event;
  if (m_format == Format::Protobuf) {
    auto raw = codec::decode_watch_event_protobuf(frame);
    if (!raw) return fail("bad protobuf watch event: " + raw.error().message);
    auto object = m_thin_objects ? codec::decode_object_protobuf(raw->object, codec::builtin_message_for)
                                 : codec::decode_object_protobuf_go_shaped(raw->object, codec::builtin_message_for);
    if (!object) return fail("bad protobuf object in a " + raw->type + " event: " + object.error().message);
    return RawEvent{raw->type, std::move(*object), std::nullopt};
  }
  json document;
  if (m_format == Format::Yaml) {
    auto docs = codec::yaml_to_json(frame);
    if (!docs || docs->empty()) return fail("bad YAML watch event");
    document = std::move(docs->front());
  } else {
    if (m_thin_tables)
      if (auto thin = decode_thin_table_event(frame)) return std::move(*thin);
    document = json::parse(frame, nullptr, false);
    if (document.is_discarded()) return fail("bad JSON watch event");
  }
  if (!document.is_object() || !document.contains("type"))
    return fail("watch event without a type: " + document.dump().substr(0, 200));
  // The object is moved out of the event, never copied: it is most of the event's bytes.
  return RawEvent{document.value("type", ""), take(document, "object", json::object()), std::nullopt};
}

Result<void> EventDecoder::drain(std::vector<RawEvent>& out) {
  while (auto frame = m_frames->next()) {
    auto event = decode_frame(*frame);
    if (!event) return std::unexpected(event.error());
    out.push_back(std::move(*event));
  }
  return {};
}

Result<void> EventDecoder::feed(std::string_view bytes, std::vector<RawEvent>& out) {
  if (m_message_framed && m_format == Format::Protobuf) {
    auto event = decode_frame(bytes);
    if (!event) return std::unexpected(event.error());
    out.push_back(std::move(*event));
    return {};
  }
  auto fed = m_frames->feed(bytes);
  auto drained = drain(out);
  if (!fed) return fed;
  return drained;
}

Result<void> EventDecoder::finish(std::vector<RawEvent>& out) {
  if (m_message_framed && m_format == Format::Protobuf) return {};
  auto finished = m_frames->finish();
  auto drained = drain(out);
  if (!finished) return finished;
  return drained;
}

}  // namespace kw::cli
