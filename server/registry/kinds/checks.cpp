// Field errors, Go's rendering of values in them, and the JSON helpers of the rows (checks.hpp).
#include "server/registry/kinds/checks.hpp"

#include <algorithm>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "core/util/text.hpp"

namespace kw::kinds {

using api::print::arr;
using api::print::at;
using api::print::str;
using nlohmann::json;

// ---- field errors ----------------------------------------------------------------------------

void add_cause(Causes& causes, const std::string& field, const std::string& reason, const std::string& message) {
  causes.push_back({{"reason", reason}, {"message", message}, {"field", field}});
}

void invalid_value(Causes& causes, const std::string& field, const json& value, const std::string& why) {
  invalid_rendered(causes, field, value.dump(), why);
}

void invalid_rendered(Causes& causes, const std::string& field, const std::string& rendered, const std::string& why) {
  add_cause(causes, field, "FieldValueInvalid", "Invalid value: " + rendered + (why.empty() ? "" : ": " + why));
}

void invalid_each(Causes& causes, const std::string& field, const json& value, const std::vector<std::string>& whys) {
  for (const auto& why : whys) invalid_value(causes, field, value, why);
}

void required(Causes& causes, const std::string& field, const std::string& detail) {
  add_cause(causes, field, "FieldValueRequired", detail.empty() ? "Required value" : "Required value: " + detail);
}

void unsupported(Causes& causes, const std::string& field, const json& value,
                 std::initializer_list<std::string_view> supported) {
  unsupported_rendered(causes, field, value.dump(), std::span(supported.begin(), supported.size()));
}

void unsupported(Causes& causes, const std::string& field, const json& value,
                 std::span<const std::string_view> supported) {
  unsupported_rendered(causes, field, value.dump(), supported);
}

void unsupported_rendered(Causes& causes, const std::string& field, const std::string& rendered,
                          std::initializer_list<std::string_view> supported) {
  unsupported_rendered(causes, field, rendered, std::span(supported.begin(), supported.size()));
}

void unsupported_rendered(Causes& causes, const std::string& field, const std::string& rendered,
                          std::span<const std::string_view> supported) {
  std::string list;
  for (std::string_view s : supported) list += (list.empty() ? "\"" : ", \"") + std::string(s) + "\"";
  add_cause(causes, field, "FieldValueNotSupported", "Unsupported value: " + rendered + ": supported values: " + list);
}

void forbidden(Causes& causes, const std::string& field, const std::string& detail) {
  add_cause(causes, field, "FieldValueForbidden", "Forbidden: " + detail);
}

void duplicate(Causes& causes, const std::string& field, const json& value) {
  duplicate_rendered(causes, field, value.dump());
}

void duplicate_rendered(Causes& causes, const std::string& field, const std::string& rendered) {
  add_cause(causes, field, "FieldValueDuplicate", "Duplicate value: " + rendered);
}

void too_long(Causes& causes, const std::string& field, std::size_t max_bytes) {
  add_cause(causes, field, "FieldValueTooLong",
            "Too long: may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes"));
}

void too_many(Causes& causes, const std::string& field, std::size_t actual, std::size_t max) {
  add_cause(causes, field, "FieldValueTooMany",
            "Too many: " + std::to_string(actual) + ": must have at most " + std::to_string(max) + " items");
}

void immutable(Causes& causes, const std::string& field, const json& now, const json& before) {
  if (now != before) invalid_value(causes, field, now, "field is immutable");
}

void non_negative(Causes& causes, const std::string& field, const json& value, bool positive) {
  if (!value.is_number()) return;
  const double v = value.get<double>();
  if (positive && v <= 0)
    invalid_value(causes, field, value, "must be greater than 0");
  else if (!positive && v < 0)
    invalid_value(causes, field, value, "must be greater than or equal to 0");
}

void non_negative_status(Causes& causes, const json& status, std::initializer_list<const char*> fields) {
  for (const char* field : fields) non_negative(causes, std::string("status.") + field, at(status, {field}));
}

void not_above_status(Causes& causes, const json& status, const char* field, const char* limit,
                      const std::string& what) {
  const json& value = at(status, {field});
  if (api::print::num(value) > api::print::num(at(status, {limit})))
    invalid_value(causes, std::string("status.") + field, value, "cannot be greater than " + what);
}

