// Selector parsing never crashes, and the canonical form re-parses to itself.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/api/selector.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto labels = kw::api::LabelSelector::parse(input)) {
    std::string canonical = labels->to_string();
    auto again = kw::api::LabelSelector::parse(canonical);
    if (!again || again->to_string() != canonical) std::abort();
    labels->matches({{"app", "web"}, {"tier", ""}});
  } else if (labels.error().message.empty()) {
    std::abort();
  }
  if (auto fields = kw::api::FieldSelector::parse(input)) {
    std::string canonical = fields->to_string();
    auto again = kw::api::FieldSelector::parse(canonical);
    if (!again || again->to_string() != canonical) std::abort();
    fields->matches({{"metadata.name", "x"}});
  } else if (fields.error().message.empty()) {
    std::abort();
  }
  return 0;
}
