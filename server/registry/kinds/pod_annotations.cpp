// The annotations Kubernetes checks on pods and pod templates beyond their keys: the mirror-pod
// marker, the old tolerations annotation, the deletion cost, and the deprecated seccomp
// annotations (the AppArmor ones are in pod_app_armor.cpp).
#include <cstdint>
#include <expected>
#include <limits>
#include <string>
#include <string_view>

#include "core/api/json_access.hpp"
#include "core/util/go_json.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::at;
using api::str;
using nlohmann::json;

constexpr const char* k_mirror_annotation = "kubernetes.io/config.mirror";
constexpr const char* k_tolerations_annotation = "scheduler.alpha.kubernetes.io/tolerations";
constexpr const char* k_deletion_cost_annotation = "controller.kubernetes.io/pod-deletion-cost";
constexpr const char* k_seccomp_pod_annotation = "seccomp.security.alpha.kubernetes.io/pod";
constexpr std::string_view k_seccomp_container_prefix = "container.seccomp.security.alpha.kubernetes.io/";
constexpr std::string_view k_seccomp_localhost_prefix = "localhost/";

// How Go's encoding/json names a JSON value's kind in an UnmarshalTypeError.
std::string go_json_kind(const json& value) {
  if (value.is_object()) return "object";
  if (value.is_array()) return "array";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  return "number";
}

// A core.Toleration field as json.Unmarshal fills it: the JSON name it answers to (the Go
// field name, matched without regard to case: the internal type has no json tags) and its
// Go type.
struct TolerationField {
  std::string_view go_name;
  std::string_view json_name;
  std::string_view go_type;
};
constexpr TolerationField k_toleration_fields[] = {
    {"Key", "key", "string"},
    {"Operator", "operator", "core.TolerationOperator"},
    {"Value", "value", "string"},
    {"Effect", "effect", "core.TaintEffect"},
    {"TolerationSeconds", "tolerationSeconds", "int64"},
};

// Go's case-insensitive match of a member name to a field name (ASCII names).
bool equal_fold(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c; };
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// GetTolerationsFromPodAnnotations: json.Unmarshal of the annotation into []core.Toleration.
// The tolerations with kw's field names, or the error Go gives (its first).
std::expected<json, std::string> decode_tolerations(const std::string& text) {
  if (auto syntax = util::go_json_syntax_error(text); !syntax.empty()) return std::unexpected(syntax);
  const json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::unexpected("invalid character in string literal");
  if (parsed.is_null()) return json::array();
  if (!parsed.is_array())
    return std::unexpected("json: cannot unmarshal " + go_json_kind(parsed) +
                           " into Go value of type []core.Toleration");
  json out = json::array();
  std::string first_error;
  auto fail = [&](std::string error) {
    if (first_error.empty()) first_error = std::move(error);
  };
  for (const json& item : parsed) {
    json toleration = json::object();
    if (!item.is_null() && !item.is_object()) {
      fail("json: cannot unmarshal " + go_json_kind(item) + " into Go value of type core.Toleration");
    } else if (item.is_object()) {
      for (const auto& [name, value] : item.items()) {
        const TolerationField* field = nullptr;
        for (const auto& candidate : k_toleration_fields)
          if (equal_fold(name, candidate.go_name)) field = &candidate;
        if (!field || value.is_null()) continue;  // unknown members are ignored; null leaves the zero value
        const std::string into = " into Go struct field Toleration." + std::string(field->go_name) + " of type " +
                                 std::string(field->go_type);
        if (field->go_type == "int64") {
          if (value.is_number_integer() && !(value.is_number_unsigned() &&
                                             value.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()))
            toleration[std::string(field->json_name)] = value;
          else if (value.is_number())
            fail("json: cannot unmarshal number " + value.dump() + into);
          else
            fail("json: cannot unmarshal " + go_json_kind(value) + into);
        } else if (value.is_string()) {
          toleration[std::string(field->json_name)] = value;
        } else {
          fail("json: cannot unmarshal " + go_json_kind(value) + into);
        }
      }
    }
    out.push_back(std::move(toleration));
  }
  if (!first_error.empty()) return std::unexpected(first_error);
  return out;
}

// ValidateSeccompProfile: a seccomp annotation's value.
void validate_seccomp_profile(Causes& causes, const std::string& value, const std::string& field) {
  if (value == "runtime/default" || value == "docker/default" || value == "unconfined") return;
  if (value.starts_with(k_seccomp_localhost_prefix))
    return local_descending_path(causes, field, value.substr(k_seccomp_localhost_prefix.size()));
  invalid_value(causes, field, value, "must be a valid seccomp profile");
}

