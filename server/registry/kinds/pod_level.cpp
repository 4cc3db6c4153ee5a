// A pod spec's pod-level fields: its security context, scheduling constraints, DNS settings
// and the fields that depend on its operating system.
//
// Kubernetes keeps hostNetwork, hostPID, hostIPC, hostUsers and shareProcessNamespace in the
// internal PodSecurityContext (which conversion always creates), so the rules below read them
// from the v1 spec but report some of them under securityContext, as kube-apiserver does.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

namespace {


// ---- IDs, sysctls and policies of the pod's security context ----------------------------------

// IsValidUserID / IsValidGroupID: an ID, when set, within 0..2147483647.
void id_in_range(Causes& causes, const std::string& field, const json& id) {
  if (id.is_number() && (num(id) < 0 || num(id) > 2147483647))
    invalid_value(causes, field, id, "must be between 0 and 2147483647, inclusive");
}

// IsValidSysctlName: at most 253 characters of dot- or slash-separated segments, each
// [a-z0-9]([-_a-z0-9]*[a-z0-9])?.
bool valid_sysctl_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find_first_of("./", start), name.size());
    const std::string_view segment = name.substr(start, end - start);
    if (segment.empty()) return false;
    for (const char c : segment)
      if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' && c != '_') return false;
    if (!ascii_alnum(segment.front()) || !ascii_alnum(segment.back())) return false;
    start = end + 1;
  }
  return true;
}

// utilsysctl.NormalizeName: a name whose first separator is '/' has '.' and '/' swapped.
std::string normalized_sysctl(std::string name) {
  const std::size_t first = name.find_first_of("./");
  if (first == std::string::npos || name[first] == '.') return name;
  for (char& c : name) c = c == '.' ? '/' : c == '/' ? '.' : c;
  return name;
}

// utilsysctl.GetNamespace: "net" for net.*, "ipc" for kernel.shm*, kernel.msg*, kernel.sem and
// fs.mqueue.*, "" for the rest.
std::string_view sysctl_namespace(const std::string& sysctl) {
  const std::string name = normalized_sysctl(sysctl);
  if (name.starts_with("net.")) return "net";
  if (name == "kernel.sem" || name.starts_with("kernel.shm") || name.starts_with("kernel.msg") ||
      name.starts_with("fs.mqueue."))
    return "ipc";
  return "";
}

// ValidateHostSysctl: no namespaced sysctl of a namespace the pod shares with its host; what is
// wrong with `name`, if anything.
const char* host_sysctl_error(const json& spec, const std::string& name) {
  const std::string_view ns = sysctl_namespace(name);
  if (is_true(at(spec, {"hostNetwork"})) && ns == "net") return "may not be specified when 'hostNetwork' is true";
  if (is_true(at(spec, {"hostIPC"})) && ns == "ipc") return "may not be specified when 'hostIPC' is true";
  return nullptr;
}

// validateSysctls: each sysctl named, validly, once; none of a host namespace (unless the stored
// spec had one).
void validate_sysctls(Causes& causes, const json& spec, const json& sysctls, const std::string& path,
                      const PodRatchets& ratchets) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < arr(sysctls).size(); ++i) {
    const std::string name = str(at(sysctls[i], {"name"}));
    const std::string field = index_path(path, i) + ".name";
    if (name.empty())
      required(causes, field);
    else if (!valid_sysctl_name(name))
      invalid_value(causes, field, name,
                    R"(must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*)"
                    R"([a-z0-9]([-_a-z0-9]*[a-z0-9])?$)");
    else if (names.contains(name))
      duplicate(causes, field, name);
    if (const char* error = host_sysctl_error(spec, name); error != nullptr && !ratchets.host_namespace_sysctls)
      invalid_value(causes, field, name, error);
    names.insert(name);
  }
}

// A policy field that, when set, takes one of `supported` (sorted).
void policy_field(Causes& causes, const json& value, const std::string& field,
                  std::initializer_list<std::string_view> supported) {
  if (!value.is_null() && !one_of(str(value), supported)) unsupported(causes, field, value, supported);
}

