// A pod spec's containers: validateContainers, validateInitContainers and what each container
// is held to (validateContainerCommon and the probes, hooks and ports around it), as
// kube-apiserver 1.33 checks them with its default feature gates (sidecar containers, in-place
// resize, sleep hooks that may sleep 0 seconds, relaxed environment variable names).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

// What every container's checks need to know about the pod around it.
struct PodContext {
  const PodVolumes& volumes;
  std::set<std::string> claim_names;  // spec.resourceClaims[*].name, the non-empty ones
  json grace_period;                  // spec.terminationGracePeriodSeconds
  std::string restart_policy;         // spec.restartPolicy
  bool host_users = true;             // spec.hostUsers, true unless false
  PodRatchets ratchets;
};

// How Go's %#v prints a pointer member of a struct in a field error: nil, or an address (which
// differs from run to run; this one stands for any).
std::string go_member_pointer(const json& value, std::string_view type) {
  return "(*" + std::string(type) + ")(" + (value.is_null() ? "nil" : "0xc000010000") + ")";
}


// ---- ports -----------------------------------------------------------------------------------

// validateContainerPorts: a valid, unique name when named; a valid container port; a valid host
// port when set; a supported protocol.
void validate_container_ports(Causes& causes, const json& ports, const std::string& path) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < arr(ports).size(); ++i) {
    const json& port = ports[i];
    const std::string field = index_path(path, i);
    if (const std::string name = str(at(port, {"name"})); !name.empty()) {
      const auto errors = port_name_errors(name);
      if (!errors.empty())
        invalid_each(causes, field + ".name", name, errors);
      else if (!names.insert(name).second)
        duplicate(causes, field + ".name", name);
    }
    const std::int64_t container_port = num(at(port, {"containerPort"}));
    if (container_port == 0)
      required(causes, field + ".containerPort");
    else
      invalid_each(causes, field + ".containerPort", container_port, port_number_errors(container_port));
    if (const std::int64_t host_port = num(at(port, {"hostPort"})); host_port != 0)
      invalid_each(causes, field + ".hostPort", host_port, port_number_errors(host_port));
    const std::string protocol = str(at(port, {"protocol"}));
    if (protocol.empty())
      required(causes, field + ".protocol");
    else if (!one_of(protocol, {"SCTP", "TCP", "UDP"}))
      unsupported(causes, field + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
  }
}

// AccumulateUniqueHostPorts over `containers` (the list at `path`): no two ports take the same
// protocol, host IP and host port.
void check_host_port_conflicts(Causes& causes, const std::vector<const json*>& containers, const std::string& path) {
  std::set<std::string> taken;
  for (std::size_t c = 0; c < containers.size(); ++c) {
    const json& ports = arr(at(*containers[c], {"ports"}));
    for (std::size_t p = 0; p < ports.size(); ++p) {
      const std::int64_t host_port = num(at(ports[p], {"hostPort"}));
      if (host_port == 0) continue;
      const std::string key =
          str(at(ports[p], {"protocol"})) + "/" + str(at(ports[p], {"hostIP"})) + "/" + std::to_string(host_port);
      if (!taken.insert(key).second)
        duplicate(causes, index_path(index_path(path, c) + ".ports", p) + ".hostPort", key);
    }
  }
}

// ---- environment -------------------------------------------------------------------------------

// IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation is on): printable ASCII but '='.
std::vector<std::string> env_var_name_errors(std::string_view name) {
  if (name.empty()) return {"environment variable name must be non-empty"};
  for (const char c : name)
    if (c < 0x20 || c > 0x7e || c == '=')
      return {"a valid environment variable name must consist only of printable ASCII characters other than '='"};
  return {};
}

// NameIsDNSSubdomain, with `prefix` the name of something generated from it: a trailing dash
// is allowed then (maskTrailingDash, which replaces the last two characters).
std::vector<std::string> object_name_errors(std::string name, bool prefix) {
  if (prefix && name.size() > 1 && name.ends_with('-')) name = name.substr(0, name.size() - 2) + "a";
  return subdomain_errors(name);
}

// validateConfigMapKeySelector / validateSecretKeySelector: a valid object name and key.
void validate_key_selector(Causes& causes, const json& selector, const std::string& path) {
  const std::string name = str(at(selector, {"name"}));
  invalid_each(causes, path + ".name", name, object_name_errors(name, false));
  const std::string key = str(at(selector, {"key"}));
  if (key.empty())
    required(causes, path + ".key");
  else
    invalid_each(causes, path + ".key", key, config_key_errors(key));
}

