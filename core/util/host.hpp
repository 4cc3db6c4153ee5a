#pragma once
// Host names as URLs and Host headers carry them.
#include <string_view>

namespace kw::util {

// Whether `host` names this machine's loopback interface: "localhost" (any case), an IPv4
// address in 127.0.0.0/8, or ::1 (also written as an IPv4-mapped loopback address).
// Brackets around an IPv6 address are not part of the name.
bool is_loopback_host(std::string_view host);

}  // namespace kw::util
