// node.k8s.io/v1: RuntimeClass.
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// --- RuntimeClass ----------------------------------------------------------------------------

Cells print_runtime_class(const json& rc, TimePoint now) {
  return {name_of(rc), str(at(rc, {"handler"})), age_of(rc, now)};
}

// The pod overhead, checked as container limits are (ValidateContainerResourceRequirements):
// names of container resources, amounts not negative.
void validate_overhead(Causes& causes, const json& pod_fixed) {
  if (!pod_fixed.is_object()) return;
  for (const auto& [name, quantity] : pod_fixed.items()) {
    const std::string field = key_path("overhead.limits", name);
    container_resource_name(causes, field, name);
    resource_quantity(causes, field, name, quantity);
  }
}

void validate_runtime_class(const json& rc, Causes& causes) {
  const std::string handler = str(at(rc, {"handler"}));
  invalid_each(causes, "handler", handler, dns1123_label_errors(handler));
  validate_overhead(causes, at(rc, {"overhead", "podFixed"}));
  const json& scheduling = at(rc, {"scheduling"});
  if (!scheduling.is_object()) return;
  validate_labels(causes, at(scheduling, {"nodeSelector"}), "scheduling.nodeSelector");
  // Kubernetes names the tolerations' own checks scheduling.tolerations.tolerations[i] (the
  // path is extended twice) and their duplicates scheduling.tolerations[i].
  const json& tolerations = arr(at(scheduling, {"tolerations"}));
  validate_tolerations(causes, tolerations, "scheduling.tolerations.tolerations");
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const json& t = tolerations[i];
    const auto key =
        std::make_tuple(str(at(t, {"key"})), str(at(t, {"operator"})), str(at(t, {"value"})), str(at(t, {"effect"})));
    if (!seen.insert(key).second) duplicate_rendered(causes, index_path("scheduling.tolerations", i), go_toleration(t));
  }
}

void validate_runtime_class_update(const json& rc, const json& old, Causes& causes) {
  immutable(causes, "handler", at(rc, {"handler"}), at(old, {"handler"}));
}

KindSpec runtime_class_row() {
  return {.info = {.group = "node.k8s.io",
                   .version = "v1",
                   .kind = "RuntimeClass",
                   .plural = "runtimeclasses",
                   .namespaced = false,
                   // kube-apiserver's printer describes Handler with a key ObjectMeta does not have: "".
                   .columns = {name_col(), col("Handler", "string", ""), age_col()},
                   .printer = print_runtime_class},
          .strategy = {.validate = validate_runtime_class, .validate_update = validate_runtime_class_update}};
}

}  // namespace

std::vector<KindSpec> node_v1_kinds() { return {runtime_class_row()}; }

}  // namespace kw::kinds