// validateEnvVarValueFrom: exactly one source, each valid, and no value beside it.
void validate_env_value_from(Causes& causes, const json& var, const std::string& path) {
  const json& from = at(var, {"valueFrom"});
  if (from.is_null()) return;
  int sources = 0;
  if (const json& ref = at(from, {"fieldRef"}); !ref.is_null()) {
    ++sources;
    validate_object_field_selector(causes, ref, k_env_downward_api_fields, path + ".fieldRef");
  }
  if (const json& ref = at(from, {"resourceFieldRef"}); !ref.is_null()) {
    ++sources;
    validate_resource_field_selector(causes, ref, path + ".resourceFieldRef", false);
  }
  for (const char* key : {"configMapKeyRef", "secretKeyRef"})
    if (const json& ref = at(from, {key}); !ref.is_null()) {
      ++sources;
      validate_key_selector(causes, ref, path + "." + key);
    }
  if (sources == 0)
    invalid_value(causes, path, "",
                  "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
  else if (!str(at(var, {"value"})).empty())
    invalid_value(causes, path, "", "may not be specified when `value` is not empty");
  else if (sources > 1)
    invalid_value(causes, path, "", "may not have more than one field specified at a time");
}

// ValidateEnv: each variable named, and its valueFrom valid.
void validate_env(Causes& causes, const json& env, const std::string& path) {
  for (std::size_t i = 0; i < arr(env).size(); ++i) {
    const std::string field = index_path(path, i);
    const std::string name = str(at(env[i], {"name"}));
    if (name.empty())
      required(causes, field + ".name");
    else
      invalid_each(causes, field + ".name", name, env_var_name_errors(name));
    validate_env_value_from(causes, env[i], field + ".valueFrom");
  }
}

// ValidateEnvFrom: a valid prefix, and exactly one of a ConfigMap or a Secret, named (the
// errors about the count name the whole list).
void validate_env_from(Causes& causes, const json& sources, const std::string& path) {
  for (std::size_t i = 0; i < arr(sources).size(); ++i) {
    const std::string field = index_path(path, i);
    if (const std::string prefix = str(at(sources[i], {"prefix"})); !prefix.empty())
      invalid_each(causes, field + ".prefix", prefix, env_var_name_errors(prefix));
    int count = 0;
    for (const char* key : {"configMapRef", "secretRef"}) {
      const json& ref = at(sources[i], {key});
      if (ref.is_null()) continue;
      ++count;
      const std::string name = str(at(ref, {"name"}));
      if (name.empty())
        required(causes, field + "." + key + ".name");
      else
        invalid_each(causes, field + "." + key + ".name", name, object_name_errors(name, true));
    }
    if (count == 0)
      invalid_value(causes, path, "", "must specify one of: `configMapRef` or `secretRef`");
    else if (count > 1)
      invalid_value(causes, path, "", "may not have more than one field specified at a time");
  }
}

// ---- volume mounts and devices -----------------------------------------------------------------

// name -> path of a container's volumeMounts (mountPath) or volumeDevices (devicePath); the
// last one wins, as GetVolumeMountMap builds it.
std::map<std::string, std::string> name_to_path(const json& list, const char* path_key) {
  std::map<std::string, std::string> out;
  for (const auto& item : arr(list)) out[str(at(item, {"name"}))] = str(at(item, {path_key}));
  return out;
}

bool has_path(const std::map<std::string, std::string>& map, const std::string& path) {
  for (const auto& [name, p] : map)
    if (p == path) return true;
  return false;
}

// validateMountPropagation: a known mode; Bidirectional only for privileged containers.
void validate_mount_propagation(Causes& causes, const std::string& mode, const json& container,
                                const std::string& path) {
  if (!one_of(mode, {"Bidirectional", "HostToContainer", "None"}))
    unsupported(causes, path, mode, {"Bidirectional", "HostToContainer", "None"});
  if (mode == "Bidirectional" && !is_true(at(container, {"securityContext", "privileged"})))
    forbidden(causes, path, "Bidirectional mount propagation is available only to privileged containers");
}

// validateMountRecursiveReadOnly: Enabled and IfPossible need a read-only mount without
// propagation.
void validate_recursive_read_only(Causes& causes, const json& mount, const std::string& path) {
  const json& value = at(mount, {"recursiveReadOnly"});
  if (value.is_null()) return;
  const std::string mode = str(value);
  if (mode == "Disabled") return;
  if (!one_of(mode, {"Enabled", "IfPossible"}))
    return unsupported(causes, path, mode, {"Disabled", "Enabled", "IfPossible"});
  if (!is_true(at(mount, {"readOnly"}))) forbidden(causes, path, "may only be specified when readOnly is true");
  const json& propagation = at(mount, {"mountPropagation"});
  if (!propagation.is_null() && str(propagation) != "None")
    forbidden(causes, path, "may only be specified when mountPropagation is None or not specified");
}

// ValidateVolumeMounts: each names a volume of the pod, at a path no other mount and no device
// of the container uses, with a relative subPath or subPathExpr (not both). The subPath,
// subPathExpr, mountPropagation and recursiveReadOnly errors name the list, not the mount, as
// Kubernetes reports them.
void validate_volume_mounts(Causes& causes, const json& container, const PodVolumes& volumes, const std::string& path) {
  const auto devices = name_to_path(at(container, {"volumeDevices"}), "devicePath");
  std::set<std::string> paths;
  const json& mounts = arr(at(container, {"volumeMounts"}));
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const json& mount = mounts[i];
    const std::string field = index_path(path, i);
    const std::string name = str(at(mount, {"name"}));
    const std::string mount_path = str(at(mount, {"mountPath"}));
    if (name.empty()) required(causes, field + ".name");
    if (!volumes.contains(name))
      add_cause(causes, field + ".name", "FieldValueNotFound", "Not found: " + go_quoted(name));
    if (mount_path.empty()) required(causes, field + ".mountPath");
    if (!paths.insert(mount_path).second) invalid_value(causes, field + ".mountPath", mount_path, "must be unique");
    if (devices.contains(name)) invalid_value(causes, field + ".name", name, "must not already exist in volumeDevices");
    if (has_path(devices, mount_path))
      invalid_value(causes, field + ".mountPath", mount_path, "must not already exist as a path in volumeDevices");
    const std::string sub_path = str(at(mount, {"subPath"}));
    if (!sub_path.empty()) local_descending_path(causes, path + ".subPath", sub_path);
    if (const std::string expr = str(at(mount, {"subPathExpr"})); !expr.empty()) {
      if (!sub_path.empty())
        invalid_value(causes, field + ".subPathExpr", expr, "subPathExpr and subPath are mutually exclusive");
      local_descending_path(causes, path + ".subPathExpr", expr);
    }
    if (const json& mode = at(mount, {"mountPropagation"}); !mode.is_null())
      validate_mount_propagation(causes, str(mode), container, path + ".mountPropagation");
    validate_recursive_read_only(causes, mount, path + ".recursiveReadOnly");
  }
}

