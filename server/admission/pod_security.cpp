// PodSecurity: the Pod Security Standards (privileged, baseline, restricted) as kube-apiserver's
// built-in plugin applies them, from each namespace's pod-security.kubernetes.io/ labels:
// - enforce: a pod that breaks the level is refused, `pods "x" is forbidden: violates
//   PodSecurity "restricted:latest": ...`;
// - warn: the same words after "would violate" come back as a warning, for pods and for the
//   pod templates of the workload kinds;
// - audit: they go to the audit event as the pod-security.kubernetes.io/audit-violations
//   annotation.
// Labels with bad values are refused on namespaces (422). Raising a namespace's enforce level
// warns about the pods already there that break it.
//
// The checks and their order follow the policy's "latest" (the checks of Kubernetes 1.33, whose
// newest is v1.31's): baseline checks by ID, then restricted ones by ID, and at restricted the
// baseline checks a restricted one replaces are left out. A pinned version (v1.x) evaluates
// the checks as they were in that version.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <span>

#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/kind_spec.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using registry::AdmissionRequest;
using registry::ApiResult;

constexpr std::string_view k_label_prefix = "pod-security.kubernetes.io/";

// ---- levels, versions, policies ----------------------------------------------------------------

enum class Level { privileged, baseline, restricted };

std::string_view level_name(Level level) {
  switch (level) {
    case Level::privileged: return "privileged";
    case Level::baseline: return "baseline";
    case Level::restricted: return "restricted";
  }
  return "privileged";
}

// A policy version: v1.MINOR, or latest (newer than any).
struct Version {
  bool latest = true;
  int minor = 0;
  bool operator==(const Version&) const = default;
  std::string text() const { return latest ? "latest" : "v1." + std::to_string(minor); }
};

struct LevelVersion {
  Level level = Level::privileged;
  Version version;
  bool operator==(const LevelVersion&) const = default;
  std::string text() const { return std::string(level_name(level)) + ":" + version.text(); }
};

struct NamespacePolicy {
  LevelVersion enforce, audit, warn;
};

std::optional<Level> parse_level(std::string_view text) {
  if (text == "privileged") return Level::privileged;
  if (text == "baseline") return Level::baseline;
  if (text == "restricted") return Level::restricted;
  return std::nullopt;
}

// "latest" or v1.N (no leading zero).
std::optional<Version> parse_version(std::string_view text) {
  if (text == "latest") return Version{};
  if (!text.starts_with("v1.") || text.size() == 3) return std::nullopt;
  const std::string_view digits = text.substr(3);
  if (digits.size() > 1 && digits.front() == '0') return std::nullopt;
  int minor = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9' || minor > 100000) return std::nullopt;
    minor = minor * 10 + (c - '0');
  }
  return Version{.latest = false, .minor = minor};
}

// The three modes, as labels (pod-security.kubernetes.io/MODE[-version]) and configuration
// defaults (MODE[-version]) name them; a bad level leaves enforce at restricted, audit and warn
// at privileged.
struct Mode {
  const char* name;
  LevelVersion NamespacePolicy::*field;
  Level on_bad_level;
};
constexpr Mode k_modes[] = {{"enforce", &NamespacePolicy::enforce, Level::restricted},
                            {"audit", &NamespacePolicy::audit, Level::privileged},
                            {"warn", &NamespacePolicy::warn, Level::privileged}};

// `policy` with the levels and versions `settings` names as KEY_PREFIX + mode (+ "-version"); a
// bad value is a field error at FIELD_PREFIX + key + FIELD_SUFFIX.
void read_modes(const json& settings, std::string_view key_prefix, std::string_view field_prefix,
                std::string_view field_suffix, NamespacePolicy& policy, kinds::Causes& errors) {
  if (!settings.is_object()) return;
  for (const Mode& mode : k_modes) {
    LevelVersion& target = policy.*mode.field;
    const std::string level_key = std::string(key_prefix) + mode.name;
    const std::string version_key = level_key + "-version";
    auto field = [&](const std::string& key) {
      return std::string(field_prefix) + key + std::string(field_suffix);
    };
    if (auto it = settings.find(level_key); it != settings.end()) {
      const std::string value = api::str(*it);
      if (auto level = parse_level(value)) {
        target.level = *level;
      } else {
        target.level = mode.on_bad_level;
        kinds::invalid_value(errors, field(level_key), value, "must be one of privileged, baseline, restricted");
      }
    }
    if (auto it = settings.find(version_key); it != settings.end()) {
      const std::string value = api::str(*it);
      if (auto version = parse_version(value)) target.version = *version;
      else kinds::invalid_value(errors, field(version_key), value, "must be \"latest\" or \"v1.x\"");
    }
  }
}

// The policy a namespace's labels select over the configured defaults (kube's PolicyToEvaluate).
NamespacePolicy policy_of(const json& labels, const NamespacePolicy& defaults, kinds::Causes& errors) {
  NamespacePolicy policy = defaults;
  read_modes(labels, k_label_prefix, "metadata.labels[", "]", policy, errors);
  return policy;
}

// The plugin's PodSecurityConfiguration: the policy of namespaces without labels, and who is
// never checked.
struct Settings {
  NamespacePolicy defaults;
  std::vector<std::string> exempt_usernames, exempt_namespaces, exempt_runtime_classes;
};

