// The describers of the core kinds kubectl has its own text for: Pod, Service, Namespace,
// ConfigMap, Secret and ServiceAccount.
#include <algorithm>
#include <map>
#include <set>

#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "core/util/base64.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

// ---- Pod --------------------------------------------------------------------------------------

bool has_compute_resources(const json& containers, const char* part) {
  return std::ranges::any_of(arr(containers), [&](const json& c) {
    const json& list = at(c, {"resources", part});
    return list.is_object() && (list.contains("cpu") || list.contains("memory"));
  });
}

// The pod's QoS class: the one its status records, else worked out as kubelet does for the
// common cases (no requests or limits: BestEffort; limits equal to requests for cpu and memory
// in every container: Guaranteed; otherwise Burstable).
std::string qos_class(const json& pod) {
  if (const std::string recorded = str(at(pod, {"status", "qosClass"})); !recorded.empty()) return recorded;
  const json& containers = at(pod, {"spec", "containers"});
  if (!has_compute_resources(containers, "requests") && !has_compute_resources(containers, "limits"))
    return "BestEffort";
  const bool guaranteed = std::ranges::all_of(arr(containers), [](const json& c) {
    for (const char* resource : {"cpu", "memory"}) {
      const json& limit = at(c, {"resources", "limits", resource});
      const json& request = at(c, {"resources", "requests", resource});
      if (limit.is_null() || (!request.is_null() && request != limit)) return false;
    }
    return true;
  });
  return guaranteed ? "Guaranteed" : "Burstable";
}

void write_pod_conditions(Writer& w, const json& pod) {
  const json& gates = arr(at(pod, {"spec", "readinessGates"}));
  const json& conditions = arr(at(pod, {"status", "conditions"}));
  if (!gates.empty()) {
    w.write(0, "Readiness Gates:\n  Type\tStatus\n");
    for (const auto& gate : gates) {
      std::string status = "<none>";
      for (const auto& c : conditions)
        if (str(at(c, {"type"})) == str(at(gate, {"conditionType"}))) {
          status = str(at(c, {"status"}));
          break;
        }
      w.write(1, str(at(gate, {"conditionType"})) + " \t" + status + " \n");
    }
  }
  if (conditions.empty()) return;
  w.write(0, "Conditions:\n  Type\tStatus\n");
  for (const auto& c : conditions) w.write(1, str(at(c, {"type"})) + " \t" + str(at(c, {"status"})) + " \n");
}

