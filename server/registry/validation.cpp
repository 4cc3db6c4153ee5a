#include "server/registry/validation.hpp"

#include <algorithm>

#include "core/codec/json_limits.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::registry {
namespace {

using namespace kinds;

constexpr std::size_t k_max_annotations_bytes = 256 * 1024;

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

// kube's path.IsValidPathSegmentName: the name must stay one segment of the URL.
void validate_path_segment_name(nlohmann::json& causes, const std::string& name) {
  if (name == "." || name == "..") return invalid_value(causes, "metadata.name", name, "may not be '" + name + "'");
  for (const char* bad : {"/", "%"})
    if (name.find(bad) != std::string::npos)
      return invalid_value(causes, "metadata.name", name, std::string("may not contain '") + bad + "'");
}

}  // namespace

nlohmann::json validate_object(const kinds::KindSpec* spec, const nlohmann::json& object, bool create) {
  nlohmann::json causes = nlohmann::json::array();
  const auto& meta = object.value("metadata", nlohmann::json::object());
  const auto name = meta.value("name", std::string());
  const auto rule = spec ? spec->name_rule : kinds::NameRule::subdomain;
  if (name.empty()) required(causes, "metadata.name");
  else if (rule == kinds::NameRule::path_segment) validate_path_segment_name(causes, name);
  else if (rule == kinds::NameRule::dns1035_label)
    invalid_each(causes, "metadata.name", name, dns1035_label_errors(name));
  else if (rule == kinds::NameRule::label && !is_dns1123_label(name))
    invalid_value(causes, "metadata.name", name, k_label_help);
  else if (rule == kinds::NameRule::subdomain && !is_dns1123_subdomain(name))
    invalid_value(causes, "metadata.name", name, k_subdomain_help);
  validate_string_map(causes, meta.value("labels", nlohmann::json()), "metadata.labels", true);
  validate_string_map(causes, meta.value("annotations", nlohmann::json()), "metadata.annotations", false);
  if (!spec) return causes;
  if (create && spec->strategy.validate_create) spec->strategy.validate_create(object, causes);
  else if (spec->strategy.validate) spec->strategy.validate(object, causes);
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

std::vector<std::string> field_problems(const std::vector<std::string>& duplicates,
                                        const std::vector<std::string>& unknown_warnings, bool typed,
                                        std::string_view json_body) {
  constexpr std::string_view unknown_lead = "unknown field \"";
  constexpr std::string_view duplicate_lead = "duplicate field \"";
  // The P of `lead`P", or nothing.
  auto field_of = [](std::string_view problem, std::string_view lead) -> std::optional<std::string_view> {
    if (!problem.starts_with(lead) || problem.size() <= lead.size()) return std::nullopt;
    return problem.substr(lead.size(), problem.size() - lead.size() - 1);
  };
  auto inside_unknown = [&](const std::string& path) {
    return std::ranges::any_of(unknown_warnings, [&](const std::string& warning) {
      const auto field = field_of(warning, unknown_lead);
      return field && (path == *field || (path.starts_with(*field) && path.size() > field->size() &&
                                          (path[field->size()] == '.' || path[field->size()] == '[')));
    });
  };
  std::vector<std::string> out;
  for (const auto& path : duplicates)
    if (!typed || !inside_unknown(path)) out.push_back(std::string(duplicate_lead) + path + "\"");
  out.insert(out.end(), unknown_warnings.begin(), unknown_warnings.end());
  if (!typed) return out;
  if (out.size() > 1 && !json_body.empty()) {
    // Where the decoder meets each: an unknown field at its member, a repeat at its second.
    const auto paths = codec::member_paths(json_body);
    auto rank = [&](const std::string& problem) {
      const auto unknown = field_of(problem, unknown_lead);
      const auto duplicate = unknown ? std::nullopt : field_of(problem, duplicate_lead);
      int seen = 0;
      for (std::size_t i = 0; i < paths.size(); ++i)
        if ((unknown && paths[i] == *unknown) || (duplicate && paths[i] == *duplicate && ++seen == 2)) return i;
      return paths.size();
    };
    std::vector<std::pair<std::size_t, std::string>> ranked;
    for (auto& problem : out) ranked.emplace_back(rank(problem), std::move(problem));
    std::ranges::stable_sort(ranked, {}, &std::pair<std::size_t, std::string>::first);
    out.clear();
    for (auto& [at, problem] : ranked) out.push_back(std::move(problem));
  }
  constexpr std::size_t k_max_problems = 100;  // the typed decoder stops keeping them there
  if (out.size() > k_max_problems) out.resize(k_max_problems);
  return out;
}

ApiError strict_decoding_error(const std::vector<std::string>& problems) {
  std::string message = "strict decoding error: ";
  for (std::size_t i = 0; i < problems.size(); ++i) message += (i ? ", " : "") + problems[i];
  return bad_request(message);
}

}  // namespace kw::registry
