// networking.k8s.io/v1: IngressClass, Ingress, IPAddress, NetworkPolicy, ServiceCIDR.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// ---- field errors and name formats (apimachinery's wording) ----------------------------------
// Generic: candidates for checks.*.

void forbidden(Causes& causes, const std::string& field, const std::string& detail) {
  add_cause(causes, field, "FieldValueForbidden", "Forbidden: " + detail);
}

void too_long(Causes& causes, const std::string& field, std::int64_t max_bytes) {
  add_cause(causes, field, "FieldValueTooLong",
            "Too long: may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes"));
}

void invalid_each(Causes& causes, const std::string& field, const json& value, const std::vector<std::string>& msgs) {
  for (const auto& msg : msgs) invalid_value(causes, field, value, msg);
}

std::string max_len_error(std::size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length.
bool label_pattern(std::string_view v) {
  if (v.empty() || !lower_alnum(v.front()) || !lower_alnum(v.back())) return false;
  for (char c : v)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

// Dot-separated labels, any length.
bool subdomain_pattern(std::string_view v) {
  for (std::size_t start = 0;;) {
    const auto dot = v.find('.', start);
    if (!label_pattern(v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// validation.IsDNS1123Subdomain.
std::vector<std::string> subdomain_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back(max_len_error(253));
  if (!subdomain_pattern(value)) out.push_back(k_subdomain_help);
  return out;
}

// validation.IsDNS1123Label.
std::vector<std::string> dns_label_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back(max_len_error(63));
  if (!label_pattern(value)) out.push_back(subdomain_pattern(value) ? "must not contain dots" : k_label_help);
  return out;
}

// validation.IsDNS1035Label.
std::vector<std::string> dns1035_label_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back(max_len_error(63));
  if (!label_pattern(value) || !(value.front() >= 'a' && value.front() <= 'z'))
    out.push_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  return out;
}

// validation.IsWildcardDNS1123Subdomain.
std::vector<std::string> wildcard_subdomain_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back(max_len_error(253));
  if (!value.starts_with("*.") || !subdomain_pattern(value.substr(2)))
    out.push_back(
        R"(a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must )"
        R"(consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. )"
        R"('*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*)"
        R"([a-z0-9])?)*'))");
  return out;
}

constexpr const char* k_label_key_pattern =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

bool label_key_name(std::string_view v) {  // ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
  if (v.empty() || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

// validation.IsQualifiedName (a label key).
std::vector<std::string> qualified_name_errors(std::string_view value) {
  std::vector<std::string> out;
  std::string_view name = value;
  if (const auto slash = value.find('/'); slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos)
      return {std::string("a valid label key ") + k_label_key_pattern +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    const auto prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty())
      out.push_back("prefix part must be non-empty");
    else
      for (const auto& msg : subdomain_errors(prefix)) out.push_back("prefix part " + msg);
  }
  if (name.empty())
    out.push_back("name part must be non-empty");
  else if (name.size() > 63)
    out.push_back("name part " + max_len_error(63));
  if (!label_key_name(name)) out.push_back(std::string("name part ") + k_label_key_pattern);
  return out;
}

// validation.IsValidLabelValue.
std::vector<std::string> label_value_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back(max_len_error(63));
  if (!value.empty() && !label_key_name(value))
    out.push_back(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  return out;
}

// metav1validation.ValidateLabelSelector.
void validate_label_selector(Causes& causes, const json& selector, const std::string& path) {
  if (!selector.is_object()) return;
  if (const auto& labels = at(selector, {"matchLabels"}); labels.is_object())
    for (const auto& [key, value] : labels.items()) {
      invalid_each(causes, path + ".matchLabels", key, qualified_name_errors(key));
      invalid_each(causes, path + ".matchLabels", value, label_value_errors(str(value)));
    }
  const auto& expressions = arr(at(selector, {"matchExpressions"}));
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const auto& expr = expressions[i];
    const std::string at_i = path + ".matchExpressions[" + std::to_string(i) + "]";
    const auto op = str(at(expr, {"operator"}));
    const auto& values = arr(at(expr, {"values"}));
    if (op == "In" || op == "NotIn") {
      if (values.empty()) required(causes, at_i + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty())
        forbidden(causes, at_i + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else {
      invalid_value(causes, at_i + ".operator", op, "not a valid selector operator");
    }
    const auto key = str(at(expr, {"key"}));
    invalid_each(causes, at_i + ".key", key, qualified_name_errors(key));
    for (std::size_t v = 0; v < values.size(); ++v)
      invalid_each(causes, at_i + ".values[" + std::to_string(v) + "]", values[v], label_value_errors(str(values[v])));
  }
}

// validation.IsValidPortNum.
std::vector<std::string> port_number_errors(std::int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

// validation.IsValidPortName.
std::vector<std::string> port_name_errors(std::string_view port) {
  std::vector<std::string> out;
  if (port.size() > 15) out.push_back(max_len_error(15));
  bool charset = !port.empty(), letter = false;
  for (char c : port) {
    if (!lower_alnum(c) && c != '-') charset = false;
    if (c >= 'a' && c <= 'z') letter = true;
  }
  if (!charset) out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) out.push_back("must contain at least one letter (a-z)");
  if (port.find("--") != std::string_view::npos) out.push_back("must not contain consecutive hyphens");
  if (!port.empty() && (port.front() == '-' || port.back() == '-'))
    out.push_back("must not begin or end with a hyphen");
  return out;
}

// path.IsValidPathSegmentName: a name that can be a URL path segment.
std::vector<std::string> path_segment_errors(std::string_view name) {
  if (name == "." || name == "..") return {"may not be '" + std::string(name) + "'"};
  std::vector<std::string> out;
  for (const char* bad : {"/", "%"})
    if (name.find(bad) != std::string_view::npos) out.push_back("may not contain '" + std::string(bad) + "'");
  return out;
}

// ---- IP addresses and CIDRs (Go's net and netip parsing rules) --------------------------------

struct Ip {
  std::array<std::uint8_t, 16> bytes{};  // IPv4 in the last four bytes
  bool v4 = false;                       // written as dotted IPv4
  bool mapped = false;                   // an IPv4-mapped IPv6 address (::ffff:a.b.c.d)
  bool leading_zero = false;             // a dotted part with a leading 0, or a group of over four hex
                                         // digits: only sloppy parsing allows them
};

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

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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
    for (; c < s.size() && hex_value(s[c]) >= 0; ++c) n = std::min((n << 4) | hex_value(s[c]), 0xFFFFFF);
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

constexpr const char* k_ip_help = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
constexpr const char* k_cidr_help = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

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

struct Cidr {
  Ip ip;  // as written
  int bits = 0;
  bool prefix_leading_zero = false;

  int first_byte() const { return ip.v4 ? 12 : 0; }
  int last_bit() const { return ip.v4 ? 32 : 128; }
  // The network address: the bits past the prefix cleared.
  Ip network() const {
    Ip net = ip;
    for (int bit = bits; bit < last_bit(); ++bit)
      net.bytes[first_byte() + bit / 8] &= static_cast<std::uint8_t>(~(0x80 >> (bit % 8)));
    return net;
  }
  bool host_bits_set() const { return network().bytes != ip.bytes; }
  // IPNet.Contains: IPv4 and IPv4-mapped addresses compare as IPv4.
  bool contains(const Ip& other) const {
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
};

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

// ---- IngressClass ----------------------------------------------------------------------------

Cells print_ingress_class(const json& ic, TimePoint now) {
  std::string parameters = "<none>";
  if (const auto& p = at(ic, {"spec", "parameters"}); p.is_object()) {
    parameters = str(at(p, {"kind"}));
    if (at(p, {"apiGroup"}).is_string()) parameters += "." + str(at(p, {"apiGroup"}));
    parameters += "/" + str(at(p, {"name"}));
  }
  return {name_of(ic), str(at(ic, {"spec", "controller"})), parameters, age_of(ic, now)};
}

// SetDefaults_IngressClass: parameters are cluster-scoped unless told otherwise.
void default_ingress_class(json& ic) {
  auto& spec = object_member(ic, "spec");
  if (auto it = spec.find("parameters"); it != spec.end() && it->is_object() && !it->contains("scope"))
    (*it)["scope"] = "Cluster";
}

// The apiGroup, kind and name of a reference to a local object (an ingress backend resource,
// an ingress class's parameters).
void validate_local_reference(Causes& causes, const json& ref, const std::string& path) {
  if (const auto& group = at(ref, {"apiGroup"}); group.is_string())
    invalid_each(causes, path + ".apiGroup", group, subdomain_errors(str(group)));
  for (const char* field : {"kind", "name"}) {
    const auto value = str(at(ref, {field}));
    if (value.empty())
      required(causes, path + "." + field, std::string(field) + " is required");
    else
      invalid_each(causes, path + "." + field, value, path_segment_errors(value));
  }
}

void validate_ingress_class(const json& ic, Causes& causes) {
  const auto controller = str(at(ic, {"spec", "controller"}));
  if (controller.size() > 250) too_long(causes, "spec.controller", 250);
  // validation.IsDomainPrefixedPath
  const auto slash = controller.find('/');
  if (controller.empty()) {
    required(causes, "spec.controller");
  } else if (slash == std::string::npos || slash == 0 || slash + 1 == controller.size()) {
    invalid_value(causes, "spec.controller", controller, R"(must be a domain-prefixed path (such as "acme.io/foo"))");
  } else {
    const auto host = controller.substr(0, slash), path = controller.substr(slash + 1);
    invalid_each(causes, "spec.controller", host, subdomain_errors(host));
    constexpr std::string_view k_path_chars =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:";
    if (path.find_first_not_of(k_path_chars) != std::string::npos)
      invalid_value(causes, "spec.controller", path,
                    R"(Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+'))");
  }

  const auto& parameters = at(ic, {"spec", "parameters"});
  if (!parameters.is_object()) return;
  const std::string path = "spec.parameters";
  validate_local_reference(causes, parameters, path);
  const auto& scope = at(parameters, {"scope"});
  const auto& ns = at(parameters, {"namespace"});
  if (scope.is_null())
    required(causes, path + ".scope");
  else if (scope != "Cluster" && scope != "Namespace")
    unsupported(causes, path + ".scope", scope, {"Cluster", "Namespace"});
  else if (scope == "Namespace" && ns.is_null())
    required(causes, path + ".namespace", "`parameters.scope` is set to 'Namespace'");
  else if (scope == "Namespace")
    invalid_each(causes, path + ".namespace", ns, dns_label_errors(str(ns)));
  else if (!ns.is_null())
    forbidden(causes, path + ".namespace", "`parameters.scope` is set to 'Cluster'");
}

void validate_ingress_class_update(const json& ic, const json& old, Causes& causes) {
  immutable(causes, "spec.controller", at(ic, {"spec", "controller"}), at(old, {"spec", "controller"}));
}

KindSpec ingress_class_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "IngressClass",
                   .plural = "ingressclasses",
                   .namespaced = false,
                   .columns = {name_col(),
                               col("Controller", "string", "Controller that is responsible for handling this class"),
                               col("Parameters", "string", "A reference to a resource with additional parameters"),
                               age_col()},
                   .printer = print_ingress_class},
          .strategy = {.defaults = default_ingress_class,
                       .validate = validate_ingress_class,
                       .validate_update = validate_ingress_class_update}};
}

// ---- Ingress ---------------------------------------------------------------------------------

constexpr const char* k_ingress_class_annotation = "kubernetes.io/ingress.class";

// At most three hosts, "*" when no rule names one.
std::string ingress_hosts(const json& rules) {
  std::vector<std::string> hosts;
  bool more = false;
  for (const auto& rule : arr(rules)) {
    if (hosts.size() == 3) more = true;
    if (!more && !str(at(rule, {"host"})).empty()) hosts.push_back(str(at(rule, {"host"})));
  }
  if (hosts.empty()) return "*";
  return more ? join(hosts, ",") + " + " + std::to_string(arr(rules).size() - 3) + " more..." : join(hosts, ",");
}

Cells print_ingress(const json& ing, TimePoint now) {
  const auto& class_name = at(ing, {"spec", "ingressClassName"});
  std::set<std::string> addresses;  // sorted and unique, as Kubernetes' string set
  for (const auto& entry : arr(at(ing, {"status", "loadBalancer", "ingress"}))) {
    if (!str(at(entry, {"ip"})).empty())
      addresses.insert(str(at(entry, {"ip"})));
    else if (!str(at(entry, {"hostname"})).empty())
      addresses.insert(str(at(entry, {"hostname"})));
  }
  return {name_of(ing),
          class_name.is_string() ? str(class_name) : "<none>",
          ingress_hosts(at(ing, {"spec", "rules"})),
          join({addresses.begin(), addresses.end()}, ","),
          arr(at(ing, {"spec", "tls"})).empty() ? "80" : "80, 443",
          age_of(ing, now)};
}

void validate_ingress_backend(Causes& causes, const json& backend, const std::string& path) {
  const auto& resource = at(backend, {"resource"});
  const auto& service = at(backend, {"service"});
  if (resource.is_object() && service.is_object()) {
    invalid_value(causes, path, "", "cannot set both resource and service backends");
  } else if (resource.is_object()) {
    validate_local_reference(causes, resource, path + ".resource");
  } else if (service.is_object()) {
    const auto name = str(at(service, {"name"}));
    if (name.empty())
      required(causes, path + ".service.name");
    else
      invalid_each(causes, path + ".service.name", name, dns1035_label_errors(name));
    const auto port_name = str(at(service, {"port", "name"}));
    const auto& port_number = at(service, {"port", "number"});
    const bool has_number = port_number.is_number() && num(port_number) != 0;
    if (!port_name.empty() && has_number)
      invalid_value(causes, path, "", "cannot set both port name & port number");
    else if (!port_name.empty())
      invalid_each(causes, path + ".service.port.name", port_name, port_name_errors(port_name));
    else if (has_number)
      invalid_each(causes, path + ".service.port.number", port_number, port_number_errors(num(port_number)));
    else
      required(causes, path, "port name or number is required");
  } else {
    invalid_value(causes, path, "", "resource or service backend is required");
  }
}

void validate_ingress_path(Causes& causes, const json& http_path, const std::string& path) {
  const auto& type = at(http_path, {"pathType"});
  if (type.is_null()) {
    required(causes, path + ".pathType", "pathType must be specified");
    return;
  }
  const auto value = str(at(http_path, {"path"}));
  if (type == "Exact" || type == "Prefix") {
    if (!value.starts_with('/')) invalid_value(causes, path + ".path", value, "must be an absolute path");
    if (!value.empty()) {
      for (const char* bad : {"//", "/./", "/../", "%2f", "%2F"})
        if (value.find(bad) != std::string::npos)
          invalid_value(causes, path + ".path", value, "must not contain '" + std::string(bad) + "'");
      for (const char* bad : {"/..", "/."})
        if (value.ends_with(bad))
          invalid_value(causes, path + ".path", value, "cannot end with '" + std::string(bad) + "'");
    }
  } else if (type == "ImplementationSpecific") {
    if (!value.empty() && !value.starts_with('/'))
      invalid_value(causes, path + ".path", value, "must be an absolute path");
  } else {
    unsupported(causes, path + ".pathType", type, {"Exact", "ImplementationSpecific", "Prefix"});
  }
  validate_ingress_backend(causes, at(http_path, {"backend"}), path + ".backend");
}

void validate_ingress_rules(Causes& causes, const json& rules) {
  for (std::size_t i = 0; i < arr(rules).size(); ++i) {
    const auto& rule = rules[i];
    const std::string path = "spec.rules[" + std::to_string(i) + "]";
    if (const auto host = str(at(rule, {"host"})); !host.empty()) {
      if (parse_ip(host)) invalid_value(causes, path + ".host", host, "must be a DNS name, not an IP address");
      invalid_each(causes, path + ".host", host,
                   host.find('*') != std::string::npos ? wildcard_subdomain_errors(host) : subdomain_errors(host));
    }
    const auto& http = at(rule, {"http"});
    if (!http.is_object()) continue;
    const auto& paths = arr(at(http, {"paths"}));
    if (paths.empty()) required(causes, path + ".http.paths");
    for (std::size_t p = 0; p < paths.size(); ++p)
      validate_ingress_path(causes, paths[p], path + ".http.paths[" + std::to_string(p) + "]");
  }
}

void validate_ingress_tls(Causes& causes, const json& tls) {
  for (std::size_t i = 0; i < arr(tls).size(); ++i) {
    const std::string path = "spec.tls[" + std::to_string(i) + "]";
    const auto& hosts = arr(at(tls[i], {"hosts"}));
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const auto host = str(hosts[h]);
      invalid_each(causes, path + ".hosts[" + std::to_string(h) + "]", host,
                   host.find('*') != std::string::npos ? wildcard_subdomain_errors(host) : subdomain_errors(host));
    }
    if (const auto secret = str(at(tls[i], {"secretName"})); !secret.empty())
      invalid_each(causes, path + ".secretName", secret, subdomain_errors(secret));
  }
}

void validate_ingress(const json& ing, Causes& causes) {
  const auto& spec = at(ing, {"spec"});
  const auto& rules = at(spec, {"rules"});
  const auto& default_backend = at(spec, {"defaultBackend"});
  if (arr(rules).empty() && !default_backend.is_object())
    invalid_value(causes, "spec", rules, "either `defaultBackend` or `rules` must be specified");
  if (default_backend.is_object()) validate_ingress_backend(causes, default_backend, "spec.defaultBackend");
  validate_ingress_rules(causes, rules);
  validate_ingress_tls(causes, at(spec, {"tls"}));
  if (const auto& class_name = at(spec, {"ingressClassName"}); class_name.is_string())
    invalid_each(causes, "spec.ingressClassName", class_name, subdomain_errors(str(class_name)));

  // Only checked on create (see validate_ingress_update).
  const auto& annotation = at(ing, {"metadata", "annotations", k_ingress_class_annotation});
  if (annotation.is_string() && at(spec, {"ingressClassName"}).is_string() &&
      annotation != at(spec, {"ingressClassName"}))
    invalid_value(causes, std::string("annotations.") + k_ingress_class_annotation, annotation,
                  "must match `ingressClassName` when both are specified");

  // The load balancer status (ValidateIngressStatusUpdate); spec writes carry the stored status.
  const auto& entries = arr(at(ing, {"status", "loadBalancer", "ingress"}));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string path = "status.loadBalancer.ingress[" + std::to_string(i) + "]";
    if (const auto ip = str(at(entries[i], {"ip"})); !ip.empty() && !parse_ip(ip))
      invalid_value(causes, path + ".ip", ip, k_ip_help);
    if (const auto hostname = str(at(entries[i], {"hostname"})); !hostname.empty()) {
      invalid_each(causes, path + ".hostname", hostname, subdomain_errors(hostname));
      if (parse_ip(hostname))
        invalid_value(causes, path + ".hostname", hostname, "must be a DNS name, not an IP address");
    }
  }
}

