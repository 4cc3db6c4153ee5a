// Envelope, watch events and the apiVersion/kind-driven entry points of the
// Kubernetes protobuf codec. Transcoding itself lives in protobuf_json.cpp.
#include "core/codec/protobuf.hpp"

#include <limits>

#include "k8s.io/apimachinery/pkg/apis/meta/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb.h"
#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"

namespace kw::codec {
namespace {

namespace runtime = k8s::io::apimachinery::pkg::runtime;
namespace metav1 = k8s::io::apimachinery::pkg::apis::meta::v1;

constexpr std::string_view k_meta = "k8s.io.apimachinery.pkg.apis.meta.v1.";

// Groups whose protobuf package is not k8s.io.api.<first label of the group>.
constexpr std::pair<std::string_view, std::string_view> k_package_exceptions[] = {
    {"meta.k8s.io", "k8s.io.apimachinery.pkg.apis.meta"},
    {"apiextensions.k8s.io", "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions"},
    {"apiregistration.k8s.io", "k8s.io.kube_aggregator.pkg.apis.apiregistration"},
    {"internal.apiserver.k8s.io", "k8s.io.api.apiserverinternal"},
};

kw::Result<std::pair<std::string, std::string>> type_of(const nlohmann::json& object) {
  if (!object.is_object()) return kw::fail("expected a JSON object with apiVersion and kind");
  const auto api_version = object.find("apiVersion");
  const auto kind = object.find("kind");
  if (api_version == object.end() || !api_version->is_string() || api_version->get<std::string>().empty()) {
    return kw::fail("object has no apiVersion; set e.g. \"apiVersion\": \"v1\"");
  }
  if (kind == object.end() || !kind->is_string() || kind->get<std::string>().empty()) {
    return kw::fail("object has no kind; set e.g. \"kind\": \"Pod\"");
  }
  return std::pair{api_version->get<std::string>(), kind->get<std::string>()};
}

kw::Result<std::string> message_for(const ResourceLookup& lookup, std::string_view api_version, std::string_view kind) {
  std::optional<std::string> name = lookup ? lookup(api_version, kind) : std::nullopt;
  if (!name) {
    return kw::fail("no protobuf encoding is known for kind " + std::string(kind) + " in " + std::string(api_version) +
                    "; request application/json instead");
  }
  return *name;
}

bool parse_exact(google::protobuf::Message& message, std::string_view bytes) {
  return bytes.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()) &&
         message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace

std::string proto_package(std::string_view group, std::string_view version) {
  for (const auto& [name, package] : k_package_exceptions)
    if (name == group) return std::string(package) + "." + std::string(version);
  const std::string_view label = group.empty() ? std::string_view("core") : group.substr(0, group.find('.'));
  return "k8s.io.api." + std::string(label) + "." + std::string(version);
}

std::optional<std::string> builtin_message_for(std::string_view api_version, std::string_view kind) {
  // Status travels as apiVersion v1 whatever the group of the request, and so do the
  // discovery documents (meta.k8s.io types that predate the group).
  constexpr std::string_view k_unversioned_meta[] = {"Status", "APIVersions", "APIGroupList", "APIGroup",
                                                     "APIResourceList"};
  for (auto name : k_unversioned_meta)
    if (kind == name && (api_version == "v1" || kind == "Status")) return std::string(k_meta) + std::string(kind);
  const auto slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  if (version.empty() || kind.empty()) return std::nullopt;
  std::string name = proto_package(group, version) + "." + std::string(kind);
  if (proto::find_message(name) != nullptr) return name;
  // The option kinds and WatchEvent are meta.k8s.io types that every group version carries
  // (a DeleteOptions sent as apps/v1 or v1, as client-go's typed clients send it).
  constexpr std::string_view k_meta_in_every_version[] = {"DeleteOptions", "ListOptions", "GetOptions",  "CreateOptions",
                                                          "UpdateOptions", "PatchOptions", "WatchEvent"};
  for (auto meta_kind : k_meta_in_every_version)
    if (kind == meta_kind) return std::string(k_meta) + std::string(kind);
  return std::nullopt;
}

kw::Result<Envelope> decode_envelope(std::string_view bytes) {
  if (!bytes.starts_with(k_protobuf_magic)) {
    return kw::fail("not a Kubernetes protobuf object: missing the \"k8s\\0\" prefix");
  }
  runtime::Unknown unknown;
  if (!parse_exact(unknown, bytes.substr(k_protobuf_magic.size()))) {
    return kw::fail("malformed protobuf envelope: cannot parse runtime.Unknown (" + std::to_string(bytes.size()) + " bytes)");
  }
  if (!unknown.contentencoding().empty()) {
    return kw::fail("unsupported protobuf content encoding \"" + unknown.contentencoding() + "\"");
  }
  if (!unknown.contenttype().empty() && unknown.contenttype() != "application/vnd.kubernetes.protobuf") {
    return kw::fail("unsupported embedded content type \"" + unknown.contenttype() + "\"");
  }
  return Envelope{unknown.typemeta().apiversion(), unknown.typemeta().kind(), unknown.raw()};
}

kw::Result<ProtobufEncoding> encode_object_protobuf(const nlohmann::json& object, const ResourceLookup& lookup,
                                                    FieldValidation validation) {
  auto type = type_of(object);
  if (!type) return std::unexpected(type.error());
  auto name = message_for(lookup, type->first, type->second);
  if (!name) return std::unexpected(name.error());
  auto encoded = json_to_protobuf(object, *name, validation);
  if (!encoded) return encoded;
  encoded->bytes = encode_envelope(type->first, type->second, encoded->bytes);
  return encoded;
}

kw::Result<std::string> encode_object_protobuf(const nlohmann::json& object, const ResourceLookup& lookup) {
  auto encoded = encode_object_protobuf(object, lookup, FieldValidation::Ignore);
  if (!encoded) return std::unexpected(encoded.error());
  return std::move(encoded->bytes);
}

namespace {

kw::Result<nlohmann::json> decode_enveloped(std::string_view bytes, const ResourceLookup& lookup, bool go_shaped) {
  auto envelope = decode_envelope(bytes);
  if (!envelope) return std::unexpected(envelope.error());
  // What the object is comes from its envelope alone, and is written back into the JSON.
  if (envelope->api_version.empty() || envelope->kind.empty())
    return kw::fail("protobuf object has no apiVersion or no kind in its envelope");
  auto name = message_for(lookup, envelope->api_version, envelope->kind);
  if (!name) return std::unexpected(name.error());
  auto object = protobuf_to_json(envelope->raw, *name);
  if (!object) return object;
  if (go_shaped)
    if (const auto* message = proto::find_message(*name)) fill_go_values(*object, *message);
  (*object)["apiVersion"] = envelope->api_version;
  (*object)["kind"] = envelope->kind;
  return object;
}

}  // namespace

kw::Result<nlohmann::json> decode_object_protobuf(std::string_view bytes, const ResourceLookup& lookup) {
  return decode_enveloped(bytes, lookup, false);
}

kw::Result<nlohmann::json> decode_object_protobuf_go_shaped(std::string_view bytes, const ResourceLookup& lookup) {
  return decode_enveloped(bytes, lookup, true);
}

kw::Result<WatchEventBytes> decode_watch_event_protobuf(std::string_view bytes) {
  metav1::WatchEvent event;
  if (!parse_exact(event, bytes)) {
    return kw::fail("malformed protobuf watch event: cannot parse metav1.WatchEvent (" + std::to_string(bytes.size()) + " bytes)");
  }
  if (event.type().empty()) return kw::fail("malformed protobuf watch event: no type");
  return WatchEventBytes{event.type(), event.object().raw()};
}

}  // namespace kw::codec