Result<Settings> settings_of(const json& configuration) {
  Settings settings;
  if (configuration.is_null()) return settings;
  const std::string api_version = api::str(api::at(configuration, {"apiVersion"}));
  if (api::str(api::at(configuration, {"kind"})) != "PodSecurityConfiguration" ||
      (api_version != "pod-security.admission.config.k8s.io/v1" &&
       api_version != "pod-security.admission.config.k8s.io/v1beta1" &&
       api_version != "pod-security.admission.config.k8s.io/v1alpha1"))
    return fail("expected a PodSecurityConfiguration of pod-security.admission.config.k8s.io/v1, got apiVersion " +
                util::go_quote(api_version));
  kinds::Causes errors = json::array();
  read_modes(api::at(configuration, {"defaults"}), "", "defaults.", "", settings.defaults, errors);
  const json& exemptions = api::at(configuration, {"exemptions"});
  settings.exempt_usernames = api::strings(exemptions, "usernames");
  settings.exempt_namespaces = api::strings(exemptions, "namespaces");
  settings.exempt_runtime_classes = api::strings(exemptions, "runtimeClasses");
  if (!errors.empty()) return fail("invalid PodSecurity configuration: " + registry::causes_summary(errors));
  return settings;
}

bool listed(const std::vector<std::string>& list, const std::string& value) {
  return !value.empty() && std::ranges::find(list, value) != list.end();
}

// ---- the checks ---------------------------------------------------------------------------------

// What one check finds: allowed, or the reason and detail of its refusal.
struct Finding {
  bool allowed = true;
  std::string reason;
  std::string detail;
};

Finding forbid(std::string reason, std::string detail) { return {false, std::move(reason), std::move(detail)}; }

// Go's joinQuote: "a", "b".
// joinQuote: each item as Go's %q writes it, comma-separated.
std::string join_quoted(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + util::go_quote(item);
  return out;
}

std::string_view plural(std::string_view one, std::string_view many, std::size_t count) { return count == 1 ? one : many; }

// "container \"a\"" / "containers \"a\", \"b\""
std::string containers_named(const std::vector<std::string>& names) {
  return std::string(plural("container", "containers", names.size())) + " " + join_quoted(names);
}

std::vector<std::string> sorted(std::set<std::string> values) { return {values.begin(), values.end()}; }

// Init containers, containers, then ephemeral containers, as kube's visitContainers walks them.
template <class Visit>
void each_container(const json& spec, Visit visit) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    for (const auto& container : api::arr(api::at(spec, {list}))) visit(container);
}

std::string name_of(const json& container) { return api::str(api::at(container, {"name"})); }

const json& security(const json& holder, std::string_view field) { return api::at(holder, {"securityContext", field}); }

// The setters ("pod", containers "a") that gave a field a bad value.
std::vector<std::string> setters(bool pod, const std::vector<std::string>& containers) {
  std::vector<std::string> out;
  if (pod) out.push_back("pod");
  if (!containers.empty()) out.push_back(containers_named(containers));
  return out;
}

Finding app_armor(const json& meta, const json& spec) {
  // The deprecated annotations: runtime/default, localhost/* or empty.
  std::vector<std::string> annotations;
  for (const auto& [key, value] : api::at(meta, {"annotations"}).items()) {
    if (!key.starts_with("container.apparmor.security.beta.kubernetes.io/")) continue;
    const std::string profile = api::str(value);
    if (profile.empty() || profile == "runtime/default" || profile.starts_with("localhost/")) continue;
    annotations.push_back(key + "=" + util::go_quote(profile));
  }
  // The fields (1.30+): any type but Unconfined.
  std::set<std::string> bad_types;
  auto bad_field = [&](const json& holder) {
    const std::string type = api::str(api::at(holder, {"securityContext", "appArmorProfile", "type"}));
    if (type != "Unconfined") return false;
    bad_types.insert(type);
    return true;
  };
  const bool pod = bad_field(spec);
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    if (bad_field(c)) containers.push_back(name_of(c));
  });
  if (!pod && containers.empty() && annotations.empty()) return {};
  std::vector<std::string> values = sorted(bad_types);
  std::vector<std::string> who = setters(pod, containers);
  if (!annotations.empty()) {
    std::ranges::sort(annotations);
    values.insert(values.end(), annotations.begin(), annotations.end());
    who.emplace_back(plural("annotation", "annotations", annotations.size()));
  }
  return forbid(std::string(plural("forbidden AppArmor profile", "forbidden AppArmor profiles", values.size())),
                api::print::join(who, " and ") + " must not set AppArmor profile type to " + join_quoted(values));
}

constexpr std::string_view k_default_capabilities[] = {"AUDIT_WRITE", "CHOWN",  "DAC_OVERRIDE", "FOWNER",
                                                       "FSETID",      "KILL",   "MKNOD",        "NET_BIND_SERVICE",
                                                       "SETFCAP",     "SETGID", "SETPCAP",      "SETUID",
                                                       "SYS_CHROOT"};

Finding capabilities_baseline(const json&, const json& spec) {
  std::vector<std::string> containers;
  std::set<std::string> added;
  each_container(spec, [&](const json& c) {
    bool bad = false;
    for (const auto& capability : api::arr(api::at(c, {"securityContext", "capabilities", "add"}))) {
      const std::string name = api::str(capability);
      if (std::ranges::find(k_default_capabilities, name) != std::end(k_default_capabilities)) continue;
      bad = true;
      added.insert(name);
    }
    if (bad) containers.push_back(name_of(c));
  });
  if (containers.empty()) return {};
  return forbid("non-default capabilities", containers_named(containers) + " must not include " +
                                                join_quoted(sorted(added)) + " in securityContext.capabilities.add");
}

