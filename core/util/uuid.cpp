#include "core/util/uuid.hpp"

#include <cstdint>
#include <random>

namespace kw::util {

std::string new_uuid() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  std::uint64_t high = engine();
  std::uint64_t low = engine();
  high = (high & ~0xf000ULL) | 0x4000ULL;                     // version 4
  low = (low & ~(0xc0ULL << 56)) | (0x80ULL << 56);           // RFC 4122 variant
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out(36, '-');
  std::size_t at = 0;
  auto put = [&](std::uint64_t value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out[at++] = k_hex[(value >> shift) & 0xf];
  };
  put(high >> 32, 8);
  ++at;
  put((high >> 16) & 0xffff, 4);
  ++at;
  put(high & 0xffff, 4);
  ++at;
  put(low >> 48, 4);
  ++at;
  put(low & 0xffffffffffffULL, 12);
  return out;
}

}  // namespace kw::util