// PrepareForCreate: no status yet (its load balancer is always written, as Kubernetes writes it).
void prepare_ingress(json& ing) { ing["status"] = {{"loadBalancer", json::object()}}; }

// Kubernetes checks the ingress class annotation against ingressClassName on create only: an
// update drops that finding of validate_ingress.
void validate_ingress_update(const json&, const json&, Causes& causes) {
  const std::string field = std::string("annotations.") + k_ingress_class_annotation;
  for (auto it = causes.begin(); it != causes.end();)
    if (it->value("field", "") == field)
      it = causes.erase(it);
    else
      ++it;
}

KindSpec ingress_row() {
  return {
      .info = {.group = "networking.k8s.io",
               .version = "v1",
               .kind = "Ingress",
               .plural = "ingresses",
               .short_names = {"ing"},
               .subresources = {"status"},
               .columns = {name_col(),
                           col("Class", "string",
                               "The name of the IngressClass resource that should be used for additional "
                               "configuration"),
                           col("Hosts", "string",
                               "Hosts that incoming requests are matched against before the ingress rule"),
                           col("Address", "string",
                               "Address is a list containing ingress points for the load-balancer"),
                           col("Ports", "string", "Ports of TLS configurations that open"), age_col()},
               .printer = print_ingress},
      .storage_resource = "ingress",
      .strategy = {
          .prepare_create = prepare_ingress, .validate = validate_ingress, .validate_update = validate_ingress_update}};
}

