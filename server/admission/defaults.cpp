#include <optional>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

bool created(const registry::AdmissionRequest& r, std::string_view group, std::string_view plural) {
  return r.operation == "CREATE" && writes_object(r, group, plural);
}

// Semantic equality of two ResourceLists: the same names, equal values (a missing list is empty).
bool same_resources(const json& a, const json& b) {
  const json empty = json::object();
  const json& left = a.is_object() ? a : empty;
  const json& right = b.is_object() ? b : empty;
  if (left.size() != right.size()) return false;
  for (const auto& [name, value] : left.items()) {
    if (!right.contains(name)) return false;
    auto x = api::parse_go_quantity(value);
    auto y = api::parse_go_quantity(right[name]);
    if (!x || !y || x->compare(*y) != 0) return false;
  }
  return true;
}

// A toleration's fields as Go's struct holds them ("" for what is missing).
struct Toleration {
  std::string key, op, value, effect;
  std::optional<std::int64_t> seconds;
  json source;

  explicit Toleration(const json& t)
      : key(str(at(t, {"key"}))), op(str(at(t, {"operator"}))), value(str(at(t, {"value"}))),
        effect(str(at(t, {"effect"}))), source(t) {
    if (const json& s = at(t, {"tolerationSeconds"}); s.is_number_integer()) seconds = s.get<std::int64_t>();
  }
  bool operator==(const Toleration& o) const {
    return key == o.key && op == o.op && value == o.value && effect == o.effect && seconds == o.seconds;
  }
};

// Whether `ss` tolerates everything `t` does (kube's tolerations.isSuperset).
bool superset(const Toleration& ss, const Toleration& t) {
  if (ss == t) return true;
  if (t.key != ss.key && (!ss.key.empty() || ss.op != "Exists")) return false;
  if (t.effect != ss.effect && !ss.effect.empty()) return false;
  if (ss.effect == "NoExecute" && ss.seconds && (!t.seconds || *t.seconds > *ss.seconds)) return false;
  if (ss.op.empty() || ss.op == "Equal") return t.op == "Equal" && t.value == ss.value;
  return ss.op == "Exists";
}

// kube's tolerations.MergeTolerations: both lists in order, without the ones another covers.
json merge_tolerations(const json& first, const json& second) {
  std::vector<Toleration> all;
  for (const json* list : {&first, &second})
    if (list->is_array())
      for (const auto& t : *list) all.emplace_back(t);
  std::vector<const Toleration*> merged;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Toleration& t = all[i];
    const bool covered = std::ranges::any_of(merged, [&](const Toleration* kept) { return superset(*kept, t); }) ||
                         std::any_of(all.begin() + static_cast<std::ptrdiff_t>(i) + 1, all.end(),
                                     [&](const Toleration& later) { return !(later == t) && superset(later, t); });
    if (!covered) merged.push_back(&t);
  }
  json out = json::array();
  for (const auto* t : merged) out.push_back(t->source);
  return out;
}

constexpr const char* k_pod_rejected = "pod rejected: ";

registry::ApiResult<std::optional<json>> runtime_class_of(registry::Registry& registry,
                                                          const registry::AdmissionRequest& r, const json& pod) {
  const json& name = at(pod, {"spec", "runtimeClassName"});
  if (!name.is_string()) return std::optional<json>();
  auto found = cached_object(registry, "node.k8s.io", "v1", "runtimeclasses", "", name.get<std::string>());
  if (!found) return std::unexpected(found.error());
  if (!*found)
    return std::unexpected(registry::admission_forbidden(
        r, std::string(k_pod_rejected) + "RuntimeClass \"" + name.get<std::string>() + "\" not found"));
  return found;
}

}  // namespace