Finding host_namespaces(const json&, const json& spec) {
  std::vector<std::string> shared;
  for (const char* field : {"hostNetwork", "hostPID", "hostIPC"})
    if (api::at(spec, {field}) == true) shared.push_back(std::string(field) + "=true");
  if (shared.empty()) return {};
  return forbid("host namespaces", api::print::join(shared, ", "));
}

Finding host_path_volumes(const json&, const json& spec) {
  std::vector<std::string> volumes;
  for (const auto& volume : api::arr(api::at(spec, {"volumes"})))
    if (!api::at(volume, {"hostPath"}).is_null()) volumes.push_back(api::str(api::at(volume, {"name"})));
  if (volumes.empty()) return {};
  return forbid("hostPath volumes", std::string(plural("volume", "volumes", volumes.size())) + " " + join_quoted(volumes));
}

Finding host_ports(const json&, const json& spec) {
  std::vector<std::string> containers;
  std::set<std::string> ports;  // sorted as strings, as kube's sets.String
  each_container(spec, [&](const json& c) {
    bool bad = false;
    for (const auto& port : api::arr(api::at(c, {"ports"}))) {
      const auto host_port = api::num(api::at(port, {"hostPort"}));
      if (host_port == 0) continue;
      bad = true;
      ports.insert(std::to_string(host_port));
    }
    if (bad) containers.push_back(name_of(c));
  });
  if (containers.empty()) return {};
  return forbid("hostPort", containers_named(containers) + " " + std::string(plural("uses", "use", containers.size())) +
                                " " + std::string(plural("hostPort", "hostPorts", ports.size())) + " " +
                                api::print::join(sorted(ports), ", "));
}

Finding privileged(const json&, const json& spec) {
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    if (security(c, "privileged") == true) containers.push_back(name_of(c));
  });
  if (containers.empty()) return {};
  return forbid("privileged", containers_named(containers) + " must not set securityContext.privileged=true");
}

Finding proc_mount(const json&, const json& spec) {
  std::vector<std::string> containers;
  std::set<std::string> types;
  each_container(spec, [&](const json& c) {
    const json& mount = security(c, "procMount");
    if (mount.is_null() || api::str(mount) == "Default") return;
    containers.push_back(name_of(c));
    types.insert(api::str(mount));
  });
  if (containers.empty()) return {};
  return forbid("procMount", containers_named(containers) + " must not set securityContext.procMount to " +
                                 join_quoted(sorted(types)));
}

// seLinuxOptions: the types allowed (v1.31 adds container_engine_t), no user, no role.
Finding se_linux(const json& spec, bool engine_type) {
  std::set<std::string> bad_types;
  bool set_user = false, set_role = false;
  auto valid = [&](const json& options) {
    bool ok = true;
    const std::string type = api::str(api::at(options, {"type"}));
    if (!(type.empty() || type == "container_t" || type == "container_init_t" || type == "container_kvm_t" ||
          (engine_type && type == "container_engine_t"))) {
      ok = false;
      bad_types.insert(type);
    }
    if (!api::str(api::at(options, {"user"})).empty()) {
      ok = false;
      set_user = true;
    }
    if (!api::str(api::at(options, {"role"})).empty()) {
      ok = false;
      set_role = true;
    }
    return ok;
  };
  const json& pod_options = security(spec, "seLinuxOptions");
  const bool pod = pod_options.is_object() && !valid(pod_options);
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    const json& options = security(c, "seLinuxOptions");
    if (options.is_object() && !valid(options)) containers.push_back(name_of(c));
  });
  if (!pod && containers.empty()) return {};
  // (kube names a bad user or role only together with a bad type)
  std::vector<std::string> bad;
  if (!bad_types.empty()) {
    bad.push_back(std::string(plural("type", "types", bad_types.size())) + " " + join_quoted(sorted(bad_types)));
    if (set_user) bad.emplace_back("user may not be set");
    if (set_role) bad.emplace_back("role may not be set");
  }
  return forbid("seLinuxOptions", api::print::join(setters(pod, containers), " and ") +
                                      " set forbidden securityContext.seLinuxOptions: " + api::print::join(bad, "; "));
}
Finding se_linux_1_0(const json&, const json& spec) { return se_linux(spec, false); }
Finding se_linux_1_31(const json&, const json& spec) { return se_linux(spec, true); }

bool good_seccomp_type(const std::string& type) { return type == "RuntimeDefault" || type == "Localhost"; }

// Before v1.19: the seccomp annotations.
Finding seccomp_baseline_1_0(const json& meta, const json& spec) {
  const json& annotations = api::at(meta, {"annotations"});
  std::set<std::string> bad;
  auto check = [&](const std::string& key) {
    const json& value = api::at(annotations, {key});
    if (!value.is_string()) return;
    const std::string text = value.get<std::string>();
    if (text == "runtime/default" || text == "docker/default" || text.starts_with("localhost/")) return;
    bad.insert(key + "=" + util::go_quote(text));
  };
  check("seccomp.security.alpha.kubernetes.io/pod");
  each_container(spec, [&](const json& c) { check("container.seccomp.security.alpha.kubernetes.io/" + name_of(c)); });
  if (bad.empty()) return {};
  return forbid("seccompProfile", "forbidden " + std::string(plural("annotation", "annotations", bad.size())) + " " +
                                      api::print::join(sorted(bad), ", "));
}