// ---- IPAddress -------------------------------------------------------------------------------

// "<resource>[.<group>][/<namespace>]/<name>", lowercased apart from the names.
Cells print_ip_address(const json& ip, TimePoint now) {
  std::string parent = "<none>";
  if (const auto& ref = at(ip, {"spec", "parentRef"}); ref.is_object()) {
    parent = str(at(ref, {"resource"}));
    if (const auto group = str(at(ref, {"group"})); !group.empty()) parent += "." + group;
    for (char& c : parent)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (const auto ns = str(at(ref, {"namespace"})); !ns.empty()) parent += "/" + ns;
    parent += "/" + str(at(ref, {"name"}));
  }
  // Kubernetes' printer fills an age cell its two columns do not announce.
  return {name_of(ip), parent, age_of(ip, now)};
}

void validate_ip_address(const json& ip, Causes& causes) {
  const auto name = str(at(ip, {"metadata", "name"}));
  invalid_each(causes, "metadata.name", name, strict_ip_errors(name));

  const auto& ref = at(ip, {"spec", "parentRef"});
  if (!ref.is_object()) {
    required(causes, "spec.parentRef");
    return;
  }
  const std::string path = "spec.parentRef";
  if (const auto group = str(at(ref, {"group"})); !group.empty())
    invalid_each(causes, path + ".group", group, subdomain_errors(group));
  for (const char* field : {"resource", "name"}) {
    const auto value = str(at(ref, {field}));
    if (value.empty())
      required(causes, path + "." + field);
    else
      invalid_each(causes, path + "." + field, value, path_segment_errors(value));
  }
  if (const auto ns = str(at(ref, {"namespace"})); !ns.empty())
    invalid_each(causes, path + ".namespace", ns, path_segment_errors(ns));
}