// ValidateVolumeDevices: each names a claim-backed volume (a persistentVolumeClaim or an
// ephemeral one) once, at a unique path without backsteps, neither shared with a mount.
void validate_volume_devices(Causes& causes, const json& container, const PodVolumes& volumes,
                             const std::string& path) {
  const auto mounts = name_to_path(at(container, {"volumeMounts"}), "mountPath");
  std::set<std::string> names, paths;
  const json& devices = arr(at(container, {"volumeDevices"}));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string field = index_path(path, i);
    const std::string name = str(at(devices[i], {"name"}));
    const std::string device_path = str(at(devices[i], {"devicePath"}));
    const auto volume = volumes.find(name);
    const bool matched = volume != volumes.end();
    const bool claim = matched && (!at(*volume->second, {"persistentVolumeClaim"}).is_null() ||
                                   !at(*volume->second, {"ephemeral"}).is_null());
    if (name.empty()) required(causes, field + ".name");
    if (names.contains(name)) invalid_value(causes, field + ".name", name, "must be unique");
    if (matched && !claim)
      invalid_value(causes, field + ".name", name,
                    "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode");
    if (!matched) add_cause(causes, field + ".name", "FieldValueNotFound", "Not found: " + go_quoted(name));
    if (device_path.empty()) required(causes, field + ".devicePath");
    if (paths.contains(device_path)) invalid_value(causes, field + ".devicePath", device_path, "must be unique");
    if (!device_path.empty() && has_backsteps(device_path))
      invalid_value(causes, field + ".devicePath", device_path, "can not contain backsteps ('..')");
    else
      paths.insert(device_path);
    if (mounts.contains(name)) invalid_value(causes, field + ".name", name, "must not already exist in volumeMounts");
    if (has_path(mounts, device_path))
      invalid_value(causes, field + ".devicePath", device_path, "must not already exist as a path in volumeMounts");
    if (!name.empty()) names.insert(name);
  }
}

// ---- pull policy, resources, resize policy -----------------------------------------------------

// validatePullPolicy.
void validate_pull_policy(Causes& causes, const json& container, const std::string& path) {
  const std::string pull = str(at(container, {"imagePullPolicy"}));
  if (pull.empty())
    required(causes, path);
  else if (!one_of(pull, {"Always", "IfNotPresent", "Never"}))
    unsupported(causes, path, pull, {"Always", "IfNotPresent", "Never"});
}

// IsHugePageResourceValueDivisible: a hugepages-<size> quantity is a whole number of pages (one
// that is no quantity is reported elsewhere).
bool whole_huge_pages(const std::string& name, const json& quantity) {
  const auto page = api::quantity_value(json(name.substr(std::string_view("hugepages-").size())));
  const auto value = api::quantity_value(quantity);
  if (!value) return true;
  const bool whole_page = page && *page > 0 && std::floor(*page) == *page;
  return whole_page && std::fmod(std::ceil(*value), *page) == 0;
}

// validateResourceQuantityHugePageValue.
void huge_page_value(Causes& causes, const std::string& field, const std::string& name, const json& quantity) {
  if (!whole_huge_pages(name, quantity))
    invalid_value(causes, field, api::quantity_string(quantity),
                  api::quantity_string(quantity) + " is not positive integer multiple of " + name);
}

// Every hugepages quantity of a limits or requests map is whole pages.
bool all_whole_huge_pages(const json& quantities) {
  if (!quantities.is_object()) return true;
  for (const auto& [name, quantity] : quantities.items())
    if (is_hugepages(name) && !whole_huge_pages(name, quantity)) return false;
  return true;
}

