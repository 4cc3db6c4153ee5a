// Media type and Accept parsing never crash; a parsed type prints and re-parses to itself.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/codec/media_type.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto mt = kw::codec::parse_media_type(input)) {
    auto again = kw::codec::parse_media_type(mt->to_string());
    if (!again || again->type != mt->type || again->subtype != mt->subtype || again->params != mt->params)
      std::abort();
  }
  if (auto accepted = kw::codec::parse_accept(input)) {
    static const std::vector<kw::codec::MediaType> k_offers = {
        {"application", "json", {}, 1.0},
        {"application", "json", {{"as", "Table"}, {"v", "v1"}, {"g", "meta.k8s.io"}}, 1.0},
        {"application", "vnd.kubernetes.protobuf", {{"stream", "watch"}}, 1.0},
    };
    auto chosen = kw::codec::negotiate(*accepted, k_offers);
    if (chosen && *chosen >= k_offers.size()) std::abort();
  }
  return 0;
}
