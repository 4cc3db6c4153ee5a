#include "core/util/base64.hpp"

namespace kw::util {

namespace {

constexpr std::string_view k_standard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view k_url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view bytes, std::string_view alphabet, bool padded) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    for (const int shift : {18, 12, 6, 0}) out.push_back(alphabet[(n >> shift) & 63]);
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const unsigned n = (byte(i) << 16) | (two ? byte(i + 1) << 8 : 0);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    if (two) out.push_back(alphabet[(n >> 6) & 63]);
    if (padded) out.append(two ? "=" : "==");
  }
  return out;
}

std::optional<std::string> decode(std::string_view text, std::string_view alphabet) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (const char c : text) {
    const auto digit = alphabet.find(c);
    if (digit == std::string_view::npos) return std::nullopt;
    value = (value << 6) | static_cast<unsigned>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
    }
  }
  if (bits >= 6) return std::nullopt;
  return out;
}

}  // namespace

std::string base64_encode(std::string_view bytes) { return encode(bytes, k_standard, true); }

std::string base64url_encode(std::string_view bytes) { return encode(bytes, k_url, false); }

std::optional<std::string> base64_decode(std::string_view text) { return decode(text, k_standard); }

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.ends_with('=')) return std::nullopt;  // unpadded only
  return decode(text, k_url);
}

}  // namespace kw::util
