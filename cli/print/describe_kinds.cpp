// The generic describer and the choice of a kind's describer.
#include "cli/print/describe_kinds.hpp"

#include <algorithm>
#include <cctype>

#include "core/api/json_access.hpp"
#include "core/api/jsonpath.hpp"

namespace kw::cli::describe {

namespace {

using api::at;
using api::str;
using nlohmann::json;

enum class CharClass { lower, upper, other };

CharClass class_of(char c) {
  if (std::islower(static_cast<unsigned char>(c))) return CharClass::lower;
  if (std::isupper(static_cast<unsigned char>(c))) return CharClass::upper;
  return CharClass::other;
}

// A camelCase name cut into its words as kubectl's camelcase library cuts it: runs of one
// character class, the last capital of a run of capitals going with the lowercase run after it
// ("HTTPServer" -> "HTTP", "Server").
std::vector<std::string> camel_words(const std::string& name) {
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i == 0 || class_of(name[i]) != class_of(name[i - 1])) runs.emplace_back();
    runs.back() += name[i];
  }
  for (std::size_t i = 0; i + 1 < runs.size(); ++i)
    if (!runs[i].empty() && class_of(runs[i][0]) == CharClass::upper && class_of(runs[i + 1][0]) == CharClass::lower) {
      runs[i + 1].insert(runs[i + 1].begin(), runs[i].back());
      runs[i].pop_back();
    }
  std::erase_if(runs, [](const std::string& run) { return run.empty(); });
  return runs;
}

std::string upper(std::string word) {
  std::ranges::transform(word, word.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return word;
}

// A scalar field's value as Go's %v prints the decoded JSON value.
std::string scalar_text(const json& value) {
  if (value.is_null()) return "<nil>";
  return value_text(value);
}

const char* const k_skipped[] = {".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels",
                                 ".metadata.annotations"};

bool skipped(const std::string& path) { return std::ranges::find(k_skipped, path) != std::end(k_skipped); }

void describe_generic(Writer& w, const json& object, const Related& related, TimePoint now) {
  write_name(w, object);
  write_labels(w, "Labels", at(object, {"metadata", "labels"}));
  write_annotations(w, "Annotations", at(object, {"metadata", "annotations"}));
  write_fields(w, 0, object, "");
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

std::string field_label(const std::string& field) {
  if (std::ranges::any_of(field, [](char c) { return !std::isalpha(static_cast<unsigned char>(c)) && c != '-'; }))
    return field;
  std::string out;
  for (auto word : camel_words(field)) {
    if (word == "_") continue;
    const std::string capitals = upper(word);
    if (capitals == "API" || capitals == "URL" || capitals == "UID" || capitals == "OSB" || capitals == "GUID")
      word = capitals;
    else
      word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

void write_fields(Writer& w, int level, const json& content, const std::string& path) {
  if (!content.is_object()) return;
  for (const auto& [field, value] : content.items()) {  // sorted, as kubectl sorts them
    const std::string here = path + "." + field;
    if (skipped(here)) continue;
    if (value.is_object()) {
      w.write(level, field_label(field) + ":\n");
      write_fields(w, level + 1, value, here);
    } else if (value.is_array()) {
      w.write(level, field_label(field) + ":\n");
      for (const auto& child : value) {
        if (child.is_object())
          write_fields(w, level + 1, child, here);
        else
          w.write(level + 1, scalar_text(child) + "\n");
      }
    } else {
      w.write(level, field_label(field) + ":\t" + scalar_text(value) + "\n");
    }
  }
}

std::vector<Need> needs_of(std::string_view group, std::string_view kind) {
  if (group == "apps" && (kind == "ReplicaSet" || kind == "DaemonSet" || kind == "StatefulSet")) return {Need::pods};
  if (group == "apps" && kind == "Deployment") return {Need::replica_sets};
  if (group.empty() && kind == "ReplicationController") return {Need::pods};
  if (group.empty() && kind == "PersistentVolumeClaim") return {Need::namespace_pods};
  if (group.empty() && kind == "Service") return {Need::services_and_endpoint_slices};
  if (group.empty() && kind == "Namespace") return {Need::quotas_and_limits};
  if (group.empty() && kind == "Node") return {Need::node_pods_and_lease};
  if (group.empty() && kind == "ServiceAccount") return {Need::secrets};
  if (group == "networking.k8s.io" && kind == "Ingress") return {Need::services_and_endpoint_slices};
  return {};
}

std::string pod_status_counts(const json& owner, const std::vector<json>& pods) {
  const std::string uid = str(at(owner, {"metadata", "uid"}));
  int running = 0, waiting = 0, succeeded = 0, failed = 0;
  for (const auto& pod : pods) {
    bool owned = false;
    for (const auto& reference : api::arr(at(pod, {"metadata", "ownerReferences"})))
      if (at(reference, {"controller"}) == true) owned = str(at(reference, {"uid"})) == uid;
    if (!owned) continue;
    const std::string phase = str(at(pod, {"status", "phase"}));
    running += phase == "Running";
    waiting += phase == "Pending";
    succeeded += phase == "Succeeded";
    failed += phase == "Failed";
  }
  return std::to_string(running) + " Running / " + std::to_string(waiting) + " Waiting / " + std::to_string(succeeded) +
         " Succeeded / " + std::to_string(failed) + " Failed";
}

void write_controller(Writer& w, const json& object) {
  for (const auto& reference : api::arr(at(object, {"metadata", "ownerReferences"})))
    if (at(reference, {"controller"}) == true)
      return w.write(0, "Controlled By:\t" + str(at(reference, {"kind"})) + "/" + str(at(reference, {"name"})) + "\n");
}

std::string describe_object(const json& object, const Related& related, TimePoint now) {
  const std::string api_version = str(at(object, {"apiVersion"}));
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string kind = str(at(object, {"kind"}));
  Describer describer = core_describer(group, kind);
  if (!describer) describer = workload_describer(group, kind);
  if (!describer) describer = storage_describer(group, kind);
  if (!describer) describer = rbac_describer(group, kind);
  if (!describer) describer = network_describer(group, kind);
  if (!describer) describer = policy_describer(group, kind);
  if (!describer && group.empty() && kind == "Node") describer = describe_node;
  if (!describer) describer = describe_generic;
  Writer w;
  describer(w, object, related, now);
  return align_columns(w.take());
}

}  // namespace kw::cli::describe
