#include "server/registry/kinds/checks.hpp"

#include <cctype>

#include "core/api/print_support.hpp"

namespace kw::kinds {
namespace {

using api::print::at;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool name_part(std::string_view v) {  // the name of a qualified name
  if (v.empty() || v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

const char* const k_subdomain_help =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* const k_label_help =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

void add_cause(Causes& causes, const std::string& field, const std::string& reason, const std::string& message) {
  causes.push_back({{"reason", reason}, {"message", message}, {"field", field}});
}

void invalid_value(Causes& causes, const std::string& field, const nlohmann::json& value, const std::string& why) {
  add_cause(causes, field, "FieldValueInvalid", "Invalid value: " + value.dump() + ": " + why);
}

void required(Causes& causes, const std::string& field, const std::string& detail) {
  add_cause(causes, field, "FieldValueRequired", detail.empty() ? "Required value" : "Required value: " + detail);
}

void unsupported(Causes& causes, const std::string& field, const nlohmann::json& value,
                 std::initializer_list<std::string_view> supported) {
  std::string list;
  for (std::string_view s : supported) list += (list.empty() ? "\"" : ", \"") + std::string(s) + "\"";
  add_cause(causes, field, "FieldValueNotSupported",
            "Unsupported value: " + value.dump() + ": supported values: " + list);
}

void immutable(Causes& causes, const std::string& field, const nlohmann::json& now, const nlohmann::json& before) {
  if (now != before) invalid_value(causes, field, now, "field is immutable");
}

void non_negative(Causes& causes, const std::string& field, const nlohmann::json& value, bool positive) {
  if (!value.is_number()) return;
  const double v = value.get<double>();
  if (positive && v <= 0) invalid_value(causes, field, value, "must be greater than 0");
  else if (!positive && v < 0) invalid_value(causes, field, value, "must be greater than or equal to 0");
}

bool is_dns1123_label(std::string_view v) {
  if (v.empty() || v.size() > 63 || !lower_alnum(v.front()) || !lower_alnum(v.back())) return false;
  for (char c : v)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

bool is_dns1123_subdomain(std::string_view v) {
  if (v.empty() || v.size() > 253) return false;
  std::size_t start = 0;
  for (;;) {
    const auto dot = v.find('.', start);
    const auto part = v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_qualified_name(std::string_view v) {
  const auto slash = v.find('/');
  if (slash == std::string_view::npos) return name_part(v);
  return is_dns1123_subdomain(v.substr(0, slash)) && name_part(v.substr(slash + 1));
}

bool is_label_value(std::string_view v) { return v.empty() || name_part(v); }

nlohmann::json& object_member(nlohmann::json& parent, const char* key) {
  auto& child = parent[key];
  if (!child.is_object()) child = nlohmann::json::object();
  return child;
}

void validate_containers(Causes& causes, const nlohmann::json& pod_spec, const std::string& path) {
  const auto& containers = at(pod_spec, {"containers"});
  if (!containers.is_array() || containers.empty()) {
    required(causes, path + ".containers");
    return;
  }
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const auto& c = containers[i];
    const std::string field = path + ".containers[" + std::to_string(i) + "]";
    if (!c.is_object()) {
      invalid_value(causes, field, c, "must be an object");
      continue;
    }
    const auto name = c.value("name", std::string());
    if (name.empty()) required(causes, field + ".name");
    else if (!is_dns1123_label(name)) invalid_value(causes, field + ".name", name, k_label_help);
    if (c.value("image", std::string()).empty()) required(causes, field + ".image");
  }
}

void validate_selector_and_template(Causes& causes, const nlohmann::json& spec, const std::string& path) {
  const auto& selector = at(spec, {"selector"});
  if (!selector.is_object()) {
    required(causes, path + ".selector");
    return;
  }
  const auto& labels = at(spec, {"template", "metadata", "labels"});
  const auto& wanted = at(selector, {"matchLabels"});
  if (wanted.is_object())
    for (const auto& [key, value] : wanted.items())
      if (!labels.is_object() || !labels.contains(key) || labels[key] != value) {
        invalid_value(causes, path + ".template.metadata.labels", labels.is_null() ? nlohmann::json::object() : labels,
                      "`selector` does not match template `labels`");
        break;
      }
  validate_containers(causes, at(spec, {"template", "spec"}), path + ".template.spec");
}

}  // namespace kw::kinds