// validatePodSpecSecurityContext: IDs in range, no shared process namespace with the host's,
// valid sysctls, fsGroupChangePolicy, the seccomp profile, Windows options, AppArmor profile,
// supplementalGroupsPolicy and seLinuxChangePolicy.
void validate_pod_security_context(Causes& causes, const json& spec, const std::string& path,
                                   const PodRatchets& ratchets) {
  const json& sc = at(spec, {"securityContext"});
  const std::string sc_path = path + ".securityContext";
  id_in_range(causes, sc_path + ".fsGroup", at(sc, {"fsGroup"}));
  id_in_range(causes, sc_path + ".runAsUser", at(sc, {"runAsUser"}));
  id_in_range(causes, sc_path + ".runAsGroup", at(sc, {"runAsGroup"}));
  const json& groups = arr(at(sc, {"supplementalGroups"}));
  for (std::size_t g = 0; g < groups.size(); ++g)
    id_in_range(causes, index_path(sc_path + ".supplementalGroups", g), groups[g]);
  if (is_true(at(spec, {"shareProcessNamespace"})) && is_true(at(spec, {"hostPID"})))
    invalid_value(causes, sc_path + ".shareProcessNamespace", true,
                  "ShareProcessNamespace and HostPID cannot both be enabled");
  validate_sysctls(causes, spec, at(sc, {"sysctls"}), sc_path + ".sysctls", ratchets);
  policy_field(causes, at(sc, {"fsGroupChangePolicy"}), sc_path + ".fsGroupChangePolicy", {"Always", "OnRootMismatch"});
  validate_seccomp_profile_field(causes, at(sc, {"seccompProfile"}), sc_path + ".seccompProfile");
  validate_windows_options(causes, at(sc, {"windowsOptions"}), sc_path + ".windowsOptions");
  validate_app_armor_profile(causes, at(sc, {"appArmorProfile"}), sc_path + ".appArmorProfile");
  policy_field(causes, at(sc, {"supplementalGroupsPolicy"}), sc_path + ".supplementalGroupsPolicy",
               {"Merge", "Strict"});
  // 1.33 serves seLinuxChangePolicy (SELinuxChangePolicy, beta) but not MountOption's mounts
  // (SELinuxMount, beta and off): only Recursive, unless the stored spec already set a policy.
  const json& change_policy = at(sc, {"seLinuxChangePolicy"});
  if (ratchets.any_se_linux_change_policy)
    policy_field(causes, change_policy, sc_path + ".seLinuxChangePolicy", {"MountOption", "Recursive"});
  else
    policy_field(causes, change_policy, sc_path + ".seLinuxChangePolicy", {"Recursive"});
}

// ---- affinity ------------------------------------------------------------------------------------

