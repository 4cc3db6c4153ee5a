// The downward API's field references, as env vars and downwardAPI volume files use them:
// validateObjectFieldSelector and validateContainerResourceFieldSelector.
#include <span>
#include <string>
#include <string_view>

#include "core/api/json_access.hpp"
#include "core/api/quantity.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::at;
using api::str;
using nlohmann::json;

// The pod fields ConvertDownwardAPIFieldLabel knows (spec.host is the old name of spec.nodeName).
constexpr std::string_view k_known_fields[] = {
    "metadata.annotations", "metadata.labels",    "metadata.name",  "metadata.namespace",
    "metadata.uid",         "spec.nodeName",      "spec.restartPolicy", "spec.serviceAccountName",
    "spec.schedulerName",   "status.phase",       "status.hostIP",  "status.hostIPs",
    "status.podIP",         "status.podIPs",
};

constexpr std::string_view k_resource_fields[] = {"limits.cpu",      "limits.ephemeral-storage",   "limits.memory",
                                                  "requests.cpu",    "requests.ephemeral-storage", "requests.memory"};
constexpr std::string_view k_hugepages_prefixes[] = {"requests.hugepages-", "limits.hugepages-"};

// fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['a']" is ("metadata.labels", "a").
bool split_subscript(const std::string& field_path, std::string& path, std::string& subscript) {
  if (!field_path.ends_with("']")) return false;
  const std::string inner = field_path.substr(0, field_path.size() - 2);
  const auto open = inner.find("['");
  if (open == std::string::npos || open == 0) return false;
  path = inner.substr(0, open);
  subscript = inner.substr(open + 2);
  return true;
}

bool known(std::string_view field, std::span<const std::string_view> set) {
  for (const auto& candidate : set)
    if (candidate == field) return true;
  return false;
}

// validateContainerResourceDivisor: the divisors each resource takes, by their canonical text.
void resource_divisor(Causes& causes, const std::string& resource, const json& divisor, const std::string& path) {
  if (divisor.is_null()) return;
  const auto value = api::quantity_value(divisor);
  if (value && *value == 0) return;
  const auto text = api::canonical_quantity(divisor);
  const std::string canonical = text ? *text : "";
  auto check = [&](std::initializer_list<std::string_view> allowed, const char* what) {
    for (const auto& candidate : allowed)
      if (candidate == canonical) return;
    invalid_value(causes, path + ".divisor", resource, what);
  };
  const std::initializer_list<std::string_view> byte_divisors = {"1",  "1k",  "1M",  "1G",  "1T",  "1P", "1E",
                                                                 "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"};
  if (resource == "limits.cpu" || resource == "requests.cpu")
    check({"1m", "1"}, "only divisor's values 1m and 1 are supported with the cpu resource");
  else if (resource == "limits.memory" || resource == "requests.memory")
    check(byte_divisors,
          "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
          "memory resource");
  else if (resource == "limits.ephemeral-storage" || resource == "requests.ephemeral-storage")
    check(byte_divisors,
          "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
          "local ephemeral storage resource");
  if (resource.starts_with(k_hugepages_prefixes[0]) || resource.starts_with(k_hugepages_prefixes[1]))
    check(byte_divisors,
          "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
          "hugepages resource");
}

}  // namespace

void validate_object_field_selector(Causes& causes, const json& selector, std::span<const std::string_view> allowed,
                                    const std::string& path) {
  const std::string version = str(at(selector, {"apiVersion"}));
  const std::string field_path = str(at(selector, {"fieldPath"}));
  if (version.empty()) return required(causes, path + ".apiVersion");
  if (field_path.empty()) return required(causes, path + ".fieldPath");
  // ConvertDownwardAPIFieldLabel
  std::string field = field_path, subscript;
  const bool subscripted = split_subscript(field_path, field, subscript);
  std::string error;
  if (version != "v1")
    error = "unsupported pod version: " + version;
  else if (subscripted && field != "metadata.annotations" && field != "metadata.labels")
    error = "field label does not support subscript: " + field_path;
  else if (!subscripted && field == "spec.host")
    field = "spec.nodeName";
  else if (!subscripted && !known(field, k_known_fields))
    error = "field label not supported: " + field_path;
  if (!error.empty()) return invalid_value(causes, path + ".fieldPath", field_path, "error converting fieldPath: " + error);
  if (subscripted) {
    const std::string key = field == "metadata.annotations" ? util::to_lower(subscript) : subscript;
    for (const auto& message : qualified_name_errors(key)) invalid_value(causes, path, subscript, message);
  } else if (!known(field, allowed)) {
    unsupported(causes, path + ".fieldPath", field, allowed);
  }
}

void validate_resource_field_selector(Causes& causes, const json& selector, const std::string& path, bool volume) {
  const std::string resource = str(at(selector, {"resource"}));
  if (volume && str(at(selector, {"containerName"})).empty()) {
    required(causes, path + ".containerName");
  } else if (resource.empty()) {
    required(causes, path + ".resource");
  } else if (!known(resource, k_resource_fields) && !resource.starts_with(k_hugepages_prefixes[0]) &&
             !resource.starts_with(k_hugepages_prefixes[1])) {
    unsupported(causes, path + ".resource", resource, k_resource_fields);
  }
  resource_divisor(causes, resource, at(selector, {"divisor"}), path);
}

}  // namespace kw::kinds