// The seccompProfile fields: a pod or container that sets a type but RuntimeDefault or Localhost
// (`required`: restricted, where every container must end up with one of those two).
Finding seccomp_fields(const json& spec, bool required) {
  std::set<std::string> bad_values;
  bool pod = false, pod_set = false;
  if (const json& profile = security(spec, "seccompProfile"); profile.is_object()) {
    const std::string type = api::str(api::at(profile, {"type"}));
    if (good_seccomp_type(type)) {
      pod_set = true;
    } else {
      pod = true;
      bad_values.insert(type);
    }
  }
  std::vector<std::string> explicit_bad, implicit_bad;
  each_container(spec, [&](const json& c) {
    if (const json& profile = security(c, "seccompProfile"); profile.is_object()) {
      const std::string type = api::str(api::at(profile, {"type"}));
      if (!good_seccomp_type(type)) {
        explicit_bad.push_back(name_of(c));
        bad_values.insert(type);
      }
    } else if (!pod_set) {
      implicit_bad.push_back(name_of(c));
    }
  });
  if (pod || !explicit_bad.empty())
    return forbid("seccompProfile", api::print::join(setters(pod, explicit_bad), " and ") +
                                        " must not set securityContext.seccompProfile.type to " +
                                        join_quoted(sorted(bad_values)));
  if (required && !implicit_bad.empty())
    return forbid("seccompProfile", "pod or " + containers_named(implicit_bad) +
                                        " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
  return {};
}
Finding seccomp_baseline_1_19(const json&, const json& spec) { return seccomp_fields(spec, false); }
Finding seccomp_restricted_1_19(const json&, const json& spec) { return seccomp_fields(spec, true); }
Finding seccomp_restricted_1_25(const json&, const json& spec) {
  return kinds::is_windows_pod(spec) ? Finding{} : seccomp_fields(spec, true);
}

// The sysctls allowed from each version on.
constexpr std::string_view k_sysctls_1_0[] = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                                              "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
                                              "net.ipv4.ip_unprivileged_port_start"};
constexpr std::string_view k_sysctls_1_27[] = {"net.ipv4.ip_local_reserved_ports"};
constexpr std::string_view k_sysctls_1_29[] = {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                                               "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"};

Finding sysctls_since(const json& spec, int minor) {
  auto allowed = [minor](const std::string& name) {
    auto in = [&](std::span<const std::string_view> list) { return std::ranges::find(list, name) != list.end(); };
    return in(k_sysctls_1_0) || (minor >= 27 && in(k_sysctls_1_27)) || (minor >= 29 && in(k_sysctls_1_29));
  };
  std::vector<std::string> forbidden;
  for (const auto& sysctl : api::arr(security(spec, "sysctls"))) {
    const std::string name = api::str(api::at(sysctl, {"name"}));
    if (!allowed(name)) forbidden.push_back(name);
  }
  if (forbidden.empty()) return {};
  return forbid("forbidden sysctls", api::print::join(forbidden, ", "));
}
Finding sysctls_1_0(const json&, const json& spec) { return sysctls_since(spec, 0); }
Finding sysctls_1_27(const json&, const json& spec) { return sysctls_since(spec, 27); }
Finding sysctls_1_29(const json&, const json& spec) { return sysctls_since(spec, 29); }

Finding windows_host_process(const json&, const json& spec) {
  auto host_process = [](const json& holder) {
    return api::at(holder, {"securityContext", "windowsOptions", "hostProcess"}) == true;
  };
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    if (host_process(c)) containers.push_back(name_of(c));
  });
  const bool pod = host_process(spec);
  if (!pod && containers.empty()) return {};
  return forbid("hostProcess", api::print::join(setters(pod, containers), " and ") +
                                   " must not set securityContext.windowsOptions.hostProcess=true");
}

Finding allow_privilege_escalation(const json& spec) {
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    if (security(c, "allowPrivilegeEscalation") != false) containers.push_back(name_of(c));
  });
  if (containers.empty()) return {};
  return forbid("allowPrivilegeEscalation != false",
                containers_named(containers) + " must set securityContext.allowPrivilegeEscalation=false");
}
Finding allow_privilege_escalation_1_8(const json&, const json& spec) { return allow_privilege_escalation(spec); }
Finding allow_privilege_escalation_1_25(const json&, const json& spec) {
  return kinds::is_windows_pod(spec) ? Finding{} : allow_privilege_escalation(spec);
}

Finding capabilities_restricted(const json& spec) {
  std::vector<std::string> missing_drop, adding;
  std::set<std::string> forbidden;
  each_container(spec, [&](const json& c) {
    const json& capabilities = security(c, "capabilities");
    if (!capabilities.is_object()) {
      missing_drop.push_back(name_of(c));
      return;
    }
    const auto& drop = api::arr(api::at(capabilities, {"drop"}));
    if (std::ranges::find(drop, json("ALL")) == drop.end()) missing_drop.push_back(name_of(c));
    bool bad = false;
    for (const auto& capability : api::arr(api::at(capabilities, {"add"}))) {
      if (api::str(capability) == "NET_BIND_SERVICE") continue;
      bad = true;
      forbidden.insert(api::str(capability));
    }
    if (bad) adding.push_back(name_of(c));
  });
  std::vector<std::string> details;
  if (!missing_drop.empty())
    details.push_back(containers_named(missing_drop) + " must set securityContext.capabilities.drop=[\"ALL\"]");
  if (!adding.empty())
    details.push_back(containers_named(adding) + " must not include " + join_quoted(sorted(forbidden)) +
                      " in securityContext.capabilities.add");
  if (details.empty()) return {};
  return forbid("unrestricted capabilities", api::print::join(details, "; "));
}
Finding capabilities_restricted_1_22(const json&, const json& spec) { return capabilities_restricted(spec); }
Finding capabilities_restricted_1_25(const json&, const json& spec) {
  return kinds::is_windows_pod(spec) ? Finding{} : capabilities_restricted(spec);
}