// One limits or requests entry: a container resource name, a valid quantity, whole pages.
void resource_entry(Causes& causes, const std::string& field, const std::string& name, const json& quantity) {
  container_resource_name(causes, field, name);
  resource_quantity(causes, field, name, quantity);
}

// A request against its limit: no larger, and equal for resources that cannot be overcommitted;
// those need a limit.
void request_within_limit(Causes& causes, const json& limits, const std::string& name, const json& quantity,
                          const std::string& limits_path, const std::string& requests_path) {
  const bool overcommit = is_native_resource(name) && !is_hugepages(name);
  if (!limits.is_object() || !limits.contains(name)) {
    if (!overcommit) required(causes, limits_path, "Limit must be set for non overcommitable resources");
    return;
  }
  const auto request = api::quantity_value(quantity);
  const auto limit = api::quantity_value(limits[name]);
  if (!request || !limit) return;
  if (!overcommit && *request != *limit)
    invalid_value(causes, requests_path, api::quantity_string(quantity),
                  "must be equal to " + name + " limit of " + api::quantity_string(limits[name]));
  else if (*request > *limit)
    invalid_value(causes, requests_path, api::quantity_string(quantity),
                  "must be less than or equal to " + name + " limit of " + api::quantity_string(limits[name]));
}

// validateResourceClaimNames: each claim of the container names one of the pod's, once.
void validate_resource_claim_names(Causes& causes, const json& claims, const std::set<std::string>& pod_claims,
                                   const std::string& path) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr(claims).size(); ++i) {
    const std::string field = index_path(path, i);
    const std::string name = str(at(claims[i], {"name"}));
    if (name.empty()) {
      required(causes, field);
      continue;
    }
    if (!seen.insert(name).second) duplicate(causes, field, name);
    if (pod_claims.contains(name)) continue;
    std::string detail = "must be one of the names in pod.spec.resourceClaims";
    if (pod_claims.empty())
      detail += " which is empty";
    else {
      std::string joined;
      for (const auto& claim : pod_claims) joined += (joined.empty() ? "" : ", ") + claim;
      detail += ": " + joined;
    }
    add_cause(causes, field, "FieldValueNotFound", "Not found: " + go_quoted(name) + ": " + detail);
  }
}

}  // namespace

// ValidateResourceRequirements: standard or extended names, valid quantities, requests within
// limits, hugepages in whole pages and beside cpu or memory, claims the pod has.
void validate_resource_requirements(Causes& causes, const json& resources, const std::set<std::string>& pod_claims,
                                    const std::string& path, const PodRatchets& ratchets) {
  const json& limits = at(resources, {"limits"});
  const json& requests = at(resources, {"requests"});
  const std::string limits_path = path + ".limits";
  const std::string requests_path = path + ".requests";
  bool cpu_or_memory = false, huge_pages = false;
  if (limits.is_object())
    for (const auto& [name, quantity] : limits.items()) {
      resource_entry(causes, key_path(limits_path, name), name, quantity);
      if (is_hugepages(name)) {
        huge_pages = true;
        if (!ratchets.indivisible_huge_pages) huge_page_value(causes, key_path(limits_path, name), name, quantity);
      }
      cpu_or_memory = cpu_or_memory || name == "cpu" || name == "memory";
    }
  if (requests.is_object())
    for (const auto& [name, quantity] : requests.items()) {
      resource_entry(causes, key_path(requests_path, name), name, quantity);
      request_within_limit(causes, limits, name, quantity, limits_path, requests_path);
      if (is_hugepages(name)) {
        huge_pages = true;
        if (!ratchets.indivisible_huge_pages) huge_page_value(causes, key_path(requests_path, name), name, quantity);
      }
      cpu_or_memory = cpu_or_memory || name == "cpu" || name == "memory";
    }
  if (huge_pages && !cpu_or_memory) forbidden(causes, path, "HugePages require cpu or memory");
  validate_resource_claim_names(causes, at(resources, {"claims"}), pod_claims, path + ".claims");
}

namespace {

// validateResizePolicy: cpu or memory once each, NotRequired or RestartContainer, and only
// NotRequired in a pod that never restarts.
void validate_resize_policy(Causes& causes, const json& policies, const std::string& pod_restart,
                            const std::string& path) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr(policies).size(); ++i) {
    const std::string resource = str(at(policies[i], {"resourceName"}));
    const std::string restart = str(at(policies[i], {"restartPolicy"}));
    if (!seen.insert(resource).second) duplicate(causes, index_path(path, i), resource);
    if (resource.empty())
      required(causes, path);
    else if (!one_of(resource, {"cpu", "memory"}))
      unsupported(causes, path, resource, {"cpu", "memory"});
    if (restart.empty())
      required(causes, path);
    else if (!one_of(restart, {"NotRequired", "RestartContainer"}))
      unsupported(causes, path, restart, {"NotRequired", "RestartContainer"});
    if (pod_restart == "Never" && restart != "NotRequired")
      invalid_value(causes, path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'");
  }
}

// ---- security context --------------------------------------------------------------------------

}  // namespace