void validate_ip_address_update(const json& ip, const json& old, Causes& causes) {
  immutable(causes, "spec.parentRef", at(ip, {"spec", "parentRef"}), at(old, {"spec", "parentRef"}));
}

KindSpec ip_address_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "IPAddress",
                   .plural = "ipaddresses",
                   .short_names = {"ip"},
                   .namespaced = false,
                   .columns = {name_col(), col("ParentRef", "string",
                                               "ParentRef references the resource that an IPAddress is attached to. An "
                                               "IPAddress must reference a parent object.")},
                   .printer = print_ip_address},
          .strategy = {.validate = validate_ip_address, .validate_update = validate_ip_address_update}};
}

// ---- NetworkPolicy ---------------------------------------------------------------------------

Cells print_network_policy(const json& np, TimePoint now) {
  const auto selector = selector_string(at(np, {"spec", "podSelector"}));
  return {name_of(np), selector.empty() ? std::string("<none>") : selector, age_of(np, now)};
}

// SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort.
void default_network_policy(json& np) {
  auto& spec = object_member(np, "spec");
  for (const char* direction : {"ingress", "egress"})
    if (auto rules = spec.find(direction); rules != spec.end() && rules->is_array())
      for (auto& rule : *rules)
        if (auto ports = rule.find("ports"); rule.is_object() && ports != rule.end() && ports->is_array())
          for (auto& port : *ports)
            if (port.is_object() && (!port.contains("protocol") || port["protocol"].is_null()))
              port["protocol"] = "TCP";
  if (!spec.contains("policyTypes") || !spec["policyTypes"].is_array() || spec["policyTypes"].empty()) {
    spec["policyTypes"] = json::array({"Ingress"});
    if (!arr(spec.value("egress", json())).empty()) spec["policyTypes"].push_back("Egress");
  }
}

