// apiextensions.k8s.io/v1: the CustomResourceDefinition row. Its checks and serving
// status live in server/crd; the registry runs them for Lifecycle::definition. Its message
// (k8s.io.apiextensions_apiserver...CustomResourceDefinition) serves protobuf clients and
// checks fields; storage stays JSON, as kube-apiserver keeps CRDs in etcd.
#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

// SetDefaults_CustomResourceDefinitionSpec: singular and listKind from the kind, conversion None,
// and port 443 for a conversion webhook's Service.
void default_definition(nlohmann::json& o) {
  if (!o.contains("spec") || !o["spec"].is_object()) return;
  auto& spec = o["spec"];
  if (spec.contains("names") && spec["names"].is_object()) {
    auto& names = spec["names"];
    const std::string kind = names.value("kind", std::string());
    if (names.value("singular", std::string()).empty() && !kind.empty()) names["singular"] = util::to_lower(kind);
    if (names.value("listKind", std::string()).empty() && !kind.empty()) names["listKind"] = kind + "List";
  }
  default_value(spec, "conversion", {{"strategy", "None"}});
  auto& conversion = spec["conversion"];
  if (!conversion.is_object() || !conversion.contains("webhook") || !conversion["webhook"].is_object()) return;
  auto& client = conversion["webhook"];
  if (client.contains("clientConfig") && client["clientConfig"].is_object() &&
      client["clientConfig"].contains("service") && client["clientConfig"]["service"].is_object())
    default_value(client["clientConfig"]["service"], "port", 443);
}

}  // namespace

std::vector<KindSpec> apiextensions_v1_kinds() {
  using api::print::col;
  using api::print::name_col;
  return {{.info = {.group = "apiextensions.k8s.io", .version = "v1", .kind = "CustomResourceDefinition",
                    .plural = "customresourcedefinitions", .short_names = {"crd", "crds"}, .namespaced = false,
                    .subresources = {"status"},
                    .columns = {name_col(),
                                col("Created At", "date",
                                    "CreationTimestamp is a timestamp representing the server time when this object "
                                    "was created.")}},
           .storage_resource = "apiextensions.k8s.io/customresourcedefinitions",
           .stored_as_json = true,
           .generation = std::vector<std::string>{"spec"},
           .lifecycle = Lifecycle::definition,
           .strategy = {.defaults = default_definition}}};
}

}  // namespace kw::kinds
