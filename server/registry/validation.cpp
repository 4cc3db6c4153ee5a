#include "server/registry/validation.hpp"

#include <cctype>

namespace kw::registry {
namespace {

constexpr std::size_t k_max_annotations_bytes = 256 * 1024;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

const char* const k_subdomain_help =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* const k_label_help =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

void add_cause(nlohmann::json& causes, const std::string& field, const std::string& reason,
               const std::string& message) {
  causes.push_back({{"reason", reason}, {"message", message}, {"field", field}});
}

void invalid_value(nlohmann::json& causes, const std::string& field, const nlohmann::json& value,
                   const std::string& why) {
  add_cause(causes, field, "FieldValueInvalid", "Invalid value: " + value.dump() + ": " + why);
}

void required(nlohmann::json& causes, const std::string& field) {
  add_cause(causes, field, "FieldValueRequired", "Required value");
}

bool name_part(std::string_view v) {  // the name of a qualified name
  if (v.empty() || v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

void validate_string_map(nlohmann::json& causes, const nlohmann::json& map, const std::string& field,
                         bool values_are_labels) {
  if (map.is_null()) return;
  if (!map.is_object()) {
    invalid_value(causes, field, map, "must be a map of strings");
    return;
  }
  std::size_t total = 0;
  for (const auto& [key, value] : map.items()) {
    if (!is_qualified_name(key))
      invalid_value(causes, field, key,
                    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                    "with an alphanumeric character, with an optional DNS subdomain prefix and '/'");
    if (!value.is_string()) {
      invalid_value(causes, field + "[" + key + "]", value, "must be a string");
      continue;
    }
    const auto& text = value.get_ref<const std::string&>();
    total += key.size() + text.size();
    if (values_are_labels && !is_label_value(text))
      invalid_value(causes, field, text,
                    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character, at most 63 characters");
  }
  if (!values_are_labels && total > k_max_annotations_bytes)
    add_cause(causes, field, "FieldValueTooLong",
              "Too long: must have at most " + std::to_string(k_max_annotations_bytes) + " bytes");
}

void validate_containers(nlohmann::json& causes, const nlohmann::json& spec, const std::string& path) {
  const auto containers = spec.find("containers");
  if (containers == spec.end() || !containers->is_array() || containers->empty()) {
    required(causes, path + ".containers");
    return;
  }
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const auto& c = (*containers)[i];
    const std::string at = path + ".containers[" + std::to_string(i) + "]";
    if (!c.is_object()) {
      invalid_value(causes, at, c, "must be an object");
      continue;
    }
    const auto name = c.value("name", std::string());
    if (name.empty()) required(causes, at + ".name");
    else if (!is_dns1123_label(name)) invalid_value(causes, at + ".name", name, k_label_help);
    if (c.value("image", std::string()).empty()) required(causes, at + ".image");
  }
}

void validate_spec(const api::ResourceInfo& info, const nlohmann::json& object, nlohmann::json& causes) {
  if (info.custom) return;  // a custom resource's spec is its CRD schema's business
  const auto& spec = object.contains("spec") && object["spec"].is_object() ? object["spec"] : nlohmann::json();
  if (info.kind == "Pod") {
    if (spec.is_null()) required(causes, "spec");
    else validate_containers(causes, spec, "spec");
  } else if (info.kind == "Deployment" || info.kind == "ReplicaSet" || info.kind == "StatefulSet" ||
             info.kind == "DaemonSet") {
    if (spec.is_null() || !spec.contains("selector")) {
      required(causes, "spec.selector");
      return;
    }
    const auto& tmpl = spec.value("template", nlohmann::json::object());
    const auto& labels = tmpl.value("metadata", nlohmann::json::object()).value("labels", nlohmann::json::object());
    const auto& wanted = spec["selector"].value("matchLabels", nlohmann::json::object());
    for (const auto& [k, v] : wanted.items())
      if (!labels.contains(k) || labels[k] != v) {
        invalid_value(causes, "spec.template.metadata.labels", labels,
                      "`selector` does not match template `labels`");
        break;
      }
    validate_containers(causes, tmpl.value("spec", nlohmann::json::object()), "spec.template.spec");
  }
}

}  // namespace

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

nlohmann::json validate_object(const api::ResourceInfo& info, const nlohmann::json& object) {
  nlohmann::json causes = nlohmann::json::array();
  const auto& meta = object.value("metadata", nlohmann::json::object());
  const auto name = meta.value("name", std::string());
  const bool label_names = !info.custom && (info.kind == "Namespace" || info.kind == "Service");
  if (name.empty()) required(causes, "metadata.name");
  else if (label_names ? !is_dns1123_label(name) : !is_dns1123_subdomain(name))
    invalid_value(causes, "metadata.name", name, label_names ? k_label_help : k_subdomain_help);
  validate_string_map(causes, meta.value("labels", nlohmann::json()), "metadata.labels", true);
  validate_string_map(causes, meta.value("annotations", nlohmann::json()), "metadata.annotations", false);
  validate_spec(info, object, causes);
  return causes;
}

std::optional<std::string> normalize_meta_types(nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  // null = absent; else the value must be of the expected shape.
  auto check = [](nlohmann::json& parent, const char* key, const std::string& path,
                  auto&& valid, const char* expected) -> std::optional<std::string> {
    const auto it = parent.find(key);
    if (it == parent.end()) return std::nullopt;
    if (it->is_null()) {
      parent.erase(it);
      return std::nullopt;
    }
    if (!valid(*it)) return path + ": expected " + expected;
    return std::nullopt;
  };
  const auto is_string = [](const nlohmann::json& v) { return v.is_string(); };
  const auto is_string_map = [](const nlohmann::json& v) {
    if (!v.is_object()) return false;
    for (const auto& item : v)
      if (!item.is_string()) return false;
    return true;
  };
  const auto is_string_list = [](const nlohmann::json& v) {
    if (!v.is_array()) return false;
    for (const auto& item : v)
      if (!item.is_string()) return false;
    return true;
  };
  for (const char* key : {"kind", "apiVersion"})
    if (auto wrong = check(object, key, key, is_string, "a string")) return wrong;
  if (auto wrong = check(object, "metadata", "metadata", [](const nlohmann::json& v) { return v.is_object(); },
                         "an object"))
    return wrong;
  const auto meta = object.find("metadata");
  if (meta == object.end()) return std::nullopt;
  for (const char* key : {"name", "generateName", "namespace", "uid", "resourceVersion", "selfLink",
                          "creationTimestamp", "deletionTimestamp"})
    if (auto wrong = check(*meta, key, std::string("metadata.") + key, is_string, "a string")) return wrong;
  for (const char* key : {"labels", "annotations"})
    if (auto wrong = check(*meta, key, std::string("metadata.") + key, is_string_map, "a map of strings"))
      return wrong;
  if (auto wrong = check(*meta, "finalizers", "metadata.finalizers", is_string_list, "a list of strings"))
    return wrong;
  return std::nullopt;
}

}  // namespace kw::registry