void validate_policy_port(Causes& causes, const json& port, const std::string& path) {
  if (const auto& protocol = at(port, {"protocol"});
      !protocol.is_null() && protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
    unsupported(causes, path + ".protocol", protocol, {"TCP", "UDP", "SCTP"});
  const auto& number = at(port, {"port"});
  const auto& end = at(port, {"endPort"});
  if (number.is_number()) {
    invalid_each(causes, path + ".port", number, port_number_errors(num(number)));
    if (end.is_number()) {
      if (num(end) < num(number))
        invalid_value(causes, path + ".endPort", number, "must be greater than or equal to `port`");
      invalid_each(causes, path + ".endPort", end, port_number_errors(num(end)));
    }
  } else if (number.is_string()) {
    if (end.is_number())
      invalid_value(causes, path + ".endPort", end, "may not be specified when `port` is non-numeric");
    invalid_each(causes, path + ".port", number, port_name_errors(str(number)));
  } else if (end.is_number()) {
    invalid_value(causes, path + ".endPort", end, "may not be specified when `port` is not specified");
  }
}

void validate_ip_block(Causes& causes, const json& block, const std::string& path) {
  const auto cidr_text = str(at(block, {"cidr"}));
  if (cidr_text.empty()) {
    required(causes, path + ".cidr");
    return;
  }
  const auto cidr = parse_cidr(cidr_text);
  if (!cidr) {
    invalid_value(causes, path + ".cidr", cidr_text, k_cidr_help);
    return;
  }
  const auto& excepts = arr(at(block, {"except"}));
  for (std::size_t i = 0; i < excepts.size(); ++i) {
    const std::string except_path = path + ".except[" + std::to_string(i) + "]";
    const auto except = parse_cidr(str(excepts[i]));
    if (!except) {
      invalid_value(causes, except_path, excepts[i], k_cidr_help);
      continue;
    }
    if (!cidr->contains(except->network()) || cidr->bits >= except->bits)
      invalid_value(causes, except_path, excepts[i], "must be a strict subset of `cidr`");
  }
}

void validate_policy_peer(Causes& causes, const json& peer, const std::string& path) {
  int peers = 0;
  for (const char* selector : {"podSelector", "namespaceSelector"})
    if (const auto& s = at(peer, {selector}); s.is_object()) {
      ++peers;
      validate_label_selector(causes, s, path + "." + selector);
    }
  const auto& block = at(peer, {"ipBlock"});
  if (block.is_object()) {
    ++peers;
    validate_ip_block(causes, block, path + ".ipBlock");
  }
  if (peers == 0)
    required(causes, path, "must specify a peer");
  else if (peers > 1 && block.is_object())
    forbidden(causes, path, "may not specify both ipBlock and another peer");
}

void validate_network_policy(const json& np, Causes& causes) {
  const auto& spec = at(np, {"spec"});
  validate_label_selector(causes, at(spec, {"podSelector"}), "spec.podSelector");
  for (const auto& [direction, peers] : {std::pair{"ingress", "from"}, std::pair{"egress", "to"}}) {
    const auto& rules = arr(at(spec, {direction}));
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string path = std::string("spec.") + direction + "[" + std::to_string(i) + "]";
      const auto& ports = arr(at(rules[i], {"ports"}));
      for (std::size_t p = 0; p < ports.size(); ++p)
        validate_policy_port(causes, ports[p], path + ".ports[" + std::to_string(p) + "]");
      const auto& others = arr(at(rules[i], {peers}));
      for (std::size_t p = 0; p < others.size(); ++p)
        validate_policy_peer(causes, others[p], path + "." + peers + "[" + std::to_string(p) + "]");
    }
  }
  const auto& types = arr(at(spec, {"policyTypes"}));
  if (types.size() > 2) {
    invalid_value(causes, "spec.policyTypes", types, "may not specify more than two policyTypes");
    return;
  }
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i] != "Ingress" && types[i] != "Egress")
      unsupported(causes, "spec.policyTypes[" + std::to_string(i) + "]", types[i], {"Ingress", "Egress"});
}

