// AppArmor on pods: the appArmorProfile fields (pod and container security contexts), the
// deprecated per-container annotations, and how a create keeps the two in step for nodes that
// only read one of them (Kubernetes' AppArmor version skew strategy, 1.30 to 1.33).
#include <string>
#include <vector>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

constexpr std::string_view k_localhost_prefix = "localhost/";
constexpr std::size_t k_max_localhost_profile = 4095;  // PATH_MAX - 1

std::string annotation_key(const std::string& container) { return std::string(k_app_armor_annotation_prefix) + container; }

// The annotation value a profile field stands for ("" when it stands for none).
std::string annotation_for(const json& profile) {
  const std::string type = str(at(profile, {"type"}));
  if (type == "Unconfined") return "unconfined";
  if (type == "RuntimeDefault") return "runtime/default";
  if (type == "Localhost" && at(profile, {"localhostProfile"}).is_string())
    return std::string(k_localhost_prefix) + str(at(profile, {"localhostProfile"}));
  return "";
}

// The profile field an annotation value stands for (null when none).
json field_for(const std::string& annotation) {
  if (annotation == "unconfined") return {{"type", "Unconfined"}};
  if (annotation == "runtime/default") return {{"type", "RuntimeDefault"}};
  if (annotation.starts_with(k_localhost_prefix) && annotation.size() > k_localhost_prefix.size())
    return {{"type", "Localhost"}, {"localhostProfile", annotation.substr(k_localhost_prefix.size())}};
  return nullptr;
}

// What a create derives from a container's annotation when the container has no field: the
// field (null when the annotation gives no valid one), and whether the client is warned.
struct Derived {
  json field;
  bool warn = false;
};
Derived derive_field(const std::string& annotation, const json& pod_profile) {
  Derived out{field_for(annotation)};
  if (!out.field.is_null()) {
    Causes causes = json::array();
    validate_app_armor_profile(causes, out.field, "");
    if (!causes.empty()) out.field = nullptr;
  }
  if (out.field.is_null()) {
    out.warn = true;
  } else if (semantic_equal(out.field, pod_profile)) {
    out.field = nullptr;  // the pod's own profile already says it
  } else {
    out.warn = true;
  }
  return out;
}

bool has_container(const json& spec, const std::string& name) {
  bool found = false;
  visit_containers_with_path(spec, "spec", [&](const json& container, const std::string&) {
    found = found || str(at(container, {"name"})) == name;
  });
  return found;
}

}  // namespace

bool is_windows_pod(const json& spec) { return str(at(spec, {"os", "name"})) == "windows"; }

void validate_app_armor_profile(Causes& causes, const json& profile, const std::string& path) {
  if (!profile.is_object()) return;
  const std::string type = str(at(profile, {"type"}));
  const json& localhost = at(profile, {"localhostProfile"});
  const std::string localhost_path = path + ".localhostProfile";
  if (type == "Localhost") {
    if (!localhost.is_string()) return required(causes, localhost_path, "must be set when AppArmor type is Localhost");
    const std::string value = str(localhost);
    const auto first = value.find_first_not_of(" \t\n\v\f\r");
    const auto last = value.find_last_not_of(" \t\n\v\f\r");
    if (first == std::string::npos && !value.empty())
      invalid_value(causes, localhost_path, value, "must not be padded with whitespace");
    else if (value.empty())
      required(causes, localhost_path, "must be set when AppArmor type is Localhost");
    else if (first != 0 || last != value.size() - 1)
      invalid_value(causes, localhost_path, value, "must not be padded with whitespace");
    if (value.size() > k_max_localhost_profile) too_long(causes, localhost_path, k_max_localhost_profile);
  } else if (type == "RuntimeDefault" || type == "Unconfined") {
    if (!localhost.is_null())
      invalid_value(causes, localhost_path, localhost, "can only be set when AppArmor type is Localhost");
  } else if (type.empty()) {
    required(causes, path + ".type", "type is required when appArmorProfile is set");
  } else {
    unsupported(causes, path + ".type", type, {"Localhost", "RuntimeDefault", "Unconfined"});
  }
}

