#include "core/util/host.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/util/text.hpp"

namespace kw::util {

bool is_loopback_host(std::string_view host) {
  if (iequals(host, "localhost")) return true;
  const std::string text(host);
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) return bytes[0] == 127;
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return false;
  // ::1, or ::ffff:127.x.y.z
  const bool mapped = std::all_of(bytes.begin(), bytes.begin() + 10, [](unsigned char b) { return b == 0; }) &&
                      bytes[10] == 0xff && bytes[11] == 0xff;
  if (mapped) return bytes[12] == 127;
  return std::all_of(bytes.begin(), bytes.begin() + 15, [](unsigned char b) { return b == 0; }) && bytes[15] == 1;
}

}  // namespace kw::util