// The volume source a volume uses, by its field.
constexpr std::string_view k_allowed_volume_sources[] = {"configMap", "csi",  "downwardAPI", "emptyDir", "ephemeral",
                                                         "persistentVolumeClaim", "projected", "secret"};
constexpr std::string_view k_named_volume_sources[] = {
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo",       "nfs",        "iscsi",
    "glusterfs", "rbd",              "flexVolume",           "cinder",        "cephfs",     "flocker",
    "fc",        "azureFile",        "vsphereVolume",        "quobyte",       "azureDisk",  "photonPersistentDisk",
    "portworxVolume", "scaleIO",     "storageos"};

Finding restricted_volumes(const json&, const json& spec) {
  std::vector<std::string> volumes;
  std::set<std::string> types;
  for (const auto& volume : api::arr(api::at(spec, {"volumes"}))) {
    auto has = [&](std::string_view field) { return !api::at(volume, {field}).is_null(); };
    if (std::ranges::any_of(k_allowed_volume_sources, has)) continue;
    volumes.push_back(api::str(api::at(volume, {"name"})));
    const auto named = std::ranges::find_if(k_named_volume_sources, has);
    types.insert(named != std::end(k_named_volume_sources) ? std::string(*named) : "unknown");
  }
  if (volumes.empty()) return {};
  return forbid("restricted volume types",
                std::string(plural("volume", "volumes", volumes.size())) + " " + join_quoted(volumes) + " " +
                    std::string(plural("uses", "use", volumes.size())) + " " +
                    std::string(plural("restricted volume type", "restricted volume types", types.size())) + " " +
                    join_quoted(sorted(types)));
}

Finding run_as_non_root(const json&, const json& spec) {
  bool pod_bad = false, pod_true = false;
  if (const json& value = security(spec, "runAsNonRoot"); value.is_boolean()) (value ? pod_true : pod_bad) = true;
  std::vector<std::string> explicit_bad, implicit_bad;
  each_container(spec, [&](const json& c) {
    const json& value = security(c, "runAsNonRoot");
    if (value.is_boolean()) {
      if (!value.get<bool>()) explicit_bad.push_back(name_of(c));
    } else if (!pod_true) {
      implicit_bad.push_back(name_of(c));
    }
  });
  if (pod_bad || !explicit_bad.empty())
    return forbid("runAsNonRoot != true",
                  api::print::join(setters(pod_bad, explicit_bad), " and ") + " must not set securityContext.runAsNonRoot=false");
  if (!implicit_bad.empty())
    return forbid("runAsNonRoot != true",
                  "pod or " + containers_named(implicit_bad) + " must set securityContext.runAsNonRoot=true");
  return {};
}

Finding run_as_user(const json&, const json& spec) {
  auto root = [](const json& holder) {
    const json& value = security(holder, "runAsUser");
    return value.is_number() && value.get<std::int64_t>() == 0;
  };
  std::vector<std::string> containers;
  each_container(spec, [&](const json& c) {
    if (root(c)) containers.push_back(name_of(c));
  });
  const bool pod = root(spec);
  if (!pod && containers.empty()) return {};
  return forbid("runAsUser=0", api::print::join(setters(pod, containers), " and ") + " must not set runAsUser=0");
}

// ---- the registry of checks ----------------------------------------------------------------------

using CheckFn = Finding (*)(const json& meta, const json& spec);

struct Versioned {
  int since;  // minimum minor version
  CheckFn check;
};

struct Check {
  std::string_view id;
  Level level;
  std::vector<Versioned> versions;             // by increasing `since`
  std::vector<std::string_view> overrides = {};  // restricted: the baseline checks it replaces
};