// ValidateNodeSelectorRequirement: the operator fits the values, the key is a label name and,
// for a required node selector, each value a label value.
void node_selector_requirement(Causes& causes, const json& requirement, bool check_values, const std::string& path) {
  const json& values = arr(at(requirement, {"values"}));
  const std::string op = str(at(requirement, {"operator"}));
  if (op == "In" || op == "NotIn") {
    if (values.empty()) required(causes, path + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty())
      forbidden(causes, path + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
  } else if (op == "Gt" || op == "Lt") {
    if (values.size() != 1)
      required(causes, path + ".values", "must be specified single value when `operator` is 'Lt' or 'Gt'");
  } else {
    invalid_value(causes, path + ".operator", op, "not a valid selector operator");
  }
  const std::string key = str(at(requirement, {"key"}));
  invalid_each(causes, path + ".key", key, qualified_name_errors(key));
  if (!check_values) return;
  for (std::size_t v = 0; v < values.size(); ++v)
    invalid_each(causes, index_path(path + ".values", v), values[v], label_value_errors(str(values[v])));
}

// ValidateNodeFieldSelectorRequirement: In or NotIn with one value, on metadata.name only, whose
// values are node names.
void node_field_requirement(Causes& causes, const json& requirement, const std::string& path) {
  const json& values = arr(at(requirement, {"values"}));
  const std::string op = str(at(requirement, {"operator"}));
  if (op == "In" || op == "NotIn") {
    if (values.size() != 1)
      required(causes, path + ".values",
               "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
  } else {
    invalid_value(causes, path + ".operator", op, "not a valid selector operator");
  }
  const std::string key = str(at(requirement, {"key"}));
  if (key != "metadata.name") {
    invalid_value(causes, path + ".key", key, "not a valid field selector key");
    return;
  }
  for (std::size_t v = 0; v < values.size(); ++v)
    invalid_each(causes, index_path(path + ".values", v), values[v], subdomain_errors(str(values[v])));
}

// ValidateNodeSelectorTerm: its matchExpressions, then its matchFields.
void validate_node_selector_term(Causes& causes, const json& term, bool check_values, const std::string& path) {
  const json& expressions = arr(at(term, {"matchExpressions"}));
  for (std::size_t i = 0; i < expressions.size(); ++i)
    node_selector_requirement(causes, expressions[i], check_values, index_path(path + ".matchExpressions", i));
  const json& fields = arr(at(term, {"matchFields"}));
  for (std::size_t i = 0; i < fields.size(); ++i)
    node_field_requirement(causes, fields[i], index_path(path + ".matchFields", i));
}

// A weight of a preferred term: 1 to 100.
void term_weight(Causes& causes, const json& term, const std::string& path) {
  const json& weight = at(term, {"weight"});
  if (num(weight) <= 0 || num(weight) > 100)
    invalid_value(causes, path + ".weight", weight.is_number() ? weight : json(0), "must be in the range 1-100");
}

// validateNodeAffinity: the required node selector, then each preferred term's weight and
// preference (whose values are not checked as label values).
void validate_node_affinity(Causes& causes, const json& affinity, const std::string& path) {
  if (const json& selector = at(affinity, {"requiredDuringSchedulingIgnoredDuringExecution"}); selector.is_object())
    validate_node_selector(causes, selector, path + ".requiredDuringSchedulingIgnoredDuringExecution");
  const json& preferred = arr(at(affinity, {"preferredDuringSchedulingIgnoredDuringExecution"}));
  for (std::size_t i = 0; i < preferred.size(); ++i) {
    const std::string term = index_path(path + ".preferredDuringSchedulingIgnoredDuringExecution", i);
    term_weight(causes, preferred[i], term);
    validate_node_selector_term(causes, at(preferred[i], {"preference"}), false, term + ".preference");
  }
}

// validateLabelKeys: keys are only given beside a label selector, and are label names.
void label_keys(Causes& causes, const json& keys, const json& selector, const std::string& path) {
  if (arr(keys).empty()) return;
  if (selector.is_null()) {
    forbidden(causes, path, "must not be specified when labelSelector is not set");
    return;
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    invalid_each(causes, index_path(path, i), keys[i], qualified_name_errors(str(keys[i])));
}

// validateMatchLabelKeysAndMismatchLabelKeys: valid keys; a matchLabelKeys key the label selector
// already had (besides the requirement created from it) is reported at the term's index, as
// Kubernetes does; no key in both lists.
void match_label_keys(Causes& causes, const json& term, const std::string& path) {
  const json& selector = at(term, {"labelSelector"});
  const json& match = arr(at(term, {"matchLabelKeys"}));
  const json& mismatch = arr(at(term, {"mismatchLabelKeys"}));
  label_keys(causes, match, selector, path + ".matchLabelKeys");
  label_keys(causes, mismatch, selector, path + ".mismatchLabelKeys");
  if (selector.is_object()) {
    std::map<std::string, std::size_t> match_index;
    for (std::size_t i = 0; i < match.size(); ++i) match_index[str(match[i])] = i;
    std::set<std::string> seen;
    if (const json& labels = at(selector, {"matchLabels"}); labels.is_object())
      for (const auto& [key, value] : labels.items()) seen.insert(key);
    for (const auto& expression : arr(at(selector, {"matchExpressions"}))) {
      const std::string key = str(at(expression, {"key"}));
      if (const auto found = match_index.find(key); found != match_index.end() && seen.contains(key))
        invalid_value(causes, index_path(path, found->second), key, "exists in both matchLabelKeys and labelSelector");
      seen.insert(key);
    }
  }
  std::set<std::string> mismatch_keys;
  for (const auto& key : mismatch) mismatch_keys.insert(str(key));
  for (std::size_t i = 0; i < match.size(); ++i)
    if (mismatch_keys.contains(str(match[i])))
      invalid_value(causes, index_path(path + ".matchLabelKeys", i), match[i],
                    "exists in both matchLabelKeys and mismatchLabelKeys");
}

// validatePodAffinityTerm: its label and namespace selectors, namespace names (reported at
// ".namespace"), label keys, and a topologyKey that is a label name.
void pod_affinity_term(Causes& causes, const json& term, const std::string& path) {
  validate_label_selector(causes, at(term, {"labelSelector"}), path + ".labelSelector");
  validate_label_selector(causes, at(term, {"namespaceSelector"}), path + ".namespaceSelector");
  for (const auto& name : arr(at(term, {"namespaces"})))
    invalid_each(causes, path + ".namespace", name, dns1123_label_errors(str(name)));
  match_label_keys(causes, term, path);
  const std::string topology_key = str(at(term, {"topologyKey"}));
  if (topology_key.empty()) required(causes, path + ".topologyKey", "can not be empty");
  invalid_each(causes, path + ".topologyKey", topology_key, qualified_name_errors(topology_key));
}

// validatePodAffinity and validatePodAntiAffinity: required terms, then weighted preferred ones.
void validate_pod_affinity(Causes& causes, const json& affinity, const std::string& path) {
  const std::string required_path = path + ".requiredDuringSchedulingIgnoredDuringExecution";
  const json& required_terms = arr(at(affinity, {"requiredDuringSchedulingIgnoredDuringExecution"}));
  for (std::size_t i = 0; i < required_terms.size(); ++i)
    pod_affinity_term(causes, required_terms[i], index_path(required_path, i));
  const std::string preferred_path = path + ".preferredDuringSchedulingIgnoredDuringExecution";
  const json& preferred = arr(at(affinity, {"preferredDuringSchedulingIgnoredDuringExecution"}));
  for (std::size_t i = 0; i < preferred.size(); ++i) {
    term_weight(causes, preferred[i], index_path(preferred_path, i));
    pod_affinity_term(causes, at(preferred[i], {"podAffinityTerm"}),
                      index_path(preferred_path, i) + ".podAffinityTerm");
  }
}

// validateAffinity.
void validate_affinity(Causes& causes, const json& affinity, const std::string& path) {
  if (const json& node = at(affinity, {"nodeAffinity"}); node.is_object())
    validate_node_affinity(causes, node, path + ".nodeAffinity");
  if (const json& pod = at(affinity, {"podAffinity"}); pod.is_object())
    validate_pod_affinity(causes, pod, path + ".podAffinity");
  if (const json& anti = at(affinity, {"podAntiAffinity"}); anti.is_object())
    validate_pod_affinity(causes, anti, path + ".podAntiAffinity");
}

// ---- DNS, gates, topology spread -----------------------------------------------------------------

// An IP of a field kept to its legacy parsing (StrictIPCIDRValidation off): what
// netutils.ParseIPSloppy takes.
void legacy_ip(Causes& causes, const std::string& field, const json& ip) {
  if (!parse_ip(str(ip))) invalid_value(causes, field, str(ip), k_ip_help);
}

// validatePodDNSConfig: dnsPolicy None needs a config with a nameserver; at most 3 valid
// nameservers, at most 32 search domains of 2048 characters in all, each a subdomain (a trailing
// dot allowed); named options.
void validate_dns_config(Causes& causes, const json& spec, const std::string& path) {
  const json& config = at(spec, {"dnsConfig"});
  const json& nameservers = arr(at(config, {"nameservers"}));
  if (str(at(spec, {"dnsPolicy"})) == "None") {
    if (config.is_null()) return required(causes, path, "must provide `dnsConfig` when `dnsPolicy` is None");
    if (nameservers.empty())
      return required(causes, path + ".nameservers",
                      "must provide at least one DNS nameserver when `dnsPolicy` is None");
  }
  if (config.is_null()) return;
  if (nameservers.size() > 3)
    invalid_rendered(causes, path + ".nameservers", go_slice(nameservers), "must not have more than 3 nameservers");
  for (std::size_t i = 0; i < nameservers.size(); ++i)
    legacy_ip(causes, index_path(path + ".nameservers", i), nameservers[i]);
  const json& searches = arr(at(config, {"searches"}));
  if (searches.size() > 32)
    invalid_rendered(causes, path + ".searches", go_slice(searches), "must not have more than 32 search paths");
  std::size_t joined = searches.empty() ? 0 : searches.size() - 1;
  for (const auto& search : searches) joined += str(search).size();
  if (joined > 2048)
    invalid_rendered(causes, path + ".searches", go_slice(searches),
                     "must not have more than 2048 characters (including spaces) in the search list");
  // RelaxedDNSSearchValidation (beta, on, in 1.33): underscores allowed, and "." alone.
  for (std::size_t i = 0; i < searches.size(); ++i) {
    std::string search = str(searches[i]);
    if (search == ".") continue;
    if (search.ends_with('.')) search.pop_back();
    invalid_each(causes, index_path(path + ".searches", i), search, underscore_subdomain_errors(search));
  }
  const json& options = arr(at(config, {"options"}));
  for (std::size_t i = 0; i < options.size(); ++i)
    if (str(at(options[i], {"name"})).empty()) required(causes, index_path(path + ".options", i), "must not be empty");
}

// validateReadinessGates: each condition type a qualified name.
void validate_readiness_gates(Causes& causes, const json& gates, const std::string& path) {
  for (std::size_t i = 0; i < arr(gates).size(); ++i) {
    const std::string type = str(at(gates[i], {"conditionType"}));
    invalid_each(causes, index_path(path, i) + ".conditionType", type, qualified_name_errors(type));
  }
}

// validateSchedulingGates: each gate named with a qualified name, once.
void validate_scheduling_gates(Causes& causes, const json& gates, const std::string& path) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr(gates).size(); ++i) {
    const std::string name = str(at(gates[i], {"name"}));
    invalid_each(causes, index_path(path, i), name, qualified_name_errors(name));
    if (!seen.insert(name).second) duplicate(causes, index_path(path, i), name);
  }
}

// validateMatchLabelKeysInTopologySpread: keys given beside a label selector, label names not
// already in it.
void spread_match_label_keys(Causes& causes, const json& constraint, const std::string& path) {
  const json& keys = arr(at(constraint, {"matchLabelKeys"}));
  if (keys.empty()) return;
  const json& selector = at(constraint, {"labelSelector"});
  std::set<std::string> selector_keys;
  if (selector.is_null()) forbidden(causes, path, "must not be specified when labelSelector is not set");
  if (const json& labels = at(selector, {"matchLabels"}); labels.is_object())
    for (const auto& [key, value] : labels.items()) selector_keys.insert(key);
  for (const auto& expression : arr(at(selector, {"matchExpressions"})))
    selector_keys.insert(str(at(expression, {"key"})));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string key = str(keys[i]);
    invalid_each(causes, index_path(path, i), key, qualified_name_errors(key));
    if (selector_keys.contains(key))
      invalid_value(causes, index_path(path, i), key, "exists in both matchLabelKeys and labelSelector");
  }
}

