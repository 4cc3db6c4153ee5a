// Lookup over the description table (the parts live in openapi_descriptions_*.cpp).
#include "server/http/openapi_descriptions.hpp"

#include <unordered_map>

namespace kw::http::openapi {

std::vector<Description> all_descriptions() {
  std::vector<Description> out;
  for (const auto part :
       {meta_descriptions(), pod_descriptions(), workload_descriptions(), core_descriptions(), apps_descriptions(),
        batch_descriptions()})
    out.insert(out.end(), part.begin(), part.end());
  return out;
}

std::string_view description_of(std::string_view proto_full_name) {
  static const std::unordered_map<std::string_view, std::string_view> index = [] {
    std::unordered_map<std::string_view, std::string_view> built;
    for (const Description& entry : all_descriptions()) built.emplace(entry.key, entry.text);
    return built;
  }();
  const auto found = index.find(proto_full_name);
  return found == index.end() ? std::string_view{} : found->second;
}

}  // namespace kw::http::openapi
