#include "server/cache/list_json.hpp"

namespace kw::cache {

std::string list_json(std::string_view kind, std::string_view api_version, const nlohmann::json& metadata,
                      const std::vector<ObjectPtr>& items) {
  std::size_t size = 256;
  for (const auto& item : items) size += item->json().size() + 1;
  std::string out;
  out.reserve(size);
  // nlohmann orders object keys alphabetically: apiVersion, items, kind, metadata.
  out += "{\"apiVersion\":";
  out += nlohmann::json(api_version).dump();
  out += ",\"items\":[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    out += items[i]->json();
  }
  out += "],\"kind\":";
  out += nlohmann::json(kind).dump();
  out += ",\"metadata\":";
  out += metadata.dump();
  out += '}';
  return out;
}

}  // namespace kw::cache
