// The describers of the policy and discovery kinds: PodDisruptionBudget, NetworkPolicy,
// HorizontalPodAutoscaler, IngressClass, EndpointSlice and CSINode.
#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

std::string or_unset(const json& value) { return value.is_null() ? "<unset>" : value_text(value); }

void describe_disruption_budget(Writer& w, const json& pdb, const Related& related, TimePoint now) {
  const json& spec = at(pdb, {"spec"});
  write_name(w, pdb);
  if (!at(spec, {"minAvailable"}).is_null())
    w.write(0, "Min available:\t" + value_text(at(spec, {"minAvailable"})) + "\n");
  else if (!at(spec, {"maxUnavailable"}).is_null())
    w.write(0, "Max unavailable:\t" + value_text(at(spec, {"maxUnavailable"})) + "\n");
  const json& selector = at(spec, {"selector"});
  w.write(0, "Selector:\t" + (selector.is_object() ? api::print::format_label_selector(selector) : "<unset>") + "\n");
  const json& status = at(pdb, {"status"});
  w.write(0, "Status:\n");
  w.write(2, "Allowed disruptions:\t" + std::to_string(num(at(status, {"disruptionsAllowed"}))) + "\n");
  w.write(2, "Current:\t" + std::to_string(num(at(status, {"currentHealthy"}))) + "\n");
  w.write(2, "Desired:\t" + std::to_string(num(at(status, {"desiredHealthy"}))) + "\n");
  w.write(2, "Total:\t" + std::to_string(num(at(status, {"expectedPods"}))) + "\n");
  if (related.events) write_events(w, *related.events, now);
}

// ---- NetworkPolicy ------------------------------------------------------------------------------

// The peers of an ingress ("From") or egress ("To") rule, and its ports, as kubectl lists them;
// rules apart by a dashed line.
void write_policy_rules(Writer& w, const json& rules, const char* peers_key, const std::string& peer,
                        const std::string& none, const std::string& any_peer) {
  const std::string indent = "    ";
  if (arr(rules).empty()) return w.write(0, indent + none + "\n");
  for (std::size_t i = 0; i < arr(rules).size(); ++i) {
    const json& rule = arr(rules)[i];
    if (arr(at(rule, {"ports"})).empty()) w.write(0, indent + "To Port: <any> (traffic allowed to all ports)\n");
    for (const auto& port : arr(at(rule, {"ports"}))) {
      const std::string protocol = at(port, {"protocol"}).is_string() ? str(at(port, {"protocol"})) : "TCP";
      if (const json& end = at(port, {"endPort"}); end.is_number())
        w.write(0, indent + "To Port Range: " + value_text(at(port, {"port"})) + "-" + value_text(end) + "/" +
                       protocol + "\n");
      else
        w.write(0, indent + "To Port: " + value_text(at(port, {"port"})) + "/" + protocol + "\n");
    }
    if (arr(at(rule, {peers_key})).empty()) w.write(0, indent + any_peer + "\n");
    for (const auto& item : arr(at(rule, {peers_key}))) {
      w.write(0, indent + peer + ":\n");
      const json& pods = at(item, {"podSelector"});
      const json& namespaces = at(item, {"namespaceSelector"});
      if (!namespaces.is_null())
        w.write(1, indent + "NamespaceSelector: " + api::print::format_label_selector(namespaces) + "\n");
      if (!pods.is_null()) w.write(1, indent + "PodSelector: " + api::print::format_label_selector(pods) + "\n");
      if (pods.is_null() && namespaces.is_null())
        if (const json& block = at(item, {"ipBlock"}); block.is_object()) {
          w.write(1, indent + "IPBlock:\n");
          w.write(2, indent + "CIDR: " + str(at(block, {"cidr"})) + "\n");
          std::string except;
          for (const auto& cidr : arr(at(block, {"except"}))) except += (except.empty() ? "" : ", ") + str(cidr);
          w.write(2, indent + "Except: " + except + "\n");
        }
    }
    if (i + 1 != arr(rules).size()) w.write(0, indent + "----------\n");
  }
}

// metav1.Time's String(): Go's time.Time.String() in the local zone.
std::string go_time_text(const json& value) {
  const auto time = api::print::time_of(value);
  if (!time) return "0001-01-01 00:00:00 +0000 UTC";
  const std::time_t seconds = std::chrono::system_clock::to_time_t(*time);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S %z %Z", &local);
  return text;
}

