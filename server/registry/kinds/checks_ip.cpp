// IP addresses and CIDRs as netutils' sloppy parsers read them and Go prints them, and
// apimachinery's strict checks of both (checks.hpp).
#include <algorithm>
#include <utility>

#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {
namespace {

// Decimal digits at the front of s: the value (capped) and how many digits.
std::pair<std::int64_t, std::size_t> decimal_prefix(std::string_view s) {
  std::int64_t n = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) n = std::min<std::int64_t>(n * 10 + (s[i] - '0'), 0xFFFFFF);
  return {n, i};
}

bool parse_dotted(std::string_view s, std::uint8_t* out, bool& leading_zero) {
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      if (s.empty() || s.front() != '.') return false;
      s.remove_prefix(1);
    }
    const auto [n, digits] = decimal_prefix(s);
    if (digits == 0 || n > 255) return false;
    if (digits > 1 && s.front() == '0') leading_zero = true;
    out[i] = static_cast<std::uint8_t>(n);
    s.remove_prefix(digits);
  }
  return s.empty();
}

}  // namespace

// netutils.ParseIPSloppy: dotted IPv4 (leading zeros allowed) or IPv6, no zone.
std::optional<Ip> parse_ip(std::string_view s) {
  Ip ip;
  if (s.find(':') == std::string_view::npos) {
    if (!parse_dotted(s, ip.bytes.data() + 12, ip.leading_zero)) return std::nullopt;
    ip.bytes[10] = ip.bytes[11] = 0xff;
    ip.v4 = true;
    return ip;
  }
  int ellipsis = -1, i = 0;
  if (s.starts_with("::")) {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return ip;
  }
  while (i < 16) {
    std::size_t c = 0;
    int n = 0;
    for (; c < s.size() && util::hex_value(s[c]) >= 0; ++c) n = std::min((n << 4) | util::hex_value(s[c]), 0xFFFFFF);
    if (c < s.size() && s[c] == '.') {  // an IPv4 tail
      if ((ellipsis < 0 && i != 12) || i + 4 > 16) return std::nullopt;
      if (!parse_dotted(s, ip.bytes.data() + i, ip.leading_zero)) return std::nullopt;
      s = {};
      i += 4;
      break;
    }
    if (c == 0 || n > 0xFFFF) return std::nullopt;
    if (c > 4) ip.leading_zero = true;  // netip allows at most four digits a group
    ip.bytes[i] = static_cast<std::uint8_t>(n >> 8);
    ip.bytes[i + 1] = static_cast<std::uint8_t>(n);
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s.front() != ':' || s.size() == 1) return std::nullopt;
    s.remove_prefix(1);
    if (s.front() == ':') {
      if (ellipsis >= 0) return std::nullopt;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return std::nullopt;
  if (i < 16) {
    if (ellipsis < 0) return std::nullopt;
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip.bytes[j + n] = ip.bytes[j];
    for (int j = ellipsis + n - 1; j >= ellipsis; --j) ip.bytes[j] = 0;
  } else if (ellipsis >= 0) {
    return std::nullopt;  // "::" must stand for at least one group
  }
  bool prefix_zero = true;
  for (int j = 0; j < 10; ++j) prefix_zero = prefix_zero && ip.bytes[j] == 0;
  ip.mapped = prefix_zero && ip.bytes[10] == 0xff && ip.bytes[11] == 0xff;
  return ip;
}

// Go's IP.String(): dotted for IPv4 (and mapped) addresses, RFC 5952 for IPv6.
std::string ip_string(const Ip& ip) {
  if (ip.v4 || ip.mapped) {
    std::string out;
    for (int i = 12; i < 16; ++i) out += (i > 12 ? "." : "") + std::to_string(ip.bytes[i]);
    return out;
  }
  int e0 = -1, e1 = -1;  // the longest run of zero groups, if longer than one group
  for (int i = 0; i < 16; i += 2) {
    int j = i;
    while (j < 16 && ip.bytes[j] == 0 && ip.bytes[j + 1] == 0) j += 2;
    if (j > i && j - i > e1 - e0) {
      e0 = i;
      e1 = j;
      i = j;
    }
  }
  if (e1 - e0 <= 2) e0 = e1 = -1;
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; i += 2) {
    if (i == e0) {
      out += "::";
      i = e1;
      if (i >= 16) break;
    } else if (i > 0) {
      out += ':';
    }
    const int group = (ip.bytes[i] << 8) | ip.bytes[i + 1];
    std::string digits;
    for (int shift = 12; shift >= 0; shift -= 4)
      if (const int d = (group >> shift) & 0xf; d != 0 || !digits.empty() || shift == 0) digits += k_hex[d];
    out += digits;
  }
  return out;
}

const char* const k_ip_help = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const char* const k_cidr_help = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

// validation.IsValidIP: a valid address in canonical form.
std::vector<std::string> strict_ip_errors(std::string_view value) {
  const auto ip = parse_ip(value);
  if (!ip) return {k_ip_help};
  std::vector<std::string> out;
  if (ip->leading_zero) out.push_back("must not have leading 0s");
  if (ip->mapped) out.push_back("must not be an IPv4-mapped IPv6 address");
  if (out.empty() && value != ip_string(*ip)) out.push_back("must be in canonical form (\"" + ip_string(*ip) + "\")");
  return out;
}

bool is_v4(const Ip& ip) { return ip.v4 || ip.mapped; }

Ip Cidr::network() const {
  const int first_byte = ip.v4 ? 12 : 0;
  const int last_bit = ip.v4 ? 32 : 128;
  Ip net = ip;
  for (int bit = bits; bit < last_bit; ++bit)
    net.bytes[first_byte + bit / 8] &= static_cast<std::uint8_t>(~(0x80 >> (bit % 8)));
  return net;
}

bool Cidr::host_bits_set() const { return network().bytes != ip.bytes; }

bool Cidr::contains(const Ip& other) const {
  if (is_v4(ip) != is_v4(other)) return false;
  const int first = is_v4(ip) ? 12 : 0;
  const int prefix = ip.mapped ? std::max(0, bits - 96) : bits;
  const Ip net = network();
  for (int bit = 0; bit < prefix; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((net.bytes[first + bit / 8] & mask) != (other.bytes[first + bit / 8] & mask)) return false;
  }
  return true;
}

// netutils.ParseCIDRSloppy.
std::optional<Cidr> parse_cidr(std::string_view s) {
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto ip = parse_ip(s.substr(0, slash));
  const auto prefix = s.substr(slash + 1);
  const auto [n, digits] = decimal_prefix(prefix);
  if (!ip || digits == 0 || digits != prefix.size() || n > (ip->v4 ? 32 : 128)) return std::nullopt;
  return Cidr{*ip, static_cast<int>(n), digits > 1 && prefix.front() == '0'};
}

std::string cidr_string(const Cidr& cidr) { return ip_string(cidr.network()) + "/" + std::to_string(cidr.bits); }

// validation.IsValidCIDR: a valid CIDR in canonical form.
std::vector<std::string> strict_cidr_errors(std::string_view value) {
  const auto cidr = parse_cidr(value);
  if (!cidr) return {k_cidr_help};
  if (cidr->ip.leading_zero || cidr->prefix_leading_zero) return {"must not have leading 0s in IP or prefix length"};
  if (cidr->ip.mapped) return {"must not have an IPv4-mapped IPv6 address"};
  if (cidr->host_bits_set()) return {"must not have bits set beyond the prefix length"};
  if (value != cidr_string(*cidr)) return {"must be in canonical form (\"" + cidr_string(*cidr) + "\")"};
  return {};
}

}  // namespace kw::kinds
