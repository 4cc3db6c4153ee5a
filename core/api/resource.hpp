#pragma once
// The resource table: what kinds exist, how they are named and served. Built-in kinds come
// from their rows (server/registry/kinds/), CRDs are added at run time, discovery fills a
// client's; all through the same ResourceInfo.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kw::api {

class JsonPath;

struct ColumnDefinition {  // meta.k8s.io/v1 TableColumnDefinition
  std::string name;
  std::string type;    // "string", "integer", "number", "boolean", "date"
  std::string format;  // "name", "date", ""...
  std::string description;
  int priority = 0;    // 0 = always shown, 1 = only with -o wide
  std::string json_path;  // for CRD additionalPrinterColumns; empty for built-ins
  // json_path parsed once (with_parsed_path), shared by every row; null: parsed per cell.
  std::shared_ptr<const JsonPath> parsed_path = nullptr;

  // This column with json_path parsed ahead (a path that does not parse stays unparsed).
  ColumnDefinition with_parsed_path() &&;
};

// Where the scale subresource (autoscaling/v1 Scale) reads and writes: simple dotted JSON
// paths. Built-in workloads read their selector from spec.selector (a LabelSelector);
// custom resources from label_selector_path (a string field), when given.
struct ScalePaths {
  std::string spec_replicas = ".spec.replicas";
  std::string status_replicas = ".status.replicas";
  std::string label_selector;  // custom resources only; "" = no selector
  bool selector_from_spec = false;
};

// An apiVersion's group and version: "apps/v1" -> {"apps", "v1"}, "v1" -> {"", "v1"}.
struct GroupVersion {
  std::string group;
  std::string version;
};
GroupVersion split_api_version(std::string_view api_version);
// Go's GroupVersionKind.String(), as kube's messages print a kind: "apps/v1, Kind=Deployment"
// ("/v1, Kind=Pod" for the core group).
std::string go_group_version_kind(std::string_view api_version, std::string_view kind);

// The cells of one Table row of a built-in kind, in the order of its columns, as
// kube-apiserver's printer for the kind fills them.
using TablePrinter = std::vector<nlohmann::json> (*)(const nlohmann::json& object,
                                                      std::chrono::system_clock::time_point now);

struct ResourceInfo {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string kind;     // "Pod"
  std::string list_kind;  // "PodList"
  std::string plural;   // "pods"
  std::string singular; // "pod"
  std::vector<std::string> short_names;  // {"po"}
  std::vector<std::string> categories;   // {"all"}
  bool namespaced = true;
  std::vector<std::string> verbs;        // discovery verbs
  std::vector<std::string> subresources; // {"status"}
  std::optional<ScalePaths> scale;       // set when "scale" is a subresource
  // Full protobuf message name ("k8s.io.api.core.v1.Pod"); empty when the kind has no
  // protobuf form (CRDs, Table).
  std::string proto_message;
  std::vector<ColumnDefinition> columns;  // Table columns (NAME first)
  TablePrinter printer = nullptr;         // fills `columns` where they need code
  // A custom resource (from a CRD): stored as JSON under storage_version's apiVersion and
  // served as `version` (conversion None: only apiVersion differs).
  bool custom = false;
  std::string storage_version;

  std::string api_version() const;   // "v1" or "apps/v1"
  std::string group_version() const; // same as api_version()
  bool has_subresource(std::string_view name) const;
};

// A thread-compatible table: built once at start-up, then extended (CRDs) under the
// owner's lock. Lookups are case-insensitive where kubectl's are.
class ResourceTable {
 public:
  void add(ResourceInfo info);     // replaces an entry with the same group+version+plural
  bool remove(std::string_view group, std::string_view version, std::string_view plural);

  const ResourceInfo* find_plural(std::string_view group, std::string_view version,
                                  std::string_view plural) const;
  const ResourceInfo* find_kind(std::string_view api_version, std::string_view kind) const;
  // kubectl-style name resolution: plural, singular, short name or kind, optionally
  // qualified "deployments.apps" / "deployments.v1.apps"; first match in preferred order.
  const ResourceInfo* resolve(std::string_view name) const;

  const std::vector<ResourceInfo>& all() const { return m_resources; }
  // Distinct group names in discovery order ("" first), and versions of a group.
  std::vector<std::string> groups() const;
  std::vector<std::string> versions(std::string_view group) const;

 private:
  std::vector<ResourceInfo> m_resources;
};

// The protobuf message of a meta.k8s.io kind served without a resource (Status, WatchEvent,
// discovery documents...); nullopt for kinds with no protobuf form (Table).
std::optional<std::string> meta_proto_message(std::string_view kind);

}  // namespace kw::api