void describe_network_policy(Writer& w, const json& policy, const Related&, TimePoint) {
  const json& spec = at(policy, {"spec"});
  write_name(w, policy);
  w.write(0, "Created on:\t" + go_time_text(at(policy, {"metadata", "creationTimestamp"})) + "\n");
  write_metadata(w, policy);
  w.write(0, "Spec:\n");
  w.write(1, "PodSelector: ");
  const json& selector = at(spec, {"podSelector"});
  if (api::size_of(at(selector, {"matchLabels"})) == 0 && api::size_of(at(selector, {"matchExpressions"})) == 0)
    w.write(2, "<none> (Allowing the specific traffic to all pods in this namespace)\n");
  else
    w.write(2, api::print::format_label_selector(selector) + "\n");
  bool ingress = false, egress = false;
  std::string types;
  for (const auto& type : arr(at(spec, {"policyTypes"}))) {
    ingress |= str(type) == "Ingress";
    egress |= str(type) == "Egress";
    types += (types.empty() ? "" : ", ") + str(type);
  }
  if (ingress) {
    w.write(1, "Allowing ingress traffic:\n");
    write_policy_rules(w, at(spec, {"ingress"}), "from", "From",
                       "<none> (Selected pods are isolated for ingress connectivity)",
                       "From: <any> (traffic not restricted by source)");
  } else {
    w.write(1, "Not affecting ingress traffic\n");
  }
  if (egress) {
    w.write(1, "Allowing egress traffic:\n");
    write_policy_rules(w, at(spec, {"egress"}), "to", "To",
                       "<none> (Selected pods are isolated for egress connectivity)",
                       "To: <any> (traffic not restricted by destination)");
  } else {
    w.write(1, "Not affecting egress traffic\n");
  }
  w.write(1, "Policy Types: " + (types.empty() ? std::string("<none>") : types) + "\n");
}

// ---- HorizontalPodAutoscaler --------------------------------------------------------------------

std::string current_of(const json& hpa, std::size_t index, const char* source, const char* field) {
  const json& current = arr(at(hpa, {"status", "currentMetrics"}));
  if (index >= current.size()) return "<unknown>";
  const json& value = at(current[index], {source, "current", field});
  if (at(current[index], {source}).is_null()) return "<unknown>";
  return value.is_null() ? "0" : value_text(value);
}

void write_metric(Writer& w, const json& hpa, const json& metric, std::size_t i) {
  const std::string type = str(at(metric, {"type"}));
  if (type == "External") {
    const json& target = at(metric, {"external", "target"});
    const std::string name = json(str(at(metric, {"external", "metric", "name"}))).dump();
    if (!at(target, {"averageValue"}).is_null())
      w.write(1, name + " (target average value):\t" + current_of(hpa, i, "external", "averageValue") + " / " +
                     value_text(at(target, {"averageValue"})) + "\n");
    else
      w.write(1, name + " (target value):\t" + current_of(hpa, i, "external", "value") + " / " +
                     value_text(at(target, {"value"})) + "\n");
  } else if (type == "Pods") {
    w.write(1, json(str(at(metric, {"pods", "metric", "name"}))).dump() + " on pods:\t" +
                   current_of(hpa, i, "pods", "averageValue") + " / " +
                   value_text(at(metric, {"pods", "target", "averageValue"})) + "\n");
  } else if (type == "Object") {
    const json& object = at(metric, {"object"});
    w.write(1, "\"" + str(at(object, {"metric", "name"})) + "\" on " + str(at(object, {"describedObject", "kind"})) +
                   "/" + str(at(object, {"describedObject", "name"})) + " ");
    if (str(at(object, {"target", "type"})) == "AverageValue")
      w.write(0, "(target average value):\t" + current_of(hpa, i, "object", "averageValue") + " / " +
                     value_text(at(object, {"target", "averageValue"})) + "\n");
    else
      w.write(0, "(target value):\t" + current_of(hpa, i, "object", "value") + " / " +
                     value_text(at(object, {"target", "value"})) + "\n");
  } else if (type == "Resource" || type == "ContainerResource") {
    const char* source = type == "Resource" ? "resource" : "containerResource";
    const json& resource = at(metric, {source});
    if (type == "Resource")
      w.write(1, "resource " + str(at(resource, {"name"})) + " on pods");
    else
      w.write(1, "resource " + str(at(resource, {"name"})) + " of container \"" + str(at(resource, {"container"})) +
                     "\" on pods");
    if (!at(resource, {"target", "averageValue"}).is_null()) {
      w.write(0, ":\t" + current_of(hpa, i, source, "averageValue") + " / " +
                     value_text(at(resource, {"target", "averageValue"})) + "\n");
    } else {
      std::string current = "<unknown>";
      const json& metrics = arr(at(hpa, {"status", "currentMetrics"}));
      if (i < metrics.size() && at(metrics[i], {source, "current", "averageUtilization"}).is_number())
        current = std::to_string(num(at(metrics[i], {source, "current", "averageUtilization"}))) + "% (" +
                  value_text(at(metrics[i], {source, "current", "averageValue"})) + ")";
      const json& utilization = at(resource, {"target", "averageUtilization"});
      const std::string target = utilization.is_number() ? std::to_string(num(utilization)) + "%" : "<auto>";
      w.write(1, "(as a percentage of request):\t" + current + " / " + target + "\n");
    }
  } else {
    w.write(1, "<unknown metric type " + json(type).dump() + ">\n");
  }
}