// Sorted by ID within each level: the order of kube's messages.
const std::vector<Check>& all_checks() {
  static const std::vector<Check> checks = {
      {"appArmorProfile", Level::baseline, {{0, app_armor}}},
      {"capabilities_baseline", Level::baseline, {{0, capabilities_baseline}}},
      {"hostNamespaces", Level::baseline, {{0, host_namespaces}}},
      {"hostPathVolumes", Level::baseline, {{0, host_path_volumes}}},
      {"hostPorts", Level::baseline, {{0, host_ports}}},
      {"privileged", Level::baseline, {{0, privileged}}},
      {"procMount", Level::baseline, {{0, proc_mount}}},
      {"seLinuxOptions", Level::baseline, {{0, se_linux_1_0}, {31, se_linux_1_31}}},
      {"seccompProfile_baseline", Level::baseline, {{0, seccomp_baseline_1_0}, {19, seccomp_baseline_1_19}}},
      {"sysctls", Level::baseline, {{0, sysctls_1_0}, {27, sysctls_1_27}, {29, sysctls_1_29}}},
      {"windowsHostProcess", Level::baseline, {{0, windows_host_process}}},
      {"allowPrivilegeEscalation",
       Level::restricted,
       {{8, allow_privilege_escalation_1_8}, {25, allow_privilege_escalation_1_25}}},
      {"capabilities_restricted",
       Level::restricted,
       {{22, capabilities_restricted_1_22}, {25, capabilities_restricted_1_25}},
       {"capabilities_baseline"}},
      {"restrictedVolumes", Level::restricted, {{0, restricted_volumes}}, {"hostPathVolumes"}},
      {"runAsNonRoot", Level::restricted, {{0, run_as_non_root}}},
      {"runAsUser", Level::restricted, {{23, run_as_user}}},
      {"seccompProfile_restricted",
       Level::restricted,
       {{19, seccomp_restricted_1_19}, {25, seccomp_restricted_1_25}},
       {"seccompProfile_baseline"}},
  };
  return checks;
}

// The newest version any check changed at: later versions (and latest) evaluate as it.
constexpr int k_newest_check_version = 31;

// The check function of `check` at `minor`; null when the check did not exist yet.
CheckFn at_version(const Check& check, int minor) {
  CheckFn found = nullptr;
  for (const auto& versioned : check.versions)
    if (versioned.since <= minor) found = versioned.check;
  return found;
}

// kube's EvaluatePod, with the results aggregated: the failed checks' reasons and details.
struct Verdict {
  std::vector<Finding> failed;
  bool allowed() const { return failed.empty(); }
  // "reason (detail), reason (detail)"
  std::string detail() const {
    std::vector<std::string> parts;
    for (const auto& result : failed) parts.push_back(result.detail.empty() ? result.reason : result.reason + " (" + result.detail + ")");
    return api::print::join(parts, ", ");
  }
  std::string reasons() const {
    std::vector<std::string> parts;
    for (const auto& result : failed) parts.push_back(result.reason);
    return api::print::join(parts, ", ");
  }
};

Verdict evaluate(const LevelVersion& policy, const json& meta, const json& spec) {
  Verdict verdict;
  if (policy.level == Level::privileged) return verdict;
  const int minor = policy.version.latest ? k_newest_check_version : std::min(policy.version.minor, k_newest_check_version);
  std::set<std::string_view> overridden;
  if (policy.level == Level::restricted)
    for (const auto& check : all_checks())
      if (check.level == Level::restricted && at_version(check, minor) != nullptr)
        overridden.insert(check.overrides.begin(), check.overrides.end());
  for (const auto& check : all_checks()) {
    if (check.level == Level::restricted && policy.level != Level::restricted) continue;
    if (overridden.contains(check.id)) continue;
    const CheckFn fn = at_version(check, minor);
    if (fn == nullptr) continue;
    Finding result = fn(meta, spec);
    if (result.allowed) continue;
    if (result.reason.empty()) result.reason = "unknown forbidden reason";
    verdict.failed.push_back(std::move(result));
  }
  return verdict;
}

// ---- the plugin ------------------------------------------------------------------------------------

constexpr std::string_view k_ignored_pod_subresources[] = {"exec", "attach", "binding", "eviction",
                                                           "log",  "portforward", "proxy", "status"};

// The pod template of a workload object (its row says where it keeps one): its metadata and
// spec, null when the kind has none or the object does not hold one.
std::pair<const json*, const json*> pod_template(const AdmissionRequest& r) {
  const auto* row = kinds::find_kind(r.info);
  const json* holder = row ? kinds::pod_template_of(*row, r.object) : nullptr;
  if (holder == nullptr) return {nullptr, nullptr};
  return {&api::at(*holder, {"metadata"}), &api::at(*holder, {"spec"})};
}

// Kinds holding a pod template get warnings and audit annotations for it (never refusals).
bool holds_pod_template(const api::ResourceInfo& info) {
  const auto* row = kinds::find_kind(info);
  return row != nullptr && !row->pod_template.empty();
}

std::string labels_error(const kinds::Causes& errors) { return registry::causes_summary(errors); }

// Whether a pod update can change what the checks decide (kube's isSignificantPodUpdate): the
// images, the seccomp annotations, and added or changed ephemeral containers.
bool significant_pod_update(const json& pod, const json& old) {
  const json& annotations = api::at(pod, {"metadata", "annotations"});
  const json& old_annotations = api::at(old, {"metadata", "annotations"});
  auto annotation = [](const json& all, const std::string& key) { return api::str(api::at(all, {key})); };
  if (annotation(annotations, "seccomp.security.alpha.kubernetes.io/pod") !=
      annotation(old_annotations, "seccomp.security.alpha.kubernetes.io/pod"))
    return true;
  auto container_changed = [&](const json& c, const json& before) {
    if (api::str(api::at(c, {"image"})) != api::str(api::at(before, {"image"}))) return true;
    const std::string key = "container.seccomp.security.alpha.kubernetes.io/" + name_of(c);
    return annotation(annotations, key) != annotation(old_annotations, key);
  };
  for (const char* list : {"containers", "initContainers"}) {
    const auto& now = api::arr(api::at(pod, {"spec", list}));
    const auto& before = api::arr(api::at(old, {"spec", list}));
    if (now.size() != before.size()) return true;
    for (std::size_t i = 0; i < now.size(); ++i)
      if (container_changed(now[i], before[i])) return true;
  }
  const auto& old_ephemeral = api::arr(api::at(old, {"spec", "ephemeralContainers"}));
  for (const auto& c : api::arr(api::at(pod, {"spec", "ephemeralContainers"}))) {
    const auto before = std::ranges::find_if(old_ephemeral, [&](const json& o) { return name_of(o) == name_of(c); });
    if (before == old_ephemeral.end() || container_changed(c, *before)) return true;
  }
  return false;
}