// validateMinDomains: positive, and only with whenUnsatisfiable DoNotSchedule.
void spread_min_domains(Causes& causes, const json& constraint, const std::string& path) {
  const json& min_domains = at(constraint, {"minDomains"});
  if (min_domains.is_null()) return;
  if (num(min_domains) <= 0) invalid_value(causes, path, min_domains, "must be greater than zero");
  const std::string action = str(at(constraint, {"whenUnsatisfiable"}));
  if (action != "DoNotSchedule")
    invalid_value(causes, path, min_domains,
                  "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + action);
}

// One topology spread constraint at `path`; `later` are the constraints after it.
void spread_constraint(Causes& causes, const json& constraint, std::span<const json> later, const std::string& path) {
  const json& max_skew = at(constraint, {"maxSkew"});
  if (num(max_skew) <= 0)
    invalid_value(causes, path + ".maxSkew", max_skew.is_number() ? max_skew : json(0), "must be greater than zero");
  const std::string key = str(at(constraint, {"topologyKey"}));
  if (key.empty()) required(causes, path + ".topologyKey", "can not be empty");
  const std::string action = str(at(constraint, {"whenUnsatisfiable"}));
  if (!one_of(action, {"DoNotSchedule", "ScheduleAnyway"}))
    unsupported(causes, path + ".whenUnsatisfiable", action, {"DoNotSchedule", "ScheduleAnyway"});
  for (const auto& other : later)
    if (str(at(other, {"topologyKey"})) == key && str(at(other, {"whenUnsatisfiable"})) == action) {
      duplicate(causes, path + ".{topologyKey, whenUnsatisfiable}", "{" + key + ", " + action + "}");
      break;
    }
  spread_min_domains(causes, constraint, path + ".minDomains");
  policy_field(causes, at(constraint, {"nodeAffinityPolicy"}), path + ".nodeAffinityPolicy", {"Honor", "Ignore"});
  policy_field(causes, at(constraint, {"nodeTaintsPolicy"}), path + ".nodeTaintsPolicy", {"Honor", "Ignore"});
  spread_match_label_keys(causes, constraint, path + ".matchLabelKeys");
  validate_label_selector(causes, at(constraint, {"labelSelector"}), path + ".labelSelector");
}

// validateTopologySpreadConstraints.
void validate_topology_spread(Causes& causes, const json& constraints, const std::string& path) {
  const json& list = arr(constraints);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::span<const json> later(list.get_ref<const json::array_t&>().data() + i + 1, list.size() - i - 1);
    spread_constraint(causes, list[i], later, index_path(path, i));
  }
}