void write_scaling_rules(Writer& w, const std::string& direction, const json& rules) {
  if (!rules.is_object()) return;
  w.write(1, direction + ":\n");
  if (at(rules, {"stabilizationWindowSeconds"}).is_number())
    w.write(2,
            "Stabilization Window: " + std::to_string(num(at(rules, {"stabilizationWindowSeconds"}))) + " seconds\n");
  if (arr(at(rules, {"policies"})).empty()) return;
  const std::string select = str(at(rules, {"selectPolicy"}));
  w.write(2, "Select Policy: " + (select.empty() ? std::string("Max") : select) + "\n");
  w.write(2, "Policies:\n");
  for (const auto& policy : arr(at(rules, {"policies"})))
    w.write(3, "- Type: " + str(at(policy, {"type"})) + "\tValue: " + std::to_string(num(at(policy, {"value"}))) +
                   "\tPeriod: " + std::to_string(num(at(policy, {"periodSeconds"}))) + " seconds\n");
}

void describe_autoscaler(Writer& w, const json& hpa, const Related& related, TimePoint now) {
  const json& spec = at(hpa, {"spec"});
  write_name(w, hpa);
  write_metadata(w, hpa);
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(hpa, {"metadata", "creationTimestamp"})) + "\n");
  const std::string kind = str(at(spec, {"scaleTargetRef", "kind"}));
  w.write(0, "Reference:\t" + kind + "/" + str(at(spec, {"scaleTargetRef", "name"})) + "\n");
  w.write(0, "Metrics:\t( current / target )\n");
  for (std::size_t i = 0; i < arr(at(spec, {"metrics"})).size(); ++i)
    write_metric(w, hpa, arr(at(spec, {"metrics"}))[i], i);
  w.write(0, "Min replicas:\t" + or_unset(at(spec, {"minReplicas"})) + "\n");
  w.write(0, "Max replicas:\t" + std::to_string(num(at(spec, {"maxReplicas"}))) + "\n");
  if (const json& behavior = at(spec, {"behavior"}); behavior.is_object()) {
    w.write(0, "Behavior:\n");
    write_scaling_rules(w, "Scale Up", at(behavior, {"scaleUp"}));
    write_scaling_rules(w, "Scale Down", at(behavior, {"scaleDown"}));
  }
  w.write(0, kind + " pods:\t" + std::to_string(num(at(hpa, {"status", "currentReplicas"}))) + " current / " +
                 std::to_string(num(at(hpa, {"status", "desiredReplicas"}))) + " desired\n");
  if (const json& conditions = arr(at(hpa, {"status", "conditions"})); !conditions.empty()) {
    w.write(0, "Conditions:\n");
    w.write(1, "Type\tStatus\tReason\tMessage\n");
    w.write(1, "----\t------\t------\t-------\n");
    for (const auto& c : conditions)
      w.write(1, str(at(c, {"type"})) + "\t" + str(at(c, {"status"})) + "\t" + str(at(c, {"reason"})) + "\t" +
                     str(at(c, {"message"})) + "\n");
  }
  if (related.events) write_events(w, *related.events, now);
}

// ---- IngressClass, EndpointSlice, CSINode -------------------------------------------------------

