#pragma once
// Helpers shared by the protobuf codec tests.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/codec/protobuf.hpp"

namespace kw::test {

inline const codec::ResourceLookup k_builtin_lookup = [](std::string_view api_version, std::string_view kind) {
  return codec::builtin_message_for(api_version, kind);
};

// Length-delimited field: tag byte, one-byte length (payloads here are < 128 bytes), payload.
inline std::string ld(unsigned char tag, std::string_view payload) {
  std::string out;
  out += static_cast<char>(tag);
  out += static_cast<char>(payload.size());
  out += payload;
  return out;
}

inline std::string hex(std::string_view bytes) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += k_digits[c >> 4];
    out += k_digits[c & 15];
    out += ' ';
  }
  return out;
}

}  // namespace kw::test