void describe_pod(Writer& w, const json& pod, const Related& related, TimePoint now) {
  const json& spec = at(pod, {"spec"});
  const json& status = at(pod, {"status"});
  write_name(w, pod, true);
  if (at(spec, {"priority"}).is_number())
    w.write(0, "Priority:\t" + std::to_string(num(at(spec, {"priority"}))) + "\n");
  if (const std::string name = str(at(spec, {"priorityClassName"})); !name.empty())
    w.write(0, "Priority Class Name:\t" + name + "\n");
  if (const std::string name = str(at(spec, {"runtimeClassName"})); !name.empty())
    w.write(0, "Runtime Class Name:\t" + name + "\n");
  if (const std::string name = str(at(spec, {"serviceAccountName"})); !name.empty())
    w.write(0, "Service Account:\t" + name + "\n");
  const std::string node = str(at(spec, {"nodeName"}));
  w.write(0, "Node:\t" + (node.empty() ? "<none>" : node + "/" + str(at(status, {"hostIP"}))) + "\n");
  if (const std::string start = rfc1123z(at(status, {"startTime"})); !start.empty())
    w.write(0, "Start Time:\t" + start + "\n");
  write_metadata(w, pod);
  const std::string phase = str(at(status, {"phase"}));
  if (const json& deleted = at(pod, {"metadata", "deletionTimestamp"});
      !deleted.is_null() && phase != "Failed" && phase != "Succeeded") {
    w.write(0, "Status:\tTerminating (lasts " + api::print::since(api::print::time_of(deleted), now) + ")\n");
    w.write(0, "Termination Grace Period:\t" +
                   std::to_string(num(at(pod, {"metadata", "deletionGracePeriodSeconds"}))) + "s\n");
  } else {
    w.write(0, "Status:\t" + phase + "\n");
  }
  if (const std::string reason = str(at(status, {"reason"})); !reason.empty()) w.write(0, "Reason:\t" + reason + "\n");
  if (const std::string message = str(at(status, {"message"})); !message.empty())
    w.write(0, "Message:\t" + message + "\n");
  if (const json& profile = at(spec, {"securityContext", "seccompProfile"}); profile.is_object()) {
    w.write(0, "SeccompProfile:\t" + str(at(profile, {"type"})) + "\n");
    if (str(at(profile, {"type"})) == "Localhost")
      w.write(0, "LocalhostProfile:\t" + str(at(profile, {"localhostProfile"})) + "\n");
  }
  w.write(0, "IP:\t" + str(at(status, {"podIP"})) + "\n");
  if (arr(at(status, {"podIPs"})).empty()) {
    w.write(0, "IPs:\t<none>\n");
  } else {
    w.write(0, "IPs:\n");
    for (const auto& ip : arr(at(status, {"podIPs"}))) w.write(1, "IP:\t" + str(at(ip, {"ip"})) + "\n");
  }
  write_controller(w, pod);
  if (const std::string nominated = str(at(status, {"nominatedNodeName"})); !nominated.empty())
    w.write(0, "NominatedNodeName:\t" + nominated + "\n");
  if (const json& resources = at(spec, {"resources"}); resources.is_object()) {
    w.write(0, "Resources:\n");
    write_resources(w, resources, 1);
  }
  if (!arr(at(spec, {"initContainers"})).empty())
    write_containers(w, "Init Containers", at(spec, {"initContainers"}), at(status, {"initContainerStatuses"}), "",
                     &pod);
  write_containers(w, "Containers", at(spec, {"containers"}), at(status, {"containerStatuses"}), "", &pod);
  if (!arr(at(spec, {"ephemeralContainers"})).empty())
    write_containers(w, "Ephemeral Containers", at(spec, {"ephemeralContainers"}),
                     at(status, {"ephemeralContainerStatuses"}), "", &pod);
  write_pod_conditions(w, pod);
  write_volumes(w, at(spec, {"volumes"}), "");
  w.write(0, "QoS Class:\t" + qos_class(pod) + "\n");
  write_labels(w, "Node-Selectors", at(spec, {"nodeSelector"}));
  write_tolerations(w, "Tolerations", at(spec, {"tolerations"}));
  if (related.events) write_events(w, *related.events, now);
}

// ---- Namespace --------------------------------------------------------------------------------

std::string scope_help(const std::string& scope) {
  if (scope == "Terminating")
    return "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being "
           "actively terminated by the system.";
  if (scope == "NotTerminating")
    return "Matches all pods that do not have an active deadline. These pods usually include long running pods whose "
           "container command is not expected to terminate.";
  if (scope == "BestEffort")
    return "Matches all pods that do not have resource requirements set. These pods have a best effort quality of "
           "service.";
  if (scope == "NotBestEffort")
    return "Matches all pods that have at least one resource requirement set. These pods have a burstable or "
           "guaranteed "
           "quality of service.";
  return "";
}

void write_quotas(Writer& w, std::vector<json> quotas) {
  if (quotas.empty()) return w.write(0, "No resource quota.\n");
  std::ranges::stable_sort(quotas, {}, [](const json& q) { return str(at(q, {"metadata", "name"})); });
  w.write(0, "Resource Quotas\n");
  for (const auto& quota : quotas) {
    w.write(1, "Name:\t" + str(at(quota, {"metadata", "name"})) + "\n");
    std::vector<std::string> scopes = api::strings(at(quota, {"spec"}), "scopes");
    if (!scopes.empty()) {
      std::ranges::sort(scopes);
      std::string list;
      for (const auto& scope : scopes) list += (list.empty() ? "" : ", ") + scope;
      w.write(1, "Scopes:\t" + list + "\n");
      for (const auto& scope : scopes)
        if (const std::string help = scope_help(scope); !help.empty()) w.write(1, "* " + help + "\n");
    }
    w.write(1, "Resource\tUsed\tHard\n");
    w.write(1, "--------\t---\t---\n");
    const json& hard = at(quota, {"status", "hard"});
    if (!hard.is_object()) continue;
    for (const auto& [resource, quantity] : hard.items()) {
      const std::string used = value_text(at(quota, {"status", "used", resource}));
      w.write(1, resource + "\t" + (used.empty() ? "0" : used) + "\t" + value_text(quantity) + "\n");
    }
  }
}