// ---- host process and host users -------------------------------------------------------------

// validateWindowsHostProcessPod: a container's hostProcess agrees with the pod's; if any
// container is a host process, all are and the pod uses the host's network. Privileged pods
// are allowed (--allow-privileged=true), so "disallowed by cluster policy" never applies.
void validate_host_process(Causes& causes, const json& spec, const std::string& path) {
  const json& pod_value = at(spec, {"securityContext", "windowsOptions", "hostProcess"});
  const bool pod_set = pod_value.is_boolean();
  std::size_t containers = 0, host_process = 0;
  visit_containers_with_path(spec, path, [&](const json& container, const std::string& container_path) {
    ++containers;
    const json& value = at(container, {"securityContext", "windowsOptions", "hostProcess"});
    if (pod_set && value.is_boolean() && value != pod_value)
      invalid_value(causes, container_path + ".securityContext.windowsOptions.hostProcess", value,
                    std::string("pod hostProcess value must be identical if both are specified, was ") +
                        (is_true(pod_value) ? "true" : "false"));
    if (is_true(value) || (!value.is_boolean() && is_true(pod_value))) ++host_process;
  });
  if (host_process == 0) return;
  if (host_process != containers)
    invalid_value(causes, path, "",
                  "If pod contains any hostProcess containers then all containers must be HostProcess containers");
  if (!is_true(at(spec, {"hostNetwork"})))
    invalid_value(causes, path + ".hostNetwork", false,
                  "hostNetwork must be true if pod contains any hostProcess containers");
}

