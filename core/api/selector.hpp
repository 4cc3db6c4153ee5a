#pragma once
// Label and field selectors with Kubernetes' syntax and matching rules
// (k8s.io/apimachinery pkg/labels and pkg/fields). Pure values: parse once, match many.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/util/error.hpp"

namespace kw::api {

enum class LabelOperator { equals, not_equals, in, not_in, exists, does_not_exist, greater_than, less_than };

struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::exists;
  std::vector<std::string> values;  // sorted, de-duplicated; one value for =, !=, gt, lt

  bool matches(const std::map<std::string, std::string>& labels) const;
  std::string to_string() const;
};

// Validation used by the parser; exposed so callers can check metadata.labels.
// Both return an error naming the bad part, or nothing when valid.
Result<void> validate_label_key(std::string_view key);
Result<void> validate_label_value(std::string_view value);

class LabelSelector {
 public:
  // "" selects everything. Grammar: comma-separated requirements of the forms
  // key, !key, key=v, key==v, key!=v, key in (a,b), key notin (a,b), key>n, key<n.
  static Result<LabelSelector> parse(std::string_view text);
  // matchLabels / matchExpressions of a metav1.LabelSelector object.
  static Result<LabelSelector> from_label_selector_json(const nlohmann::json& selector);

  // Adds a requirement after validating key and values.
  Result<void> add(LabelRequirement requirement);

  bool matches(const std::map<std::string, std::string>& labels) const;
  bool empty() const { return m_requirements.empty(); }
  // Canonical form: requirements sorted by key, "=" for equality, sorted value sets.
  std::string to_string() const;
  const std::vector<LabelRequirement>& requirements() const { return m_requirements; }

 private:
  Result<void> insert_sorted(LabelRequirement requirement);

  std::vector<LabelRequirement> m_requirements;  // kept sorted by key (stable)
};

enum class FieldOperator { equals, not_equals };

struct FieldRequirement {
  std::string field;  // dotted path, e.g. "status.phase"
  FieldOperator op = FieldOperator::equals;
  std::string value;  // unescaped
};

class FieldSelector {
 public:
  // "" selects everything. Terms "field=value", "field==value", "field!=value" separated
  // by commas; "\," "\=" and "\\" escape inside values.
  static Result<FieldSelector> parse(std::string_view text);

  // A field missing from `fields` compares as the empty string.
  bool matches(const std::map<std::string, std::string>& fields) const;
  bool empty() const { return m_requirements.empty(); }
  std::string to_string() const;
  const std::vector<FieldRequirement>& requirements() const { return m_requirements; }

 private:
  std::vector<FieldRequirement> m_requirements;
};

// Escapes a value for use in a field selector string.
std::string escape_field_value(std::string_view value);

// metadata.labels of an object as a map (non-string values are skipped).
std::map<std::string, std::string> labels_of(const nlohmann::json& object);

}  // namespace kw::api
