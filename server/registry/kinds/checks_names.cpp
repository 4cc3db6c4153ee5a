// apimachinery's name formats (k8s.io/apimachinery/pkg/util/validation and
// api/validation/path), with their exact messages (checks.hpp).
#include <algorithm>

#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {
namespace {

using nlohmann::json;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length.
bool label_shape(std::string_view v) {
  if (v.empty() || !lower_alnum(v.front()) || !lower_alnum(v.back())) return false;
  return std::ranges::all_of(v, [](char c) { return lower_alnum(c) || c == '-'; });
}

// Labels joined by dots, any length.
bool subdomain_shape(std::string_view v) { return std::ranges::all_of(split(v, '.'), label_shape); }

// _?[a-z0-9]([-_a-z0-9]*[a-z0-9])?, any length: a label that may also hold underscores, and start
// with one.
bool underscore_label_shape(std::string_view v) {
  if (v.starts_with('_')) v.remove_prefix(1);
  if (v.empty() || !lower_alnum(v.front()) || !lower_alnum(v.back())) return false;
  return std::ranges::all_of(v, [](char c) { return lower_alnum(c) || c == '-' || c == '_'; });
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]: the name part of a qualified name and the shape of a
// non-empty label value, any length.
bool name_shape(std::string_view v) {
  if (v.empty() || !ascii_alnum(v.front()) || !ascii_alnum(v.back())) return false;
  return std::ranges::all_of(v, [](char c) { return ascii_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

const char* const k_qualified_name_help =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const char* const k_label_value_help =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const char* const k_wildcard_subdomain_help =
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
    "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', "
    "regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// IsDNS1123Subdomain's message, with the characters a name may hold. Both subdomain checks quote
// the strict regex: Kubernetes 1.33 names it even where it matched a relaxed one.
std::string subdomain_message(std::string_view characters) {
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, " +
         std::string(characters) +
         ", and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
         "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

}  // namespace

const std::string k_subdomain_help = subdomain_message("'-' or '.'");
const char* const k_label_help =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char* const k_dns1035_help =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')";

std::string max_len_error(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::vector<std::string> subdomain_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  if (!subdomain_shape(v)) out.emplace_back(k_subdomain_help);
  return out;
}

std::vector<std::string> underscore_subdomain_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  if (!std::ranges::all_of(split(v, '.'), underscore_label_shape)) out.push_back(subdomain_message("'_', '-' or '.'"));
  return out;
}

std::vector<std::string> dns1123_label_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  // A valid subdomain that is not a valid label (length is checked above) has dots.
  if (!label_shape(v)) out.emplace_back(subdomain_shape(v) ? "must not contain dots" : k_label_help);
  return out;
}

std::vector<std::string> dns1035_label_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  if (!label_shape(v) || v.front() < 'a' || v.front() > 'z') out.emplace_back(k_dns1035_help);
  return out;
}

std::vector<std::string> wildcard_subdomain_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  if (!v.starts_with("*.") || !subdomain_shape(v.substr(2))) out.emplace_back(k_wildcard_subdomain_help);
  return out;
}

std::vector<std::string> qualified_name_errors(std::string_view value) {
  const auto parts = split(value, '/');
  if (parts.size() > 2)
    return {std::string("a qualified name ") + k_qualified_name_help +
            " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
  std::vector<std::string> out;
  const std::string_view name = parts.back();
  if (parts.size() == 2) {
    if (parts[0].empty())
      out.emplace_back("prefix part must be non-empty");
    else
      for (const auto& message : subdomain_errors(parts[0])) out.push_back("prefix part " + message);
  }
  if (name.empty())
    out.emplace_back("name part must be non-empty");
  else if (name.size() > 63)
    out.push_back("name part " + max_len_error(63));
  if (!name_shape(name)) out.push_back(std::string("name part ") + k_qualified_name_help);
  return out;
}

std::vector<std::string> label_value_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  if (!v.empty() && !name_shape(v)) out.emplace_back(k_label_value_help);
  return out;
}

std::vector<std::string> path_segment_errors(std::string_view v) {
  if (v == "." || v == "..") return {"may not be '" + std::string(v) + "'"};
  std::vector<std::string> out;
  for (std::string_view bad : {"/", "%"})
    if (v.find(bad) != std::string_view::npos) out.push_back("may not contain '" + std::string(bad) + "'");
  return out;
}

std::vector<std::string> config_key_errors(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  const auto key_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  };
  if (v.empty() || !std::ranges::all_of(v, key_char))
    out.emplace_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
        "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  if (v == "." || v == "..")
    out.push_back("must not be '" + std::string(v) + "'");
  else if (v.starts_with(".."))
    out.emplace_back("must not start with '..'");
  return out;
}

std::vector<std::string> port_name_errors(std::string_view port) {
  std::vector<std::string> out;
  if (port.size() > 15) out.push_back(max_len_error(15));
  const bool charset = !port.empty() && std::ranges::all_of(port, [](char c) { return lower_alnum(c) || c == '-'; });
  if (!charset) out.emplace_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (std::ranges::none_of(port, [](char c) { return c >= 'a' && c <= 'z'; }))
    out.emplace_back("must contain at least one letter (a-z)");
  if (port.find("--") != std::string_view::npos) out.emplace_back("must not contain consecutive hyphens");
  if (!port.empty() && (port.front() == '-' || port.back() == '-'))
    out.emplace_back("must not begin or end with a hyphen");
  return out;
}

std::vector<std::string> port_number_errors(std::int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

bool is_dns1123_label(std::string_view v) { return dns1123_label_errors(v).empty(); }
bool is_dns1123_subdomain(std::string_view v) { return subdomain_errors(v).empty(); }
bool is_qualified_name(std::string_view v) { return qualified_name_errors(v).empty(); }
bool is_label_value(std::string_view v) { return label_value_errors(v).empty(); }

void subdomain_field(Causes& causes, const std::string& field, const json& value) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) return;
  invalid_each(causes, field, value, subdomain_errors(value.get_ref<const std::string&>()));
}

void label_field(Causes& causes, const std::string& field, const json& value) {
  if (!value.is_string()) return;
  invalid_each(causes, field, value, dns1123_label_errors(value.get_ref<const std::string&>()));
}

void validate_csi_driver_name(Causes& causes, const std::string& field, const std::string& name) {
  if (name.empty()) required(causes, field);
  if (name.size() > 63) too_long(causes, field, 63);
  invalid_each(causes, field, name, subdomain_errors(util::to_lower(name)));
}

}  // namespace kw::kinds