// validateHostUsers: a pod in its own user namespace shares no other namespace with the host
// (the PID and IPC paths capitalised, as Kubernetes writes them).
void validate_host_users(Causes& causes, const json& spec, const std::string& path) {
  const json& host_users = at(spec, {"hostUsers"});
  if (!host_users.is_boolean() || host_users.get<bool>()) return;
  if (is_true(at(spec, {"hostNetwork"})))
    forbidden(causes, path + ".hostNetwork", "when `pod.Spec.HostUsers` is false");
  if (is_true(at(spec, {"hostPID"}))) forbidden(causes, path + ".HostPID", "when `pod.Spec.HostUsers` is false");
  if (is_true(at(spec, {"hostIPC"}))) forbidden(causes, path + ".HostIPC", "when `pod.Spec.HostUsers` is false");
}

// ---- extras: host aliases, classes, the operating system ---------------------------------------

// ValidateHostAliases: each alias a valid IP, each hostname a subdomain.
void validate_host_aliases(Causes& causes, const json& aliases, const std::string& path) {
  for (std::size_t i = 0; i < arr(aliases).size(); ++i) {
    const std::string alias = index_path(path, i);
    legacy_ip(causes, alias + ".ip", at(aliases[i], {"ip"}));
    const json& hostnames = arr(at(aliases[i], {"hostnames"}));
    for (std::size_t j = 0; j < hostnames.size(); ++j)
      invalid_each(causes, index_path(alias + ".hostnames", j), hostnames[j], subdomain_errors(str(hostnames[j])));
  }
}