class PodSecurity {
 public:
  PodSecurity(registry::Registry& registry, Settings settings) : m_registry(registry), m_settings(std::move(settings)) {}

  ApiResult<void> operator()(const AdmissionRequest& r) const {
    if (r.operation != "CREATE" && r.operation != "UPDATE") return {};
    if (r.info.group.empty() && r.info.plural == "namespaces") return namespace_write(r);
    if (r.info.group.empty() && r.info.plural == "pods") return pod_write(r);
    if (holds_pod_template(r.info)) return workload_write(r);
    return {};
  }

 private:
  ApiResult<void> namespace_write(const AdmissionRequest& r) const {
    if (!r.subresource.empty()) return {};
    kinds::Causes errors = json::array();
    const NamespacePolicy policy = policy_of(api::at(r.object, {"metadata", "labels"}), m_settings.defaults, errors);
    auto refuse = [&] { return std::unexpected(registry::invalid("", "Namespace", r.name, errors, labels_error(errors))); };
    if (r.operation == "CREATE") {
      if (!errors.empty()) return refuse();
      return {};
    }
    if (r.old == nullptr) return {};
    kinds::Causes old_errors = json::array();
    const NamespacePolicy old_policy = policy_of(api::at(*r.old, {"metadata", "labels"}), m_settings.defaults, old_errors);
    if (!errors.empty() && (old_errors.empty() || errors != old_errors)) return refuse();
    const LevelVersion& now = policy.enforce;
    const LevelVersion& before = old_policy.enforce;
    if (now == before || now.level == Level::privileged) return {};
    if (now.version == before.version && static_cast<int>(now.level) <= static_cast<int>(before.level)) return {};
    if (listed(m_settings.exempt_namespaces, r.name)) {
      r.add_audit_annotation(std::string(k_label_prefix) + "exempt", "namespace");
      return {};
    }
    if (r.warnings != nullptr) {
      auto warnings = existing_pod_warnings(r.name, now);
      r.warnings->insert(r.warnings->end(), warnings.begin(), warnings.end());
    }
    return {};
  }

  // kube's EvaluatePodsInNamespace: the distinct reasons the namespace's pods break `enforce`,
  // each with the first pod by name and how many others share it. Pods of one controller are
  // checked after the pods of all others (they tend to be alike), at most 3000 pods and 1 s.
  std::vector<std::string> existing_pod_warnings(const std::string& ns, const LevelVersion& enforce) const {
    auto pods = registry::cached(m_registry, "", "v1", "pods", ns);
    if (!pods) return {"failed to list pods while checking new PodSecurity enforce level"};
    std::vector<const json*> ordered, repeats;
    std::set<std::string> controllers;
    for (const auto& pod : *pods) {
      if (exempt_runtime_class(api::at(pod->object(), {"spec"}))) continue;
      const json* controller = nullptr;
      for (const auto& owner : api::arr(api::at(pod->object(), {"metadata", "ownerReferences"})))
        if (api::at(owner, {"controller"}) == true) controller = &owner;
      if (controller == nullptr || controllers.insert(api::str(api::at(*controller, {"uid"}))).second)
        ordered.push_back(&pod->object());
      else
        repeats.push_back(&pod->object());
    }
    ordered.insert(ordered.end(), repeats.begin(), repeats.end());
    constexpr std::size_t k_max_pods = 3000;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    struct Seen {
      std::string first;  // by name
      int count = 0;
    };
    std::map<std::string, Seen> by_reason;
    std::size_t checked = 0;
    for (const json* pod : ordered) {
      if (checked == k_max_pods) break;
      ++checked;
      const Verdict verdict = evaluate(enforce, api::at(*pod, {"metadata"}), api::at(*pod, {"spec"}));
      if (!verdict.allowed()) {
        const std::string name = api::str(api::at(*pod, {"metadata", "name"}));
        Seen& seen = by_reason[verdict.reasons()];
        if (seen.count == 0 || name < seen.first) seen.first = name;
        ++seen.count;
      }
      if (std::chrono::steady_clock::now() > deadline) break;
    }
    std::vector<std::string> warnings;
    if (checked < ordered.size())
      warnings.push_back("new PodSecurity enforce level only checked against the first " + std::to_string(checked) +
                         " of " + std::to_string(ordered.size()) + " existing pods");
    if (by_reason.empty()) return warnings;
    warnings.push_back("existing pods in namespace " + util::go_quote(ns) + " violate the new PodSecurity enforce level " +
                       util::go_quote(enforce.text()));
    std::vector<std::string> per_reason;
    for (const auto& [reason, seen] : by_reason) {
      std::string who = seen.first;
      if (seen.count == 2) who += " (and 1 other pod)";
      else if (seen.count > 2) who += " (and " + std::to_string(seen.count - 1) + " other pods)";
      per_reason.push_back(who + ": " + reason);
    }
    std::ranges::sort(per_reason);
    warnings.insert(warnings.end(), per_reason.begin(), per_reason.end());
    return warnings;
  }