// A LimitRange's rows, each line begun with `prefix`; the resources of an item sorted (kubectl
// walks a Go map, in no fixed order).
void write_limit_rows(Writer& w, const json& range, const std::string& prefix) {
  for (const auto& item : arr(at(range, {"spec", "limits"}))) {
    const char* const parts[] = {"min", "max", "defaultRequest", "default", "maxLimitRequestRatio"};
    std::set<std::string> resources;
    for (const char* part : parts)
      if (const json& list = at(item, {part}); list.is_object())
        for (const auto& [name, _] : list.items()) resources.insert(name);
    for (const auto& resource : resources) {
      std::string line = prefix + str(at(item, {"type"})) + "\t" + resource;
      for (const char* part : parts) {
        const std::string value = value_text(at(item, {part, resource}));
        line += "\t" + (value.empty() ? "-" : value);
      }
      w.write(0, line + "\n");
    }
  }
}

void write_limit_ranges(Writer& w, const std::vector<json>& ranges) {
  if (ranges.empty()) return w.write(0, "No LimitRange resource.\n");
  w.write(0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
  w.write(0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
  for (const auto& range : ranges) write_limit_rows(w, range, " ");
}

void describe_limit_range(Writer& w, const json& range, const Related&, TimePoint) {
  write_name(w, range, true);
  w.write(0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
  w.write(0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
  write_limit_rows(w, range, "");
}

// A quota's used amount in the format of its hard limit, as kubectl rewrites it when they differ.
std::string used_text(const json& used, const json& hard) {
  auto used_quantity = api::parse_go_quantity(used);
  auto hard_quantity = api::parse_go_quantity(hard);
  if (!used_quantity) return "0";
  if (!hard_quantity || used_quantity->format == hard_quantity->format) return used_quantity->string();
  api::GoQuantity rewritten = api::scaled_quantity(used_quantity->value(), 0);
  rewritten.format = hard_quantity->format;
  return rewritten.string();
}

void describe_quota(Writer& w, const json& quota, const Related&, TimePoint) {
  write_name(w, quota, true);
  std::vector<std::string> scopes = api::strings(at(quota, {"spec"}), "scopes");
  if (!scopes.empty()) {
    std::ranges::sort(scopes);
    std::string list;
    for (const auto& scope : scopes) list += (list.empty() ? "" : ", ") + scope;
    w.write(0, "Scopes:\t" + list + "\n");
    for (const auto& scope : scopes)
      if (const std::string help = scope_help(scope); !help.empty()) w.write(0, " * " + help + "\n");
  }
  w.write(0, "Resource\tUsed\tHard\n");
  w.write(0, "--------\t----\t----\n");
  const json& hard = at(quota, {"status", "hard"});
  if (!hard.is_object()) return;
  for (const auto& [resource, quantity] : hard.items())
    w.write(0, resource + "\t" + used_text(at(quota, {"status", "used", resource}), quantity) + "\t" +
                   value_text(quantity) + "\n");
}

void describe_namespace(Writer& w, const json& ns, const Related& related, TimePoint) {
  write_name(w, ns, false);
  write_metadata(w, ns);
  w.write(0, "Status:\t" + str(at(ns, {"status", "phase"})) + "\n");
  if (const json& conditions = arr(at(ns, {"status", "conditions"})); !conditions.empty()) {
    w.write(0, "Conditions:\n");
    w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
    w.write(1, "----\t------\t------------------\t------\t-------\n");
    for (const auto& c : conditions)
      w.write(1, str(at(c, {"type"})) + "\t" + str(at(c, {"status"})) + "\t" + rfc1123z(at(c, {"lastTransitionTime"})) +
                     "\t" + str(at(c, {"reason"})) + "\t" + str(at(c, {"message"})) + "\n");
  }
  if (related.quotas) {
    w.write(0, "\n");
    write_quotas(w, *related.quotas);
  }
  if (related.limit_ranges) {
    w.write(0, "\n");
    write_limit_ranges(w, *related.limit_ranges);
  }
}

// ---- ConfigMap, Secret, ServiceAccount ---------------------------------------------------------

void describe_config_map(Writer& w, const json& map, const Related& related, TimePoint now) {
  write_name(w, map, true);
  write_metadata(w, map);
  w.write(0, "\nData\n====\n");
  if (const json& data = at(map, {"data"}); data.is_object())
    for (const auto& [key, value] : data.items()) w.write(0, key + ":\n----\n" + value_text(value) + "\n\n");
  w.write(0, "\nBinaryData\n====\n");
  if (const json& data = at(map, {"binaryData"}); data.is_object())
    for (const auto& [key, value] : data.items()) {
      const std::string encoded = value_text(value);
      const std::size_t padding = static_cast<std::size_t>(std::ranges::count(encoded, '='));
      w.write(0, key + ": " + std::to_string(encoded.size() / 4 * 3 - padding) + " bytes\n");
    }
  w.write(0, "\n");
  if (related.events) write_events(w, *related.events, now);
}

void describe_secret(Writer& w, const json& secret, const Related&, TimePoint) {
  write_name(w, secret, true);
  write_metadata(w, secret);
  const std::string type = str(at(secret, {"type"}));
  w.write(0, "\nType:\t" + type + "\n");
  w.write(0, "\nData\n====\n");
  const json& data = at(secret, {"data"});
  if (!data.is_object()) return;
  for (const auto& [key, value] : data.items()) {
    const std::string encoded = value_text(value);
    const std::size_t padding = static_cast<std::size_t>(std::ranges::count(encoded, '='));
    const std::size_t size = encoded.size() / 4 * 3 - padding;
    // A service account token is shown; every other value only by its size.
    if (key == "token" && type == "kubernetes.io/service-account-token")
      w.write(0, key + ":\t" + util::base64_decode(encoded).value_or("") + "\n");
    else
      w.write(0, key + ":\t" + std::to_string(size) + " bytes\n");
  }
}

std::vector<std::string> names_in(const json& references) {
  std::vector<std::string> names;
  for (const auto& reference : arr(references)) names.push_back(str(at(reference, {"name"})));
  return names;
}

void describe_service_account(Writer& w, const json& account, const Related& related, TimePoint now) {
  write_name(w, account, true);
  write_metadata(w, account);
  // Its token Secrets, and the Secrets it names that the namespace does not hold (when the
  // namespace's Secrets could be read).
  std::vector<std::string> tokens;
  std::set<std::string> missing;
  if (related.secrets) {
    for (const auto& name : names_in(at(account, {"secrets"}))) missing.insert(name);
    for (const auto& secret : *related.secrets) {
      const json& annotations = at(secret, {"metadata", "annotations"});
      if (str(at(secret, {"type"})) == "kubernetes.io/service-account-token" &&
          str(at(annotations, {"kubernetes.io/service-account.name"})) == str(at(account, {"metadata", "name"})) &&
          str(at(annotations, {"kubernetes.io/service-account.uid"})) == str(at(account, {"metadata", "uid"})))
        tokens.push_back(str(at(secret, {"metadata", "name"})));
      missing.erase(str(at(secret, {"metadata", "name"})));
    }
  }
  // The headers are padded to one width; further names go under the first.
  const std::pair<std::string, std::vector<std::string>> sections[] = {
      {"Image pull secrets:", names_in(at(account, {"imagePullSecrets"}))},
      {"Mountable secrets: ", names_in(at(account, {"secrets"}))},
      {"Tokens:            ", tokens}};
  for (const auto& [header, names] : sections) {
    if (names.empty()) w.write(0, header + "\t<none>\n");
    std::string prefix = header;
    for (const auto& name : names) {
      w.write(0, prefix + "\t" + name + (missing.contains(name) ? " (not found)" : "") + "\n");
      prefix = std::string(header.size(), ' ');
    }
  }
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

Describer core_describer(std::string_view group, std::string_view kind) {
  if (group.empty()) {
    if (kind == "Pod") return describe_pod;
    if (kind == "Namespace") return describe_namespace;
    if (kind == "ConfigMap") return describe_config_map;
    if (kind == "Secret") return describe_secret;
    if (kind == "ServiceAccount") return describe_service_account;
    if (kind == "LimitRange") return describe_limit_range;
    if (kind == "ResourceQuota") return describe_quota;
  }
  return nullptr;
}

}  // namespace kw::cli::describe
