// ValidatePodStatusUpdate: what a write to pods/{name}/status may change.
#include <set>
#include <string>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

// validatePodConditions: conditions beyond the system ones have qualified-name types (reported
// under "metadata.conditions", as Kubernetes does).
void pod_conditions(Causes& causes, const json& conditions) {
  for (std::size_t i = 0; i < arr(conditions).size(); ++i) {
    const std::string type = str(at(conditions[i], {"type"}));
    if (one_of(type, {"PodScheduled", "Ready", "Initialized"})) continue;
    invalid_each(causes, index_path("metadata.conditions", i) + ".Type", type, qualified_name_errors(type));
  }
}

// ValidateContainerStateTransition: under a restart policy that does not restart it, a
// terminated container stays terminated. `restartable` names init containers that restart
// anyway (sidecars).
void state_transitions(Causes& causes, const json& now, const json& before, const std::string& path,
                       const std::string& restart_policy, const std::set<std::string>& restartable = {}) {
  if (restart_policy == "Always") return;
  const json& old_statuses = arr(before);
  for (std::size_t i = 0; i < old_statuses.size(); ++i) {
    const json& terminated = at(old_statuses[i], {"state", "terminated"});
    if (!terminated.is_object()) continue;
    const json& exit_code = at(terminated, {"exitCode"});
    if (exit_code.is_number() && exit_code != 0 && restart_policy == "OnFailure") continue;
    const std::string name = str(at(old_statuses[i], {"name"}));
    if (restartable.contains(name)) continue;
    for (const json& status : arr(now))
      if (str(at(status, {"name"})) == name && !at(status, {"state", "terminated"}).is_object())
        forbidden(causes, index_path(path, i) + ".state", "may not be transitioned to non-terminated state");
  }
}

// %#v of a []core.PodIP or []core.HostIP.
std::string go_ip_list(const json& ips, const char* type) {
  std::string out = std::string("[]core.") + type + "{";
  for (std::size_t i = 0; i < ips.size(); ++i)
    out += (i ? ", " : "") + std::string("core.") + type + "{IP:" + go_quoted(at(ips[i], {"ip"})) + "}";
  return out + "}";
}

// validatePodIPs and validateHostIPs: valid addresses, at most one of each family, no repeats.
void status_ips(Causes& causes, const json& ips, const std::string& path, const char* type) {
  const json& list = arr(ips);
  int v4 = 0, v6 = 0;
  bool all_parsed = true;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ip = str(at(list[i], {"ip"}));
    const auto parsed = parse_ip(ip);
    if (!parsed) {
      invalid_value(causes, index_path(path, i), ip, k_ip_help);
      all_parsed = false;
    } else {
      ++(is_v4(*parsed) ? v4 : v6);
    }
  }
  if (list.size() <= 1) return;
  auto repeats = [&] {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!seen.insert(str(at(list[i], {"ip"}))).second)
        duplicate_rendered(causes, index_path(path, i),
                           std::string("core.") + type + "{IP:" + go_quoted(at(list[i], {"ip"})) + "}");
  };
  // (host IPs are checked for repeats before their families, pod IPs after)
  if (std::string_view(type) == "HostIP") repeats();
  // (an address that does not parse fails the family check too, as IsDualStackIPStrings does)
  if (!all_parsed || v4 == 0 || v6 == 0 || list.size() > 2)
    invalid_rendered(causes, path, go_ip_list(list, type), "may specify no more than one IP for each IP family");
  if (std::string_view(type) == "PodIP") repeats();
}

}  // namespace

void validate_pod_status_update(const json& pod, const json& old, Causes& causes) {
  validate_pod_annotation_updates(causes, pod, old);
  pod_conditions(causes, at(pod, {"status", "conditions"}));
  if (at(pod, {"spec", "nodeName"}) != at(old, {"spec", "nodeName"}))
    forbidden(causes, "status.nodeName", "may not be changed directly");
  const std::string nominated = str(at(pod, {"status", "nominatedNodeName"}));
  if (!nominated.empty() && nominated != str(at(old, {"status", "nominatedNodeName"})))
    invalid_each(causes, "status.nominatedNodeName", nominated, subdomain_errors(nominated));
  const std::string restart = str(at(old, {"spec", "restartPolicy"}));
  state_transitions(causes, at(pod, {"status", "containerStatuses"}), at(old, {"status", "containerStatuses"}),
                    "status.containerStatuses", restart);
  std::set<std::string> sidecars;
  for (const json& container : arr(at(old, {"spec", "initContainers"})))
    if (str(at(container, {"restartPolicy"})) == "Always") sidecars.insert(str(at(container, {"name"})));
  state_transitions(causes, at(pod, {"status", "initContainerStatuses"}), at(old, {"status", "initContainerStatuses"}),
                    "status.initContainerStatuses", restart, sidecars);
  state_transitions(causes, at(pod, {"status", "ephemeralContainerStatuses"}),
                    at(old, {"status", "ephemeralContainerStatuses"}), "status.ephemeralContainerStatuses", "Never");
  // validatePodResourceClaimStatuses
  std::set<std::string> claims, seen;
  for (const json& claim : arr(at(pod, {"spec", "resourceClaims"}))) claims.insert(str(at(claim, {"name"})));
  const json& claim_statuses = arr(at(pod, {"status", "resourceClaimStatuses"}));
  for (std::size_t i = 0; i < claim_statuses.size(); ++i) {
    const std::string name = str(at(claim_statuses[i], {"name"}));
    const std::string field = index_path("status.resourceClaimStatuses", i) + ".name";
    if (!claims.contains(name)) invalid_value(causes, field, name, "must match the name of an entry in `spec.resourceClaims`");
    if (!seen.insert(name).second) duplicate(causes, field, name);
    if (const json& claim_name = at(claim_statuses[i], {"resourceClaimName"}); claim_name.is_string())
      invalid_each(causes, field, claim_name, subdomain_errors(str(claim_name)));
  }
  status_ips(causes, at(pod, {"status", "podIPs"}), "status.podIPs", "PodIP");
  const json& host_ips = arr(at(pod, {"status", "hostIPs"}));
  if (!host_ips.empty() && str(at(pod, {"status", "hostIP"})) != str(at(host_ips[0], {"ip"})))
    invalid_value(causes, "status.hostIPs[0].ip", at(host_ips[0], {"ip"}), "must be equal to `hostIP`");
  status_ips(causes, host_ips, "status.hostIPs", "HostIP");
}

}  // namespace kw::kinds
