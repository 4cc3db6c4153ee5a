// A pod spec's containers: validateContainers, validateInitContainers and what each container
// is held to (validateContainerCommon and the probes, hooks and ports around it).
#include <set>
#include <string>

#include "core/api/json_access.hpp"
#include "core/api/quantity.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

void validate_container_details(Causes& causes, const json& c, const std::string& field) {
  const json& ports = arr(at(c, {"ports"}));
  std::set<std::string> port_names;
  for (std::size_t p = 0; p < ports.size(); ++p) {
    const std::string port = index_path(field + ".ports", p);
    const json& number = at(ports[p], {"containerPort"});
    if (num(number) == 0)
      required(causes, port + ".containerPort");
    else
      invalid_each(causes, port + ".containerPort", number, port_number_errors(num(number)));
    const json& host = at(ports[p], {"hostPort"});
    if (num(host) != 0) invalid_each(causes, port + ".hostPort", host, port_number_errors(num(host)));
    const std::string name = str(at(ports[p], {"name"}));
    if (!name.empty() && !port_names.insert(name).second) duplicate(causes, port + ".name", name);
    const std::string protocol = str(at(ports[p], {"protocol"}));
    if (protocol.empty())
      required(causes, port + ".protocol");
    else if (!one_of(protocol, {"SCTP", "TCP", "UDP"}))
      unsupported(causes, port + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
  }
  const std::string pull = str(at(c, {"imagePullPolicy"}));
  if (pull.empty())
    required(causes, field + ".imagePullPolicy");
  else if (!one_of(pull, {"Always", "IfNotPresent", "Never"}))
    unsupported(causes, field + ".imagePullPolicy", pull, {"Always", "IfNotPresent", "Never"});
  const std::string termination = str(at(c, {"terminationMessagePolicy"}));
  if (termination.empty())
    required(causes, field + ".terminationMessagePolicy", "must be 'File' or 'FallbackToLogsOnError'");
  else if (!one_of(termination, {"File", "FallbackToLogsOnError"}))
    invalid_value(causes, field + ".terminationMessagePolicy", termination,
                  "must be 'File' or 'FallbackToLogsOnError'");
}

// ValidateVolumeMounts: each names a volume of the pod, at a path no other mount of the
// container uses.
void validate_volume_mounts(Causes& causes, const json& container, const PodVolumes& volumes,
                            const std::string& field) {
  std::set<std::string> paths;
  const auto& mounts = arr(at(container, {"volumeMounts"}));
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const auto mount = index_path(field + ".volumeMounts", i);
    const auto name = str(at(mounts[i], {"name"}));
    if (name.empty()) required(causes, mount + ".name");
    if (!volumes.contains(name)) add_cause(causes, mount + ".name", "FieldValueNotFound", "Not found: " + go_quoted(name));
    const auto mount_path = str(at(mounts[i], {"mountPath"}));
    if (mount_path.empty()) required(causes, mount + ".mountPath");
    if (!paths.insert(mount_path).second) invalid_value(causes, mount + ".mountPath", mount_path, "must be unique");
  }
}

// ValidateResourceRequirements: standard or extended names, valid quantities, and requests no
// larger than limits (equal to them for resources that cannot be overcommitted).
void validate_container_resources(Causes& causes, const json& container, const std::string& field) {
  const auto& limits = at(container, {"resources", "limits"});
  const auto& requests = at(container, {"resources", "requests"});
  const auto limits_path = field + ".resources.limits";
  const auto requests_path = field + ".resources.requests";
  if (limits.is_object())
    for (const auto& [name, quantity] : limits.items()) {
      container_resource_name(causes, key_path(limits_path, name), name);
      resource_quantity(causes, key_path(limits_path, name), name, quantity);
    }
  if (!requests.is_object()) return;
  for (const auto& [name, quantity] : requests.items()) {
    container_resource_name(causes, key_path(requests_path, name), name);
    resource_quantity(causes, key_path(requests_path, name), name, quantity);
    const bool overcommit = is_native_resource(name) && !is_hugepages(name);
    const bool limited = limits.is_object() && limits.contains(name);
    const auto limit = limited ? api::quantity_value(limits[name]).value_or(0) : 0;
    const auto request = api::quantity_value(quantity);
    if (limited && request && api::quantity_value(limits[name])) {
      if (!overcommit && *request != limit)
        invalid_value(causes, requests_path, api::quantity_string(quantity),
                      "must be equal to " + name + " limit of " + api::quantity_string(limits[name]));
      else if (*request > limit)
        invalid_value(causes, requests_path, api::quantity_string(quantity),
                      "must be less than or equal to " + name + " limit of " + api::quantity_string(limits[name]));
    } else if (!overcommit && !limited) {
      required(causes, limits_path, "Limit must be set for non overcommitable resources");
    }
  }
}

}  // namespace

void validate_container_identity(Causes& causes, const json& container, std::set<std::string>& names,
                                 const std::string& field) {
  const auto name = str(at(container, {"name"}));
  if (name.empty())
    required(causes, field + ".name");
  else
    invalid_each(causes, field + ".name", name, dns1123_label_errors(name));
  if (!name.empty() && !names.insert(name).second) duplicate(causes, field + ".name", name);
  if (str(at(container, {"image"})).empty()) required(causes, field + ".image");
}

void validate_containers(Causes& causes, const json& pod_spec, const std::string& path) {
  const auto& containers = at(pod_spec, {"containers"});
  if (!containers.is_array() || containers.empty()) {
    required(causes, path + ".containers");
    return;
  }
  // Names: DNS labels, unique among the regular containers, and init containers may not take
  // one of theirs either (validateContainers, validateInitContainers).
  std::set<std::string> names;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string field = index_path(path + ".containers", i);
    if (!containers[i].is_object()) invalid_value(causes, field, containers[i], "must be an object");
    else validate_container_identity(causes, containers[i], names, field);
  }
  const auto& init = arr(at(pod_spec, {"initContainers"}));
  for (std::size_t i = 0; i < init.size(); ++i)
    validate_container_identity(causes, init[i], names, index_path(path + ".initContainers", i));
}

void validate_pod_containers(Causes& causes, const json& spec, const PodVolumes& volumes, const std::string& path) {
  validate_containers(causes, spec, path);
  for (const char* list : {"initContainers", "containers"}) {
    const json& containers = arr(at(spec, {list}));
    for (std::size_t i = 0; i < containers.size(); ++i) {
      const auto field = index_path(path + "." + list, i);
      validate_container_details(causes, containers[i], field);
      validate_volume_mounts(causes, containers[i], volumes, field);
      validate_container_resources(causes, containers[i], field);
      validate_app_armor_profile(causes, at(containers[i], {"securityContext", "appArmorProfile"}),
                                 field + ".securityContext.appArmorProfile");
    }
  }
}

}  // namespace kw::kinds