registry::AdmissionMutation default_ingress_class(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& ingress) -> registry::ApiResult<void> {
    if (!created(r, "networking.k8s.io", "ingresses")) return {};
    if (at(ingress, {"spec", "ingressClassName"}).is_string() ||
        !at(ingress, {"metadata", "annotations", "kubernetes.io/ingress.class"}).is_null())
      return {};
    auto classes = cached(registry, "networking.k8s.io", "v1", "ingressclasses");
    if (!classes) return std::unexpected(classes.error());
    std::vector<std::string> defaults;
    for (const auto& ingress_class : *classes)
      if (str(at(ingress_class->object(), {"metadata", "annotations", "ingressclass.kubernetes.io/is-default-class"})) == "true")
        defaults.push_back(ingress_class->name);
    if (defaults.size() > 1)
      return std::unexpected(internal_forbidden(
          r, std::to_string(defaults.size()) + " default IngressClasses were found, only 1 allowed"));
    if (defaults.size() == 1) ingress["spec"]["ingressClassName"] = defaults.front();
    return {};
  };
}

registry::AdmissionMutation taint_nodes_by_condition() {
  return [](const registry::AdmissionRequest& r, json& node) -> registry::ApiResult<void> {
    if (!created(r, "", "nodes")) return {};
    json& taints = node["spec"]["taints"];
    if (!taints.is_array()) taints = json::array();
    for (const auto& taint : taints)
      if (str(at(taint, {"key"})) == "node.kubernetes.io/not-ready" && str(at(taint, {"effect"})) == "NoSchedule")
        return {};
    taints.push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
    return {};
  };
}

registry::AdmissionMutation runtime_class_mutation(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& pod) -> registry::ApiResult<void> {
    if (!created(r, "", "pods")) return {};
    auto runtime_class = runtime_class_of(registry, r, pod);
    if (!runtime_class) return std::unexpected(runtime_class.error());
    if (!*runtime_class) return {};
    json& spec = pod["spec"];
    if (const json& fixed = at(**runtime_class, {"overhead", "podFixed"}); at(**runtime_class, {"overhead"}).is_object()) {
      if (spec.contains("overhead") && !same_resources(fixed, spec["overhead"]))
        return std::unexpected(registry::admission_forbidden(
            r, std::string(k_pod_rejected) + "Pod's Overhead doesn't match RuntimeClass's defined Overhead"));
      if (fixed.is_object()) spec["overhead"] = fixed;
    }
    const json& scheduling = at(**runtime_class, {"scheduling"});
    if (!scheduling.is_object()) return {};
    if (const json& selector = at(scheduling, {"nodeSelector"}); selector.is_object()) {
      json& own = spec["nodeSelector"];
      if (!own.is_object()) own = json::object();
      for (const auto& [key, value] : selector.items()) {
        if (own.contains(key) && own[key] != value)
          return std::unexpected(registry::admission_forbidden(
              r, "conflict: runtimeClass.scheduling.nodeSelector[" + key + "] = " + str(value) +
                     "; pod.spec.nodeSelector[" + key + "] = " + str(own[key])));
        own[key] = value;
      }
    }
    json merged = merge_tolerations(at(spec, {"tolerations"}), at(scheduling, {"tolerations"}));
    if (!merged.empty()) spec["tolerations"] = std::move(merged);
    return {};
  };
}

registry::AdmissionCheck runtime_class_check(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!created(r, "", "pods")) return {};
    auto runtime_class = runtime_class_of(registry, r, r.object);
    if (!runtime_class) return std::unexpected(runtime_class.error());
    const json& pod_overhead = at(r.object, {"spec", "overhead"});
    if (*runtime_class && at(**runtime_class, {"overhead"}).is_object()) {
      if (!same_resources(at(**runtime_class, {"overhead", "podFixed"}), pod_overhead))
        return std::unexpected(registry::admission_forbidden(
            r, std::string(k_pod_rejected) + "Pod's Overhead doesn't match RuntimeClass's defined Overhead"));
    } else if (!pod_overhead.is_null()) {
      return std::unexpected(registry::admission_forbidden(
          r, std::string(k_pod_rejected) + "Pod Overhead set without corresponding RuntimeClass defined Overhead"));
    }
    return {};
  };
}

}  // namespace kw::admission
