// apiextensions.k8s.io/v1: the CustomResourceDefinition row. Its checks and serving
// status live in server/crd; the registry runs them for Lifecycle::definition. Its message
// (k8s.io.apiextensions_apiserver...CustomResourceDefinition) serves protobuf clients and
// checks fields; storage stays JSON, as kube-apiserver keeps CRDs in etcd.
#include "core/api/print_support.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {

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
           .lifecycle = Lifecycle::definition}};
}

}  // namespace kw::kinds