// ValidatePreemptionPolicy: when set, PreemptLowerPriority or Never.
void validate_preemption_policy(Causes& causes, const json& policy, const std::string& field) {
  if (policy.is_null()) return;
  if (str(policy).empty()) return required(causes, field);
  if (!one_of(str(policy), {"PreemptLowerPriority", "Never"}))
    unsupported(causes, field, policy, {"PreemptLowerPriority", "Never"});
}

// The "cannot be set for a windows pod" error of each member of `object` named in `members`
// that is set, at <path>.<member>.
void windows_forbids(Causes& causes, const json& object, std::initializer_list<const char*> members,
                     const std::string& path) {
  for (const char* member : members)
    if (!at(object, {member}).is_null()) forbidden(causes, path + "." + member, "cannot be set for a windows pod");
}

// validateLinux: no Windows options on the pod or any container.
void validate_linux(Causes& causes, const json& spec, const std::string& path) {
  if (!at(spec, {"securityContext", "windowsOptions"}).is_null())
    forbidden(causes, path + ".securityContext.windowsOptions", "windows options cannot be set for a linux pod");
  visit_containers_with_path(spec, path, [&](const json& container, const std::string& container_path) {
    if (!at(container, {"securityContext", "windowsOptions"}).is_null())
      forbidden(causes, container_path + ".securityContext.windowsOptions",
                "windows options cannot be set for a linux pod");
  });
}

// validateWindows: none of the Linux-only pod and container security settings.
void validate_windows(Causes& causes, const json& spec, const std::string& path) {
  const json& sc = at(spec, {"securityContext"});
  const std::string sc_path = path + ".securityContext";
  windows_forbids(causes, sc, {"appArmorProfile", "seLinuxOptions"}, sc_path);
  windows_forbids(causes, spec, {"hostUsers"}, path);
  if (is_true(at(spec, {"hostPID"}))) forbidden(causes, path + ".hostPID", "cannot be set for a windows pod");
  if (is_true(at(spec, {"hostIPC"}))) forbidden(causes, path + ".hostIPC", "cannot be set for a windows pod");
  windows_forbids(causes, sc, {"seccompProfile", "fsGroup", "fsGroupChangePolicy"}, sc_path);
  if (!arr(at(sc, {"sysctls"})).empty()) forbidden(causes, sc_path + ".sysctls", "cannot be set for a windows pod");
  windows_forbids(causes, spec, {"shareProcessNamespace"}, path);
  windows_forbids(causes, sc, {"runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy"}, sc_path);
  visit_containers_with_path(spec, path, [&](const json& container, const std::string& container_path) {
    windows_forbids(causes, at(container, {"securityContext"}),
                    {"appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem",
                     "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup"},
                    container_path + ".securityContext");
  });
}

