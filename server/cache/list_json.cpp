#include "server/cache/list_json.hpp"

#include <deque>

#include "core/api/json_access.hpp"
#include "core/codec/protobuf.hpp"

namespace kw::cache {

std::string list_json(std::string_view kind, std::string_view api_version, const nlohmann::json& metadata,
                      const std::vector<ObjectPtr>& items) {
  std::size_t size = 256;
  for (const auto& item : items) size += item->json_size_hint() + 1;
  std::string out;
  out.reserve(size);
  // nlohmann orders object keys alphabetically: apiVersion, items, kind, metadata.
  out += "{\"apiVersion\":";
  out += nlohmann::json(api_version).dump();
  out += ",\"items\":[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    items[i]->append_json(out);
  }
  out += "],\"kind\":";
  out += nlohmann::json(kind).dump();
  out += ",\"metadata\":";
  out += metadata.dump();
  out += '}';
  return out;
}

std::string enveloped_protobuf(const StoredObject& object) {
  if (object.source) return codec::encode_envelope(object.source->api_version, object.source->kind, object.protobuf);
  return codec::encode_envelope(api::text(object.object(), "apiVersion"), api::text(object.object(), "kind"),
                                object.protobuf);
}

kw::Result<std::string> list_protobuf(std::string_view kind, std::string_view api_version,
                                      const codec::ListMetaFields& metadata, const std::vector<ObjectPtr>& items,
                                      std::string_view message) {
  std::deque<std::string> encoded;  // the items that had no stored message (stable addresses)
  std::vector<std::string_view> raws;
  raws.reserve(items.size());
  for (const auto& item : items) {
    if (!item->protobuf.empty()) {
      raws.push_back(item->protobuf);
      continue;
    }
    auto bytes = codec::json_to_protobuf(item->object(), message);
    if (!bytes) return std::unexpected(bytes.error());
    raws.push_back(encoded.emplace_back(std::move(*bytes)));
  }
  return codec::encode_list_protobuf(api_version, kind, metadata, raws);
}

}  // namespace kw::cache