// validateSeccompProfileField: a known type; a relative localhostProfile exactly for Localhost.
void validate_seccomp_profile_field(Causes& causes, const json& profile, const std::string& path) {
  if (profile.is_null()) return;
  const std::string type = str(at(profile, {"type"}));
  const json& localhost = at(profile, {"localhostProfile"});
  if (type.empty())
    required(causes, path + ".type", "type is required when seccompProfile is set");
  else if (!one_of(type, {"Localhost", "RuntimeDefault", "Unconfined"}))
    unsupported(causes, path + ".type", type, {"Localhost", "RuntimeDefault", "Unconfined"});
  if (type == "Localhost") {
    if (localhost.is_null())
      required(causes, path + ".localhostProfile", "must be set when seccomp type is Localhost");
    else
      local_descending_path(causes, path + ".localhostProfile", str(localhost));
  } else if (!localhost.is_null()) {
    invalid_rendered(causes, path + ".localhostProfile",
                     "core.SeccompProfile{Type:" + go_quoted(type) +
                         ", LocalhostProfile:" + go_member_pointer(localhost, "string") + "}",
                     "can only be set when seccomp type is Localhost");
  }
}

namespace {

// The DNS form a Windows domain may take: dot-separated labels of letters, digits and '-'.
bool run_as_dns_domain(std::string_view domain) {
  for (const auto label : split(domain, '.')) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (const char c : label)
      if (!ascii_alnum(c) && c != '-') return false;
  }
  return true;
}

// The NetBIOS form: 1 to 15 characters, none of \ / : * ? " < > |, not starting with '.'.
bool run_as_netbios_domain(std::string_view domain) {
  std::size_t characters = 0;
  for (const char c : domain) {
    if (std::string_view("\\/:*?\"<>|").find(c) != std::string_view::npos) return false;
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++characters;
  }
  return characters >= 1 && characters <= 15 && domain.front() != '.';
}

// The rules of runAsUserName's DOMAIN\USER parts, one message each.
std::vector<std::string> run_as_user_name_errors(const std::string& value) {
  const auto parts = split(value, '\\');
  if (parts.size() > 2) return {"runAsUserName cannot contain more than one backslash"};
  const std::string_view domain = parts.size() == 2 ? parts[0] : std::string_view();
  const std::string_view user = parts.back();
  std::vector<std::string> out;
  if (domain.size() >= 256) out.push_back("runAsUserName's Domain length must be under 256 characters");
  if (parts.size() == 2 && !run_as_netbios_domain(domain) && !run_as_dns_domain(domain))
    out.push_back("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (user.empty())
    out.push_back("runAsUserName's User cannot be empty");
  else if (user.size() > 104)
    out.push_back("runAsUserName's User length must not be longer than 104 characters");
  if (!user.empty() && user.find_first_not_of(". ") == std::string_view::npos)
    out.push_back("runAsUserName's User cannot contain only periods or spaces");
  if (user.find_first_of("\"/\\:;|=,+*?<>@[]") != std::string_view::npos)
    out.push_back(R"(runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[])");
  return out;
}

}  // namespace

// validateWindowsSecurityContextOptions: a GMSA spec name that is a subdomain, a GMSA spec of
// 1 byte to 64 KiB, a well-formed runAsUserName.
void validate_windows_options(Causes& causes, const json& options, const std::string& path) {
  if (options.is_null()) return;
  if (const json& name = at(options, {"gmsaCredentialSpecName"}); !name.is_null())
    invalid_each(causes, path + ".gmsaCredentialSpecName", name, subdomain_errors(str(name)));
  if (const json& spec = at(options, {"gmsaCredentialSpec"}); !spec.is_null()) {
    if (str(spec).empty())
      invalid_value(causes, path + ".gmsaCredentialSpec", spec, "gmsaCredentialSpec cannot be an empty string");
    else if (str(spec).size() > 64 * 1024)
      invalid_value(causes, path + ".gmsaCredentialSpec", spec, "gmsaCredentialSpec size must be under 64 KiB");
  }
  const json& user = at(options, {"runAsUserName"});
  if (user.is_null()) return;
  const std::string value = str(user);
  const std::string field = path + ".runAsUserName";
  const bool control =
      std::any_of(value.begin(), value.end(), [](char c) { return (c >= 0 && c < 0x20) || c == 0x7f; });
  if (value.empty())
    invalid_value(causes, field, value, "runAsUserName cannot be an empty string");
  else if (control)
    invalid_value(causes, field, value, "runAsUserName cannot contain control characters");
  else
    invalid_each(causes, field, value, run_as_user_name_errors(value));
}