// validateSeccompAnnotationsAndFieldsMatch, for a profile field at `path` and its annotation.
void seccomp_match(Causes& causes, const std::string& annotation, const json& profile, const std::string& path) {
  const std::string type = str(at(profile, {"type"}));
  const char* type_mismatch = "seccomp type in annotation and field must match";
  if (type == "Unconfined") {
    if (annotation != "unconfined") forbidden(causes, path + ".type", type_mismatch);
  } else if (type == "RuntimeDefault") {
    if (annotation != "runtime/default" && annotation != "docker/default")
      forbidden(causes, path + ".type", type_mismatch);
  } else if (type == "Localhost") {
    if (!annotation.starts_with(k_seccomp_localhost_prefix))
      forbidden(causes, path + ".type", type_mismatch);
    else if (!at(profile, {"localhostProfile"}).is_string() ||
             annotation.substr(k_seccomp_localhost_prefix.size()) != str(at(profile, {"localhostProfile"})))
      forbidden(causes, path + ".localhostProfile", "seccomp profile in annotation and field must match");
  }
}

}  // namespace

bool valid_deletion_cost(const json& annotations) {
  if (!annotations.is_object() || !annotations.contains(k_deletion_cost_annotation)) return true;
  const std::string value = str(annotations[k_deletion_cost_annotation]);
  // No plus sign and no leading zeros, then strconv.ParseInt(value, 10, 32).
  const bool negative = value.starts_with('-');
  const std::string_view digits = std::string_view(value).substr(negative ? 1 : 0);
  if (digits.empty() || (!negative && digits.size() > 1 && digits[0] == '0')) return false;
  std::int64_t number = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    number = number * 10 + (c - '0');
    if (number > std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1) return false;
  }
  return negative ? -number >= std::numeric_limits<std::int32_t>::min()
                  : number <= std::numeric_limits<std::int32_t>::max();
}

void validate_pod_specific_annotations(Causes& causes, const json& annotations, const json& spec,
                                       const std::string& path, bool check_deletion_cost) {
  if (!annotations.is_object()) return;
  if (annotations.contains(k_mirror_annotation) && str(at(spec, {"nodeName"})).empty())
    invalid_value(causes, key_path(path, k_mirror_annotation), annotations[k_mirror_annotation],
                  "must set spec.nodeName if mirror pod annotation is set");
  if (const std::string tolerations = str(at(annotations, {k_tolerations_annotation})); !tolerations.empty()) {
    if (auto decoded = decode_tolerations(tolerations); !decoded)
      invalid_value(causes, path, k_tolerations_annotation, decoded.error());
    else if (!decoded->empty())
      validate_tolerations(causes, *decoded, path + "." + k_tolerations_annotation);
  }
  if (check_deletion_cost && !valid_deletion_cost(annotations))
    invalid_value(causes, key_path(path, k_deletion_cost_annotation), annotations[k_deletion_cost_annotation],
                  "must be a 32bit integer");
  if (annotations.contains(k_seccomp_pod_annotation))
    validate_seccomp_profile(causes, str(annotations[k_seccomp_pod_annotation]),
                             path + "." + k_seccomp_pod_annotation);
  for (const auto& [key, value] : annotations.items())
    if (key.starts_with(k_seccomp_container_prefix)) validate_seccomp_profile(causes, str(value), path + "." + key);
  validate_app_armor_annotations(causes, annotations, spec, path);
}

void validate_seccomp_match(Causes& causes, const json& annotations, const json& spec, const std::string& spec_path) {
  if (!annotations.is_object()) return;
  const json& pod_profile = at(spec, {"securityContext", "seccompProfile"});
  if (pod_profile.is_object() && annotations.contains(k_seccomp_pod_annotation))
    seccomp_match(causes, str(annotations[k_seccomp_pod_annotation]), pod_profile,
                  spec_path + ".securityContext.seccompProfile");
  visit_containers_with_path(spec, spec_path, [&](const json& container, const std::string& path) {
    const json& profile = at(container, {"securityContext", "seccompProfile"});
    const std::string key = std::string(k_seccomp_container_prefix) + str(at(container, {"name"}));
    if (profile.is_object() && annotations.contains(key))
      seccomp_match(causes, str(annotations[key]), profile, path + ".securityContext.seccompProfile");
  });
}

void validate_pod_annotation_updates(Causes& causes, const json& pod, const json& old) {
  const std::string path = "metadata.annotations";
  const json& annotations = at(pod, {"metadata", "annotations"});
  const json& old_annotations = at(old, {"metadata", "annotations"});
  const json& now = annotations.is_object() ? annotations : json::object();
  const json& before = old_annotations.is_object() ? old_annotations : json::object();
  for (const auto& [key, value] : before.items()) {
    if (now.contains(key) && now[key] == value) continue;
    if (key.starts_with(k_app_armor_annotation_prefix))
      forbidden(causes, key_path(path, key), "may not remove or update AppArmor annotations");
    if (key == k_mirror_annotation)
      forbidden(causes, key_path(path, key), "may not remove or update mirror pod annotation");
  }
  for (const auto& [key, value] : now.items()) {
    if (before.contains(key)) continue;
    if (key.starts_with(k_app_armor_annotation_prefix))
      forbidden(causes, key_path(path, key), "may not add AppArmor annotations");
    if (key == k_mirror_annotation) forbidden(causes, key_path(path, key), "may not add mirror pod annotation");
  }
  validate_pod_specific_annotations(causes, annotations, at(pod, {"spec"}), path, valid_deletion_cost(old_annotations));
}

}  // namespace kw::kinds