void describe_ingress_class(Writer& w, const json& ic, const Related& related, TimePoint now) {
  write_name(w, ic, false);
  write_metadata(w, ic);
  w.write(0, "Controller:\t" + str(at(ic, {"spec", "controller"})) + "\n");
  if (const json& parameters = at(ic, {"spec", "parameters"}); parameters.is_object()) {
    w.write(0, "Parameters:\n");
    if (at(parameters, {"apiGroup"}).is_string()) w.write(1, "APIGroup:\t" + str(at(parameters, {"apiGroup"})) + "\n");
    w.write(1, "Kind:\t" + str(at(parameters, {"kind"})) + "\n");
    w.write(1, "Name:\t" + str(at(parameters, {"name"})) + "\n");
  }
  if (related.events) write_events(w, *related.events, now);
}

void describe_endpoint_slice(Writer& w, const json& slice, const Related& related, TimePoint now) {
  write_name(w, slice);
  write_metadata(w, slice);
  w.write(0, "AddressType:\t" + str(at(slice, {"addressType"})) + "\n");
  if (arr(at(slice, {"ports"})).empty()) {
    w.write(0, "Ports: <unset>\n");
  } else {
    w.write(0, "Ports:\n");
    w.write(1, "Name\tPort\tProtocol\n");
    w.write(1, "----\t----\t--------\n");
    for (const auto& port : arr(at(slice, {"ports"}))) {
      const std::string name = str(at(port, {"name"}));
      w.write(1, (name.empty() ? "<unset>" : name) + "\t" + or_unset(at(port, {"port"})) + "\t" +
                     str(at(port, {"protocol"})) + "\n");
    }
  }
  if (arr(at(slice, {"endpoints"})).empty()) {
    w.write(0, "Endpoints: <none>\n");
  } else {
    w.write(0, "Endpoints:\n");
    for (const auto& endpoint : arr(at(slice, {"endpoints"}))) {
      std::string addresses;
      for (const auto& address : arr(at(endpoint, {"addresses"})))
        addresses += (addresses.empty() ? "" : ", ") + str(address);
      w.write(1, "- Addresses:\t" + (addresses.empty() ? std::string("<none>") : addresses) + "\n");
      w.write(2, "Conditions:\n");
      w.write(3, "Ready:\t" + or_unset(at(endpoint, {"conditions", "ready"})) + "\n");
      w.write(2, "Hostname:\t" + or_unset(at(endpoint, {"hostname"})) + "\n");
      if (const json& target = at(endpoint, {"targetRef"}); target.is_object())
        w.write(2, "TargetRef:\t" + str(at(target, {"kind"})) + "/" + str(at(target, {"name"})) + "\n");
      w.write(2, "NodeName:\t" + or_unset(at(endpoint, {"nodeName"})) + "\n");
      w.write(2, "Zone:\t" + or_unset(at(endpoint, {"zone"})) + "\n");
    }
  }
  if (related.events) write_events(w, *related.events, now);
}

void describe_csi_node(Writer& w, const json& node, const Related& related, TimePoint now) {
  write_name(w, node, false);
  write_metadata(w, node);
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(node, {"metadata", "creationTimestamp"})) + "\n");
  w.write(0, "Spec:\n");
  if (const json& drivers = at(node, {"spec", "drivers"}); drivers.is_array()) {
    w.write(1, "Drivers:\n");
    for (const auto& driver : drivers) {
      w.write(2, str(at(driver, {"name"})) + ":\n");
      w.write(3, "Node ID:\t" + str(at(driver, {"nodeID"})) + "\n");
      if (at(driver, {"allocatable", "count"}).is_number()) {
        w.write(3, "Allocatables:\n");
        w.write(4, "Count:\t" + std::to_string(num(at(driver, {"allocatable", "count"}))) + "\n");
      }
      if (at(driver, {"topologyKeys"}).is_array())
        w.write(3, "Topology Keys:\t" + go_list(at(driver, {"topologyKeys"})) + "\n");
    }
  }
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

Describer policy_describer(std::string_view group, std::string_view kind) {
  if (group == "policy" && kind == "PodDisruptionBudget") return describe_disruption_budget;
  if (group == "networking.k8s.io" && kind == "NetworkPolicy") return describe_network_policy;
  if (group == "networking.k8s.io" && kind == "IngressClass") return describe_ingress_class;
  if (group == "autoscaling" && kind == "HorizontalPodAutoscaler") return describe_autoscaler;
  if (group == "discovery.k8s.io" && kind == "EndpointSlice") return describe_endpoint_slice;
  if (group == "storage.k8s.io" && kind == "CSINode") return describe_csi_node;
  return nullptr;
}

}  // namespace kw::cli::describe