namespace {

// %#v of a core.SecurityContext, as the allowPrivilegeEscalation errors print it.
std::string go_security_context(const json& sc) {
  static constexpr std::pair<const char*, const char*> k_members[] = {
      {"Capabilities", "core.Capabilities"},
      {"Privileged", "bool"},
      {"SELinuxOptions", "core.SELinuxOptions"},
      {"WindowsOptions", "core.WindowsSecurityContextOptions"},
      {"RunAsUser", "int64"},
      {"RunAsGroup", "int64"},
      {"RunAsNonRoot", "bool"},
      {"ReadOnlyRootFilesystem", "bool"},
      {"AllowPrivilegeEscalation", "bool"},
      {"ProcMount", "core.ProcMountType"},
      {"SeccompProfile", "core.SeccompProfile"},
      {"AppArmorProfile", "core.AppArmorProfile"}};
  std::string out = "core.SecurityContext{";
  bool first = true;
  for (const auto& [member, type] : k_members) {
    std::string key = member;
    key[0] = static_cast<char>(key[0] - 'A' + 'a');
    if (key == "sELinuxOptions") key = "seLinuxOptions";
    out += std::string(first ? "" : ", ") + member + ":" + go_member_pointer(at(sc, {key}), type);
    first = false;
  }
  return out + "}";
}

// ValidateSecurityContext: user and group IDs in range, a known procMount (Unmasked only without
// host users), a valid seccomp profile, no privilege escalation switched off for a privileged
// container or one adding CAP_SYS_ADMIN, valid Windows options and AppArmor profile. Privileged
// containers are taken as allowed (kube-apiserver --allow-privileged=true).
void validate_security_context(Causes& causes, const json& sc, bool host_users, const std::string& path) {
  if (!sc.is_object()) return;
  for (const char* key : {"runAsUser", "runAsGroup"})
    if (const json& id = at(sc, {key}); id.is_number() && (num(id) < 0 || num(id) > 2147483647))
      invalid_value(causes, path + "." + key, id, "must be between 0 and 2147483647, inclusive");
  if (const json& proc = at(sc, {"procMount"}); !proc.is_null()) {
    if (!one_of(str(proc), {"Default", "Unmasked"}))
      unsupported(causes, path + ".procMount", str(proc), {"Default", "Unmasked"});
    if (host_users && str(proc) == "Unmasked")
      invalid_value(causes, path + ".procMount", proc, "`hostUsers` must be false to use `Unmasked`");
  }
  validate_seccomp_profile_field(causes, at(sc, {"seccompProfile"}), path + ".seccompProfile");
  if (is_false(at(sc, {"allowPrivilegeEscalation"}))) {
    if (is_true(at(sc, {"privileged"})))
      invalid_rendered(causes, path, go_security_context(sc),
                       "cannot set `allowPrivilegeEscalation` to false and `privileged` to true");
    for (const auto& capability : arr(at(sc, {"capabilities", "add"})))
      if (str(capability) == "CAP_SYS_ADMIN")
        invalid_rendered(causes, path, go_security_context(sc),
                         "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN");
  }
  validate_windows_options(causes, at(sc, {"windowsOptions"}), path + ".windowsOptions");
  validate_app_armor_profile(causes, at(sc, {"appArmorProfile"}), path + ".appArmorProfile");
}

// ---- the part every container shares -----------------------------------------------------------

// validateContainerCommon (the checks regular and init containers share; names are unique
// across the lists, which validate_containers and validate_init_containers check).
void validate_container_common(Causes& causes, const json& c, const PodContext& pod, const std::string& path) {
  const std::string name = str(at(c, {"name"}));
  if (name.empty())
    required(causes, path + ".name");
  else
    invalid_each(causes, path + ".name", name, dns1123_label_errors(name));
  if (str(at(c, {"image"})).empty()) required(causes, path + ".image");
  const std::string termination = str(at(c, {"terminationMessagePolicy"}));
  if (termination.empty())
    required(causes, path + ".terminationMessagePolicy");
  else if (!one_of(termination, {"File", "FallbackToLogsOnError"}))
    unsupported(causes, path + ".terminationMessagePolicy", termination, {"File", "FallbackToLogsOnError"});
  validate_container_ports(causes, at(c, {"ports"}), path + ".ports");
  validate_env(causes, at(c, {"env"}), path + ".env");
  validate_env_from(causes, at(c, {"envFrom"}), path + ".envFrom");
  validate_volume_mounts(causes, c, pod.volumes, path + ".volumeMounts");
  validate_volume_devices(causes, c, pod.volumes, path + ".volumeDevices");
  validate_pull_policy(causes, c, path + ".imagePullPolicy");
  validate_resource_requirements(causes, at(c, {"resources"}), pod.claim_names, path + ".resources", pod.ratchets);
  validate_resize_policy(causes, at(c, {"resizePolicy"}), pod.restart_policy, path + ".resizePolicy");
  validate_security_context(causes, at(c, {"securityContext"}), pod.host_users, path + ".securityContext");
}

// ---- probes and lifecycle hooks -----------------------------------------------------------------

// ValidatePortNumOrName: a number in range, or a valid port name.
void port_num_or_name(Causes& causes, const json& port, const std::string& path) {
  if (port.is_string())
    invalid_each(causes, path, port, port_name_errors(str(port)));
  else
    invalid_each(causes, path, num(port), port_number_errors(num(port)));
}

// IsHTTPHeaderName.
std::vector<std::string> http_header_name_errors(std::string_view name) {
  bool valid = !name.empty();
  for (const char c : name) valid = valid && (ascii_alnum(c) || c == '-');
  if (valid) return {};
  return {
      "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used "
      "for validation is '[-A-Za-z0-9]+')"};
}

// validateHTTPGetAction: a path, a port, HTTP or HTTPS, valid header names (reported at the
// list).
void validate_http_get(Causes& causes, const json& http, const std::string& path) {
  if (str(at(http, {"path"})).empty()) required(causes, path + ".path");
  port_num_or_name(causes, at(http, {"port"}), path + ".port");
  const std::string scheme = str(at(http, {"scheme"}));
  if (!one_of(scheme, {"HTTP", "HTTPS"})) unsupported(causes, path + ".scheme", scheme, {"HTTP", "HTTPS"});
  for (const auto& header : arr(at(http, {"httpHeaders"}))) {
    const std::string name = str(at(header, {"name"}));
    invalid_each(causes, path + ".httpHeaders", name, http_header_name_errors(name));
  }
}

// validateSleepAction (PodLifecycleSleepActionAllowZero is on): 0 up to the pod's grace period.
void validate_sleep(Causes& causes, const json& sleep, const json& grace_period, const std::string& path) {
  if (!grace_period.is_number()) return;
  const std::int64_t seconds = num(at(sleep, {"seconds"}));
  if (seconds < 0 || seconds > num(grace_period))
    invalid_value(
        causes, path, seconds,
        "must be non-negative and less than terminationGracePeriodSeconds (" + std::to_string(num(grace_period)) + ")");
}

// validateHandler: exactly one handler type, valid. `kinds` are the types the holder has
// (probes: exec, httpGet, tcpSocket, grpc; hooks: exec, httpGet, tcpSocket, sleep).
void validate_handler(Causes& causes, const json& handler, std::initializer_list<const char*> kinds,
                      const json& grace_period, const std::string& path) {
  int count = 0;
  for (const std::string kind : kinds) {
    const json& action = at(handler, {kind});
    if (action.is_null()) continue;
    const std::string field = path + "." + kind;
    if (count++ > 0) {
      forbidden(causes, field, "may not specify more than 1 handler type");
      continue;
    }
    if (kind == "exec" && arr(at(action, {"command"})).empty()) required(causes, field + ".command");
    if (kind == "httpGet") validate_http_get(causes, action, field);
    if (kind == "tcpSocket" || kind == "grpc") port_num_or_name(causes, at(action, {"port"}), field + ".port");
    if (kind == "sleep") validate_sleep(causes, action, grace_period, field);
  }
  if (count == 0) required(causes, path, "must specify a handler type");
}

// validateLifecycle: each hook set has a valid handler.
void validate_lifecycle(Causes& causes, const json& lifecycle, const json& grace_period, const std::string& path) {
  for (const char* hook : {"postStart", "preStop"})
    if (const json& handler = at(lifecycle, {hook}); !handler.is_null())
      validate_handler(causes, handler, {"exec", "httpGet", "tcpSocket", "sleep"}, grace_period, path + "." + hook);
}

// validateProbe, with the rules of its kind: liveness and startup probes succeed once;
// readiness probes have no grace period of their own.
void validate_probe(Causes& causes, const json& probe, std::string_view kind, const json& grace_period,
                    const std::string& path) {
  if (probe.is_null()) return;
  validate_handler(causes, probe, {"exec", "httpGet", "tcpSocket", "grpc"}, grace_period, path);
  for (const char* key :
       {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"})
    if (const json& value = at(probe, {key}); value.is_number() && num(value) < 0)
      invalid_value(causes, path + "." + key, num(value), "must be greater than or equal to 0");
  const json& grace = at(probe, {"terminationGracePeriodSeconds"});
  if (grace.is_number() && num(grace) <= 0)
    invalid_value(causes, path + ".terminationGracePeriodSeconds", num(grace), "must be greater than 0");
  if (kind != "readinessProbe" && num(at(probe, {"successThreshold"})) != 1)
    invalid_value(causes, path + ".successThreshold", num(at(probe, {"successThreshold"})), "must be 1");
  if (kind == "readinessProbe" && !grace.is_null())
    invalid_value(causes, path + ".terminationGracePeriodSeconds", grace, "must not be set for readinessProbes");
}

// What regular containers and sidecars have: lifecycle hooks and the three probes.
void validate_hooks_and_probes(Causes& causes, const json& c, const json& grace_period, const std::string& path) {
  if (const json& lifecycle = at(c, {"lifecycle"}); !lifecycle.is_null())
    validate_lifecycle(causes, lifecycle, grace_period, path + ".lifecycle");
  for (const char* kind : {"livenessProbe", "readinessProbe", "startupProbe"})
    validate_probe(causes, at(c, {kind}), kind, grace_period, path + "." + kind);
}

// ---- the lists ---------------------------------------------------------------------------------

// validateContainers' own part for the regular containers at `path`: unique names, hooks and
// probes, no restartPolicy, and no host port taken twice across them.
void validate_regular_containers(Causes& causes, const json& containers, const PodContext& pod,
                                 const std::string& path) {
  std::set<std::string> names;
  std::vector<const json*> all;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string field = index_path(path, i);
    all.push_back(&c);
    validate_container_common(causes, c, pod, field);
    if (const std::string name = str(at(c, {"name"})); !names.insert(name).second)
      duplicate(causes, field + ".name", name);
    validate_hooks_and_probes(causes, c, pod.grace_period, field);
    if (!at(c, {"restartPolicy"}).is_null())
      forbidden(causes, field + ".restartPolicy", "may not be set for non-init containers");
  }
  check_host_port_conflicts(causes, all, path);
}

// validateInitContainers: the common checks, restartPolicy only Always (a sidecar), names
// unique across init and regular containers, host ports unique within each one (reported at
// index 0, as Kubernetes does), hooks and probes only for sidecars. A resizePolicy is allowed
// (AllowSidecarResizePolicy holds while InPlacePodVerticalScaling is on).
void validate_init_containers(Causes& causes, const json& spec, const PodContext& pod, const std::string& path) {
  std::set<std::string> names;
  for (const auto& c : arr(at(spec, {"containers"}))) names.insert(str(at(c, {"name"})));
  const json& init = arr(at(spec, {"initContainers"}));
  for (std::size_t i = 0; i < init.size(); ++i) {
    const json& c = init[i];
    const std::string field = index_path(path, i);
    validate_container_common(causes, c, pod, field);
    const json& restart = at(c, {"restartPolicy"});
    if (!restart.is_null() && str(restart) != "Always")
      unsupported(causes, field + ".restartPolicy", str(restart), {"Always"});
    const std::string name = str(at(c, {"name"}));
    if (names.contains(name))
      duplicate(causes, field + ".name", name);
    else if (!name.empty())
      names.insert(name);
    check_host_port_conflicts(causes, {&c}, path);
    if (str(restart) == "Always") {
      validate_hooks_and_probes(causes, c, pod.grace_period, field);
    } else {
      for (const char* key : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"})
        if (!at(c, {key}).is_null())
          forbidden(causes, field + "." + key, "may not be set for init containers without restartPolicy=Always");
    }
  }
}

// validatePodHostNetworkDeps: with hostNetwork, a host port that is set equals the container
// port. (A pod's unset host ports are defaulted to the container port before validation, so
// the pod-only rule for unset ones never fires.)
void validate_host_network_deps(Causes& causes, const json& spec, const std::string& path) {
  if (!is_true(at(spec, {"hostNetwork"}))) return;
  const json& containers = arr(at(spec, {"containers"}));
  for (std::size_t c = 0; c < containers.size(); ++c) {
    const json& ports = arr(at(containers[c], {"ports"}));
    for (std::size_t p = 0; p < ports.size(); ++p) {
      const std::int64_t host = num(at(ports[p], {"hostPort"}));
      if (host != 0 && host != num(at(ports[p], {"containerPort"})))
        invalid_value(causes, index_path(index_path(path + ".containers", c) + ".ports", p) + ".hostPort", host,
                      "must match `containerPort` when `hostNetwork` is true");
    }
  }
}

PodContext pod_context(const json& spec, const PodVolumes& volumes) {
  PodContext pod{volumes,
                 {},
                 at(spec, {"terminationGracePeriodSeconds"}),
                 str(at(spec, {"restartPolicy"})),
                 !is_false(at(spec, {"hostUsers"}))};
  for (const auto& claim : arr(at(spec, {"resourceClaims"})))
    if (const std::string name = str(at(claim, {"name"})); !name.empty()) pod.claim_names.insert(name);
  return pod;
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
  std::set<std::string> names;
  for (std::size_t i = 0; i < containers.size(); ++i)
    validate_container_identity(causes, containers[i], names, index_path(path + ".containers", i));
  const auto& init = arr(at(pod_spec, {"initContainers"}));
  for (std::size_t i = 0; i < init.size(); ++i)
    validate_container_identity(causes, init[i], names, index_path(path + ".initContainers", i));
}

// ValidatePodSpec's container steps: validateContainers (at least one), validateInitContainers,
// then (after the ephemeral containers, which core_v1.cpp checks) validatePodHostNetworkDeps.
void validate_pod_containers(Causes& causes, const json& spec, const PodVolumes& volumes, const std::string& path,
                             const PodRatchets& ratchets) {
  PodContext pod = pod_context(spec, volumes);
  pod.ratchets = ratchets;
  const json& containers = at(spec, {"containers"});
  if (!containers.is_array() || containers.empty())
    required(causes, path + ".containers");
  else
    validate_regular_containers(causes, containers, pod, path + ".containers");
  validate_init_containers(causes, spec, pod, path + ".initContainers");
  validate_host_network_deps(causes, spec, path);
}

bool uses_indivisible_huge_pages(const json& spec) {
  bool whole = all_whole_huge_pages(at(spec, {"overhead"}));
  visit_containers_with_path(spec, "", [&](const json& container, const std::string&) {
    whole = whole && all_whole_huge_pages(at(container, {"resources", "limits"})) &&
            all_whole_huge_pages(at(container, {"resources", "requests"}));
  });
  return !whole;
}

}  // namespace kw::kinds