  // The policy of the request's namespace; an error when it cannot be read.
  ApiResult<std::pair<NamespacePolicy, kinds::Causes>> namespace_policy(const AdmissionRequest& r) const {
    auto found = registry::cached_object(m_registry, "", "v1", "namespaces", "", r.namespace_);
    if (!found) return std::unexpected(found.error());
    if (!*found) return std::unexpected(registry::internal_error("failed to lookup namespace " + r.namespace_));
    kinds::Causes errors = json::array();
    NamespacePolicy policy = policy_of(api::at(**found, {"metadata", "labels"}), m_settings.defaults, errors);
    return std::pair{policy, std::move(errors)};
  }

  bool exempt_runtime_class(const json& spec) const {
    return listed(m_settings.exempt_runtime_classes, api::str(api::at(spec, {"runtimeClassName"})));
  }

  // An exempt namespace or user: noted in the audit event, never checked.
  bool exempt(const AdmissionRequest& r) const {
    const char* why = nullptr;
    if (listed(m_settings.exempt_namespaces, r.namespace_)) why = "namespace";
    else if (listed(m_settings.exempt_usernames, api::str(api::at(r.user, {"username"})))) why = "user";
    if (why != nullptr) r.add_audit_annotation(std::string(k_label_prefix) + "exempt", why);
    return why != nullptr;
  }

  ApiResult<void> pod_write(const AdmissionRequest& r) const {
    if (std::ranges::find(k_ignored_pod_subresources, r.subresource) != std::end(k_ignored_pod_subresources)) return {};
    if (exempt(r)) return {};
    auto policy = namespace_policy(r);
    if (!policy) return std::unexpected(policy.error());
    const auto& [levels, errors] = *policy;
    if (errors.empty() && levels.enforce.level == Level::privileged && levels.warn.level == Level::privileged &&
        levels.audit.level == Level::privileged) {
      r.add_audit_annotation(std::string(k_label_prefix) + "enforce-policy", "privileged:latest");
      return {};
    }
    if (r.operation == "UPDATE" && r.old != nullptr && !significant_pod_update(r.object, *r.old)) return {};
    return evaluate_pod(r, levels, errors, api::at(r.object, {"metadata"}), api::at(r.object, {"spec"}), true);
  }

  ApiResult<void> workload_write(const AdmissionRequest& r) const {
    if (!r.subresource.empty() || exempt(r)) return {};
    auto policy = namespace_policy(r);
    if (!policy) {
      r.add_audit_annotation(std::string(k_label_prefix) + "error",
                             "failed to lookup namespace " + r.namespace_ + ": " + policy.error().message);
      return {};
    }
    const auto& [levels, errors] = *policy;
    if (errors.empty() && levels.warn.level == Level::privileged && levels.audit.level == Level::privileged) return {};
    const auto [meta, spec] = pod_template(r);
    if (meta == nullptr) return {};
    return evaluate_pod(r, levels, errors, *meta, *spec, false);
  }

  // kube's EvaluatePod: enforce (pods only) refuses, audit annotates, warn warns when allowed.
  ApiResult<void> evaluate_pod(const AdmissionRequest& r, const NamespacePolicy& policy, const kinds::Causes& errors,
                               const json& meta, const json& spec, bool enforce) const {
    const std::string prefix(k_label_prefix);
    if (exempt_runtime_class(spec)) {
      r.add_audit_annotation(prefix + "exempt", "runtimeClass");
      return {};
    }
    if (!errors.empty()) r.add_audit_annotation(prefix + "error", "Failed to parse policy: " + labels_error(errors));
    std::map<std::string, Verdict> verdicts;  // by policy text
    auto verdict_for = [&](const LevelVersion& level) -> const Verdict& {
      auto [it, fresh] = verdicts.try_emplace(level.text());
      if (fresh) it->second = evaluate(level, meta, spec);
      return it->second;
    };
    std::optional<registry::ApiError> refusal;
    if (enforce) {
      r.add_audit_annotation(prefix + "enforce-policy", policy.enforce.text());
      const Verdict& verdict = verdict_for(policy.enforce);
      if (!verdict.allowed())
        refusal = registry::admission_forbidden(
            r, "violates PodSecurity " + util::go_quote(policy.enforce.text()) + ": " + verdict.detail());
    }
    if (const Verdict& audit = verdict_for(policy.audit); !audit.allowed())
      r.add_audit_annotation(prefix + "audit-violations",
                             "would violate PodSecurity " + util::go_quote(policy.audit.text()) + ": " + audit.detail());
    if (refusal) return std::unexpected(*refusal);
    if (const Verdict& warn = verdict_for(policy.warn); !warn.allowed() && r.warnings != nullptr)
      r.warnings->push_back("would violate PodSecurity " + util::go_quote(policy.warn.text()) + ": " + warn.detail());
    return {};
  }

  registry::Registry& m_registry;
  const Settings m_settings;
};

}  // namespace

Result<registry::AdmissionCheck> pod_security(registry::Registry& registry, const nlohmann::json& configuration) {
  auto settings = settings_of(configuration);
  if (!settings) return std::unexpected(settings.error());
  auto plugin = std::make_shared<PodSecurity>(registry, std::move(*settings));
  return registry::AdmissionCheck([plugin](const AdmissionRequest& r) { return (*plugin)(r); });
}

}  // namespace kw::admission