KindSpec network_policy_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "NetworkPolicy",
                   .plural = "networkpolicies",
                   .short_names = {"netpol"},
                   .columns = {name_col(),
                               col("Pod-Selector", "string",
                                   "Selects the pods to which this NetworkPolicy object applies.  The array of ingress "
                                   "rules is applied to any pods selected by this field. Multiple network policies can "
                                   "select the same set of pods.  In this case, the ingress rules for each are "
                                   "combined additively. This field is NOT optional and follows standard label "
                                   "selector semantics. An empty podSelector matches all pods in this namespace."),
                               age_col()},
                   .printer = print_network_policy},
          .strategy = {.defaults = default_network_policy, .validate = validate_network_policy}};
}

// ---- ServiceCIDR -----------------------------------------------------------------------------

Cells print_service_cidr(const json& sc, TimePoint now) {
  std::vector<std::string> cidrs;
  for (const auto& cidr : arr(at(sc, {"spec", "cidrs"}))) cidrs.push_back(str(cidr));
  return {name_of(sc), join(cidrs, ","), age_of(sc, now)};
}

// PrepareForCreate: no status yet.
void prepare_service_cidr(json& sc) { sc["status"] = json::object(); }

void validate_service_cidr_spec(Causes& causes, const json& cidrs) {
  const std::string path = "spec.cidrs";
  if (arr(cidrs).empty()) {
    required(causes, path, "at least one CIDR required");
    return;
  }
  if (cidrs.size() > 2) {
    invalid_value(causes, path, json{{"cidrs", cidrs}}, "may only hold up to 2 values");
    return;
  }
  for (std::size_t i = 0; i < cidrs.size(); ++i)
    invalid_each(causes, path + "[" + std::to_string(i) + "]", cidrs[i], strict_cidr_errors(str(cidrs[i])));
  if (cidrs.size() == 2) {
    const auto a = parse_cidr(str(cidrs[0])), b = parse_cidr(str(cidrs[1]));
    if (a && b && a->ip.v4 == b->ip.v4)
      invalid_value(causes, path, cidrs,
                    "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64");
  }
}

