#include "server/registry/fields.hpp"

#include <utility>
#include <vector>

namespace kw::registry {
namespace {

std::string text_at(const nlohmann::json& object, const std::vector<const char*>& path) {
  const nlohmann::json* at = &object;
  for (const char* step : path) {
    if (!at->is_object()) return "";
    auto found = at->find(step);
    if (found == at->end()) return "";
    at = &*found;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_boolean()) return at->get<bool>() ? "true" : "false";
  if (at->is_number()) return at->dump();
  return "";
}

// The path is a vector, not an initializer_list: a list stored in a container would point at
// a temporary array that is gone after the statement that built it.
using FieldPath = std::pair<const char*, std::vector<const char*>>;

}  // namespace

std::map<std::string, std::string> selectable_fields(const api::ResourceInfo& info, const nlohmann::json& object) {
  std::map<std::string, std::string> out;
  out["metadata.name"] = text_at(object, {"metadata", "name"});
  if (info.namespaced) out["metadata.namespace"] = text_at(object, {"metadata", "namespace"});
  std::vector<FieldPath> extra;
  if (info.group.empty() && info.kind == "Pod") {
    extra = {{"spec.nodeName", {"spec", "nodeName"}},
             {"spec.restartPolicy", {"spec", "restartPolicy"}},
             {"spec.schedulerName", {"spec", "schedulerName"}},
             {"spec.serviceAccountName", {"spec", "serviceAccountName"}},
             {"spec.hostNetwork", {"spec", "hostNetwork"}},
             {"status.phase", {"status", "phase"}},
             {"status.podIP", {"status", "podIP"}},
             {"status.nominatedNodeName", {"status", "nominatedNodeName"}}};
    out["spec.hostNetwork"] = "false";  // kube reports the default when unset
  } else if (info.group.empty() && info.kind == "Secret") {
    extra = {{"type", {"type"}}};
  } else if (info.group.empty() && info.kind == "Namespace") {
    extra = {{"status.phase", {"status", "phase"}}};
  } else if (info.group.empty() && info.kind == "Node") {
    extra = {{"spec.unschedulable", {"spec", "unschedulable"}}};
    out["spec.unschedulable"] = "false";
  } else if (info.group.empty() && info.kind == "Event") {
    extra = {{"involvedObject.kind", {"involvedObject", "kind"}},
             {"involvedObject.namespace", {"involvedObject", "namespace"}},
             {"involvedObject.name", {"involvedObject", "name"}},
             {"involvedObject.uid", {"involvedObject", "uid"}},
             {"involvedObject.apiVersion", {"involvedObject", "apiVersion"}},
             {"involvedObject.resourceVersion", {"involvedObject", "resourceVersion"}},
             {"involvedObject.fieldPath", {"involvedObject", "fieldPath"}},
             {"reason", {"reason"}},
             {"reportingComponent", {"reportingComponent"}},
             {"source", {"source", "component"}},
             {"type", {"type"}}};
  } else if (info.group == "apps" && info.kind == "ReplicaSet") {
    extra = {{"status.replicas", {"status", "replicas"}}};
  }
  for (const auto& [name, path] : extra) {
    std::string value = text_at(object, path);
    if (!value.empty() || !out.contains(name)) out[name] = std::move(value);
  }
  return out;
}

}  // namespace kw::registry