void validate_app_armor_annotations(Causes& causes, const json& annotations, const json& spec,
                                    const std::string& path) {
  if (!annotations.is_object()) return;
  for (const auto& [key, value] : annotations.items()) {
    if (!key.starts_with(k_app_armor_annotation_prefix)) continue;
    const std::string container = key.substr(k_app_armor_annotation_prefix.size());
    if (!has_container(spec, container)) invalid_value(causes, key_path(path, key), container, "container not found");
    const std::string profile = str(value);
    if (!profile.empty() && profile != "runtime/default" && profile != "unconfined" &&
        !profile.starts_with(k_localhost_prefix))
      invalid_value(causes, key_path(path, key), profile, "invalid AppArmor profile name: " + go_quoted(profile));
  }
}

void app_armor_create_warnings(const json& pod, std::vector<std::string>& warnings) {
  const json& spec = at(pod, {"spec"});
  const json& annotations = at(pod, {"metadata", "annotations"});
  if (is_windows_pod(spec) || !annotations.is_object()) return;
  const json& pod_profile = at(spec, {"securityContext", "appArmorProfile"});
  visit_containers_with_path(spec, "spec", [&](const json& container, const std::string&) {
    const std::string key = annotation_key(str(at(container, {"name"})));
    if (!annotations.contains(key) || at(container, {"securityContext", "appArmorProfile"}).is_object()) return;
    if (derive_field(str(annotations[key]), pod_profile).warn)
      warnings.push_back(key_path("metadata.annotations", key) +
                         R"(: deprecated since v1.30; use the "appArmorProfile" field instead)");
  });
}

void sync_app_armor(json& pod) {
  if (!pod.contains("spec") || !pod["spec"].is_object() || is_windows_pod(pod["spec"])) return;
  json& spec = pod["spec"];
  const json pod_profile = at(spec, {"securityContext", "appArmorProfile"});
  json& meta = pod["metadata"];
  visit_containers_with_path(spec, "spec", [&](json& container, const std::string&) {
    const std::string key = annotation_key(str(at(container, {"name"})));
    const json& own = at(container, {"securityContext", "appArmorProfile"});
    const json& annotations = at(meta, {"annotations"});
    if (!annotations.is_object() || !annotations.contains(key)) {
      // Nodes that only know the annotation still enforce the field.
      const std::string value = annotation_for(own.is_object() ? own : pod_profile);
      if (!value.empty()) meta["annotations"][key] = value;
    } else if (!own.is_object()) {
      if (json field = derive_field(str(annotations[key]), pod_profile).field; !field.is_null())
        container["securityContext"]["appArmorProfile"] = std::move(field);
    }
  });
}

void validate_app_armor_match(Causes& causes, const json& pod) {
  const json& spec = at(pod, {"spec"});
  const json& annotations = at(pod, {"metadata", "annotations"});
  if (is_windows_pod(spec) || !annotations.is_object()) return;
  const json& pod_profile = at(spec, {"securityContext", "appArmorProfile"});
  visit_containers_with_path(spec, "spec", [&](const json& container, const std::string& path) {
    const json& own = at(container, {"securityContext", "appArmorProfile"});
    const json& profile = own.is_object() ? own : pod_profile;
    const std::string key = annotation_key(str(at(container, {"name"})));
    if (!profile.is_object() || !annotations.contains(key)) return;
    const std::string annotation = str(annotations[key]);
    const std::string field = path + ".securityContext.appArmorProfile";
    const std::string type = str(at(profile, {"type"}));
    const char* type_mismatch = "apparmor type in annotation and field must match";
    if (type == "Unconfined" && annotation != "unconfined") {
      forbidden(causes, field + ".type", type_mismatch);
    } else if (type == "RuntimeDefault" && annotation != "runtime/default") {
      forbidden(causes, field + ".type", type_mismatch);
    } else if (type == "Localhost") {
      if (!annotation.starts_with(k_localhost_prefix))
        forbidden(causes, field + ".type", type_mismatch);
      else if (!at(profile, {"localhostProfile"}).is_string() ||
               annotation.substr(k_localhost_prefix.size()) != str(at(profile, {"localhostProfile"})))
        forbidden(causes, field + ".localhostProfile", "apparmor profile in annotation and field must match");
    }
  });
}

}  // namespace kw::kinds