void validate_replica_counts(Causes& causes, const json& status) {
  non_negative_status(causes, status,
                      {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"});
  for (const char* field : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"})
    not_above_status(causes, status, field, "replicas", "status.replicas");
  not_above_status(causes, status, "availableReplicas", "readyReplicas", "readyReplicas");
}

void collision_count_not_decremented(Causes& causes, const json& object, const json& old) {
  // IsDecremented: a count that was set goes down, or goes away (then reported as 0).
  const json& before = at(old, {"status", "collisionCount"});
  const json& now = at(object, {"status", "collisionCount"});
  if (before.is_number() && (!now.is_number() || api::print::num(now) < api::print::num(before)))
    invalid_value(causes, "status.collisionCount", api::print::num(now), "cannot be decremented");
}

// ---- paths and JSON helpers --------------------------------------------------------------------

bool has_surrounding_space(std::string_view text) {
  constexpr std::string_view space = " \t\n\v\f\r";
  return !text.empty() && (space.find(text.front()) != std::string_view::npos ||
                           space.find(text.back()) != std::string_view::npos);
}

bool has_backsteps(std::string_view path) {
  for (std::size_t start = 0;;) {
    const auto slash = path.find('/', start);
    if (path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start) == "..")
      return true;
    if (slash == std::string_view::npos) return false;
    start = slash + 1;
  }
}

void no_backsteps(Causes& causes, const std::string& field, const std::string& path) {
  if (has_backsteps(path)) invalid_value(causes, field, path, "must not contain '..'");
}

void local_descending_path(Causes& causes, const std::string& field, const std::string& path) {
  if (path.starts_with('/')) invalid_value(causes, field, path, "must be a relative path");
  no_backsteps(causes, field, path);
}

std::string index_path(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string key_path(const std::string& path, std::string_view key) { return path + "[" + std::string(key) + "]"; }

json& object_member(json& parent, const char* key) {
  auto& child = parent[key];
  if (!child.is_object()) child = json::object();
  return child;
}

bool unset(const json& parent, const char* key) {
  return !parent.is_object() || !parent.contains(key) || parent[key].is_null();
}

void default_value(json& parent, const char* key, const json& value) {
  if (parent.is_object() && unset(parent, key)) parent[key] = value;
}

void default_string(json& parent, const char* key, const char* value) {
  if (parent.is_object() && str(api::print::at(parent, {key})).empty()) parent[key] = value;
}

bool one_of(std::string_view value, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool empty_value(const json& value) {
  return value.is_null() || ((value.is_array() || value.is_object()) && value.empty());
}

bool semantic_equal(const json& a, const json& b, bool quantities) {
  if (empty_value(a) && empty_value(b)) return true;
  if (quantities && a.is_string() && b.is_string()) {
    const auto left = api::canonical_quantity(a), right = api::canonical_quantity(b);
    if (left && right) return *left == *right;
  }
  if (a.is_number() && b.is_number()) return a == b;  // 30 read from JSON or from protobuf
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    for (const auto& [key, value] : a.items())
      if (!semantic_equal(value, api::at(b, {key}), quantities || key == "resources")) return false;
    for (const auto& [key, value] : b.items())
      if (!a.contains(key) && !empty_value(value)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!semantic_equal(a[i], b[i], quantities)) return false;
    return true;
  }
  return a == b;
}

bool contains_wildcard(const json& list) {
  return std::ranges::any_of(arr(list), [](const json& item) { return item == "*"; });
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const auto at = text.find(separator, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// ---- Go's rendering of values in field errors --------------------------------------------------

std::string go_quoted(const json& value) { return util::go_quote(str(value)); }

std::string go_slice(const json& list, std::string_view type) {
  if (!list.is_array()) return "[]" + std::string(type) + "(nil)";
  std::string out = "[]" + std::string(type) + "{";
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + go_quoted(list[i]);
  return out + "}";
}

std::string go_bytes(std::string_view bytes) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out = "[]byte{";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += i ? ", 0x" : "0x";
    out += k_hex[b >> 4];
    out += k_hex[b & 15];
  }
  return out + "}";
}

std::string go_string_map(const json& map) {
  if (!map.is_object()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [key, value] : map.items()) {  // nlohmann objects iterate in key order, as %#v prints
    out += (first ? "" : ", ") + util::go_quote(key) + ":" + go_quoted(value);
    first = false;
  }
  return out + "}";
}

std::string go_label_selector(const json& selector) {
  const json& expressions = at(selector, {"matchExpressions"});
  std::string out = "v1.LabelSelector{MatchLabels:" + go_string_map(at(selector, {"matchLabels"})) + ", MatchExpressions:";
  if (!expressions.is_array()) return out + "[]v1.LabelSelectorRequirement(nil)}";
  out += "[]v1.LabelSelectorRequirement{";
  for (std::size_t i = 0; i < expressions.size(); ++i)
    out += std::string(i ? ", " : "") + "v1.LabelSelectorRequirement{Key:" + go_quoted(at(expressions[i], {"key"})) +
           ", Operator:" + go_quoted(at(expressions[i], {"operator"})) +
           ", Values:" + go_slice(at(expressions[i], {"values"})) + "}";
  return out + "}}";
}

}  // namespace kw::kinds