// validateOS, then the rules of the named system when it is a valid one.
void validate_os(Causes& causes, const json& spec, const std::string& path) {
  const json& os = at(spec, {"os"});
  if (os.is_null()) return;
  const std::string name = str(at(os, {"name"}));
  if (name.empty()) return required(causes, path + ".os.name", "cannot be empty");
  if (name == "linux") return validate_linux(causes, spec, path);
  if (name == "windows") return validate_windows(causes, spec, path);
  unsupported(causes, path + ".os", name, {"linux", "windows"});
}

}  // namespace

void validate_node_selector(Causes& causes, const json& selector, const std::string& path) {
  const json& terms = arr(at(selector, {"nodeSelectorTerms"}));
  if (terms.empty()) return required(causes, path + ".nodeSelectorTerms", "must have at least one node selector term");
  for (std::size_t t = 0; t < terms.size(); ++t)
    validate_node_selector_term(causes, terms[t], true, index_path(path + ".nodeSelectorTerms", t));
}

// ValidatePodSpec's order. validateImagePullSecrets has nothing to check here: a v1
// LocalObjectReference holds only a name.
void validate_pod_context(Causes& causes, const json& spec, const std::string& path, const PodRatchets& ratchets) {
  validate_pod_security_context(causes, spec, path, ratchets);
  validate_affinity(causes, at(spec, {"affinity"}), path + ".affinity");
  validate_dns_config(causes, spec, path + ".dnsConfig");
  validate_readiness_gates(causes, at(spec, {"readinessGates"}), path + ".readinessGates");
  validate_scheduling_gates(causes, at(spec, {"schedulingGates"}), path + ".schedulingGates");
  validate_topology_spread(causes, at(spec, {"topologySpreadConstraints"}), path + ".topologySpreadConstraints");
  validate_host_process(causes, spec, path);
  validate_host_users(causes, spec, path);
}

// ValidatePodSpec's order.
void validate_pod_extras(Causes& causes, const json& spec, const std::string& path, const PodRatchets& ratchets) {
  validate_host_aliases(causes, at(spec, {"hostAliases"}), path + ".hostAliases");
  if (const auto priority_class = str(at(spec, {"priorityClassName"})); !priority_class.empty())
    invalid_each(causes, path + ".priorityClassName", priority_class, subdomain_errors(priority_class));
  if (const json& runtime_class = at(spec, {"runtimeClassName"}); !runtime_class.is_null())
    invalid_each(causes, path + ".runtimeClassName", runtime_class, subdomain_errors(str(runtime_class)));
  validate_preemption_policy(causes, at(spec, {"preemptionPolicy"}), path + ".preemptionPolicy");
  // validateOverhead: the overhead held to the rules of limits.
  if (const json& overhead = at(spec, {"overhead"}); !overhead.is_null())
    validate_resource_requirements(causes, {{"limits", overhead}}, {}, path + ".overhead", ratchets);
  validate_os(causes, spec, path);
}

bool uses_host_namespace_sysctls(const json& spec) {
  return std::ranges::any_of(arr(at(spec, {"securityContext", "sysctls"})), [&](const json& sysctl) {
    return host_sysctl_error(spec, str(at(sysctl, {"name"}))) != nullptr;
  });
}

}  // namespace kw::kinds
