#include "server/http/respond.hpp"

#include "core/api/table.hpp"
#include "core/codec/media_type.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"

namespace kw::http {
namespace {

codec::MediaType media(std::string type, std::string subtype,
                       std::vector<std::pair<std::string, std::string>> params = {}) {
  codec::MediaType out;
  out.type = std::move(type);
  out.subtype = std::move(subtype);
  out.params = std::move(params);
  return out;
}

}  // namespace

std::optional<Negotiated> negotiate_response(const std::string* accept, const Offers& offers) {
  const bool watch = offers.watch;
  std::vector<codec::MediaType> accepted;
  if (accept && !accept->empty()) {
    auto parsed = codec::parse_accept(*accept);
    if (!parsed) return std::nullopt;
    accepted = std::move(*parsed);
  }
  std::vector<codec::MediaType> offered;
  std::vector<Negotiated> results;
  auto offer = [&](codec::MediaType type, Negotiated result) {
    offered.push_back(std::move(type));
    results.push_back(std::move(result));
  };
  const std::string yaml_type = watch ? "application/yaml;stream=watch" : "application/yaml";
  offer(media("application", "json"), {Format::json, "application/json", "Metadata"});
  if (watch) offer(media("application", "json", {{"stream", "watch"}}), {Format::json, "application/json", "Metadata"});
  offer(media("application", "yaml"), {Format::yaml, yaml_type, "Metadata"});
  if (watch) offer(media("application", "yaml", {{"stream", "watch"}}), {Format::yaml, yaml_type, "Metadata"});
  if (offers.protobuf) {
    const std::string protobuf_type =
        watch ? "application/vnd.kubernetes.protobuf;stream=watch" : "application/vnd.kubernetes.protobuf";
    offer(media("application", "vnd.kubernetes.protobuf"), {Format::protobuf, protobuf_type, "Metadata"});
    if (watch)
      offer(media("application", "vnd.kubernetes.protobuf", {{"stream", "watch"}}),
            {Format::protobuf, protobuf_type, "Metadata"});
  }
  if (offers.table)
    for (const char* version : {"v1", "v1beta1"})
      offer(media("application", "json", {{"as", "Table"}, {"v", version}, {"g", "meta.k8s.io"}}),
            {Format::table, std::string("application/json;as=Table;v=") + version + ";g=meta.k8s.io", "Metadata"});
  if (!offers.partial_metadata.empty()) {
    const std::string as(offers.partial_metadata);
    for (const char* version : {"v1", "v1beta1"}) {
      const std::string params = ";as=" + as + ";g=meta.k8s.io;v=" + version;
      offer(media("application", "json", {{"as", as}, {"g", "meta.k8s.io"}, {"v", version}}),
            {Format::json, "application/json" + params, "Metadata", true});
      // Metadata has a protobuf form whatever the kind (custom resources too).
      const std::string protobuf_type =
          watch ? "application/vnd.kubernetes.protobuf;stream=watch" : "application/vnd.kubernetes.protobuf" + params;
      offer(media("application", "vnd.kubernetes.protobuf", {{"as", as}, {"g", "meta.k8s.io"}, {"v", version}}),
            {Format::protobuf, protobuf_type, "Metadata", true});
    }
  }
  auto chosen = codec::negotiate(accepted, offered);
  if (!chosen) return std::nullopt;
  return results[*chosen];
}

nlohmann::json partial_object_metadata(const nlohmann::json& object) {
  const auto meta = object.find("metadata");
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", meta == object.end() ? nlohmann::json::object() : *meta}};
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void send_json(net::ResponseStream& stream, int status, const nlohmann::json& body, const std::string& content_type,
               const std::string& cache_control) {
  std::string bytes = dump_json(body);
  bytes += '\n';
  stream.begin({status,
                {{"cache-control", cache_control},
                 {"content-type", content_type},
                 {"content-length", std::to_string(bytes.size())}},
                false});
  stream.write(std::move(bytes));
  stream.finish();
}

namespace {

// kube's Warning headers: `299 - "TEXT"`, the text as a JSON string.
void add_warning_headers(net::ResponseHead& head, const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) head.headers.push_back({"warning", "299 - " + dump_json(nlohmann::json(warning))});
}

}  // namespace

void send_error(net::ResponseStream& stream, const registry::ApiError& error, const std::vector<std::string>& warnings) {
  std::string bytes = dump_json(error.status());
  bytes += '\n';
  net::ResponseHead head{error.code,
                         {{"cache-control", k_no_cache},
                          {"content-type", "application/json"},
                          {"content-length", std::to_string(bytes.size())}},
                         false};
  // A client told to come back later (429, 504) reads when in Retry-After, as from kube-apiserver.
  if (const auto retry = error.details.find("retryAfterSeconds");
      error.details.is_object() && retry != error.details.end() && retry->is_number_integer())
    head.headers.push_back({"retry-after", std::to_string(retry->get<std::int64_t>())});
  add_warning_headers(head, warnings);
  stream.begin(std::move(head));
  stream.write(std::move(bytes));
  stream.finish();
}

void send_object(net::ResponseStream& stream, int status, const nlohmann::json& body, const Negotiated& format,
                 const std::vector<std::string>& warnings) {
  std::string bytes;
  if (format.format == Format::yaml) {
    bytes = codec::json_to_yaml(body);
  } else if (format.format == Format::protobuf) {
    auto encoded = codec::encode_object_protobuf(body, codec::builtin_message_for);
    if (!encoded)
      return send_error(stream, registry::ApiError{500, "InternalError",
                                                   "cannot encode the response as protobuf: " + encoded.error().message,
                                                   {}});
    bytes = std::move(*encoded);
  } else {
    bytes = dump_json(body);
    bytes += '\n';
  }
  send_encoded(stream, status, std::move(bytes), format, warnings);
}

void send_encoded(net::ResponseStream& stream, int status, std::string bytes, const Negotiated& format,
                  const std::vector<std::string>& warnings) {
  net::ResponseHead head{
      status,
      {{"cache-control", k_no_cache}, {"content-type", format.content_type}, {"content-length", std::to_string(bytes.size())}},
      false};
  add_warning_headers(head, warnings);
  stream.begin(std::move(head));
  stream.write(std::move(bytes));
  stream.finish();
}

nlohmann::json table_columns(const api::ResourceInfo& info) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : info.columns)
    out.push_back({{"name", c.name},
                   {"type", c.type},
                   {"format", c.format},
                   {"description", c.description},
                   {"priority", c.priority}});
  return out;
}

nlohmann::json table_document(const api::ResourceInfo& info, nlohmann::json metadata, nlohmann::json rows,
                              bool with_columns) {
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(metadata)},
          {"columnDefinitions", with_columns ? table_columns(info) : nlohmann::json()},
          {"rows", std::move(rows)}};
}

nlohmann::json table_row(const api::ResourceInfo& info, const nlohmann::json& object,
                         const std::string& include_object, std::chrono::system_clock::time_point now) {
  nlohmann::json row = {{"cells", api::table_cells(info, object, now)}};
  if (include_object == "Object") {
    row["object"] = object;
  } else if (include_object != "None") {
    row["object"] = partial_object_metadata(object);
  }
  return row;
}

}  // namespace kw::http
