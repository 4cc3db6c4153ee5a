// yaml_to_json never crashes; whatever it accepts survives json -> yaml -> json unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/codec/yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto docs = kw::codec::yaml_to_json(input);
  if (!docs) {
    if (docs.error().message.empty()) std::abort();
    return 0;
  }
  for (const auto& doc : *docs) {
    std::string yaml = kw::codec::json_to_yaml(doc);
    auto back = kw::codec::yaml_to_json(yaml);
    if (!back || back->size() != 1 || back->front() != doc) std::abort();
  }
  return 0;
}