void validate_service_cidr(const json& sc, Causes& causes) {
  validate_service_cidr_spec(causes, at(sc, {"spec", "cidrs"}));
}

// The CIDRs cannot change, except that a single-stack ServiceCIDR may gain a second family.
void validate_service_cidr_update(const json& sc, const json& old, Causes& causes) {
  const auto& now = arr(at(sc, {"spec", "cidrs"}));
  const auto& before = arr(at(old, {"spec", "cidrs"}));
  if (now.size() == before.size()) {
    for (std::size_t i = 0; i < now.size(); ++i)
      if (now[i] != before[i])
        invalid_value(causes, "spec.cidrs[" + std::to_string(i) + "]", now[i], "field is immutable");
  } else if (before.size() == 1 && now.size() == 2) {
    if (now[0] != before[0]) invalid_value(causes, "spec.cidrs[0]", now[0], "field is immutable");
  } else {
    invalid_value(causes, "spec.cidrs", now, "field is immutable");
  }
}

KindSpec service_cidr_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "ServiceCIDR",
                   .plural = "servicecidrs",
                   .namespaced = false,
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("CIDRs", "string",
                                   "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or "
                                   "\"2001:db8::/64\") from which to assign service cluster IPs. Max of two CIDRs is "
                                   "allowed, one of each IP family. This field is immutable."),
                               age_col()},
                   .printer = print_service_cidr},
          .strategy = {.prepare_create = prepare_service_cidr,
                       .validate = validate_service_cidr,
                       .validate_update = validate_service_cidr_update}};
}

}  // namespace

std::vector<KindSpec> networking_v1_kinds() {
  return {ingress_class_row(), ingress_row(), ip_address_row(), network_policy_row(), service_cidr_row()};
}

}  // namespace kw::kinds
