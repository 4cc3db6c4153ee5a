#include "server/admission/pod_scheduling.hpp"

#include <optional>

#include "core/api/print_support.hpp"
#include "server/admission/lookup.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_not_ready = "node.kubernetes.io/not-ready";
constexpr const char* k_unreachable = "node.kubernetes.io/unreachable";
constexpr const char* k_preempt_lower = "PreemptLowerPriority";

bool pod_itself(const registry::AdmissionRequest& r) { return writes_object(r, "", "pods"); }

// Whether a toleration covers the NoExecute taint `key` (an empty key or effect matches all).
bool tolerates(const json& toleration, const char* key) {
  const std::string own_key = str(at(toleration, {"key"}));
  const std::string effect = str(at(toleration, {"effect"}));
  return (own_key == key || own_key.empty()) && (effect == "NoExecute" || effect.empty());
}

// The PriorityClasses as the watch cache has them.
registry::ApiResult<std::vector<cache::ObjectPtr>> priority_classes(registry::Registry& registry) {
  return cached(registry, "scheduling.k8s.io", "v1", "priorityclasses");
}

std::int64_t value_of(const json& priority_class) {
  const json& value = at(priority_class, {"value"});
  return value.is_number_integer() ? value.get<std::int64_t>() : 0;
}

// kube's getDefaultPriorityClass: of the global defaults, the one with the lowest value.
std::optional<json> default_class(const std::vector<cache::ObjectPtr>& classes) {
  const json* best = nullptr;
  for (const auto& pc : classes)
    if (at(pc->object(), {"globalDefault"}) == true && (best == nullptr || value_of(*best) > value_of(pc->object())))
      best = &pc->object();
  if (best == nullptr) return std::nullopt;
  return *best;
}

registry::ApiError internal(const std::string& message) { return {500, "InternalError", message, {}}; }

}  // namespace

registry::AdmissionMutation default_toleration_seconds(TolerationSeconds seconds) {
  return [seconds](const registry::AdmissionRequest& r, json& pod) -> registry::ApiResult<void> {
    if (!pod_itself(r) || (r.operation != "CREATE" && r.operation != "UPDATE")) return {};
    json& spec = pod["spec"];
    if (!spec.is_object()) return {};
    bool not_ready = false, unreachable = false;
    if (const json& tolerations = at(spec, {"tolerations"}); tolerations.is_array())
      for (const auto& toleration : tolerations) {
        not_ready = not_ready || tolerates(toleration, k_not_ready);
        unreachable = unreachable || tolerates(toleration, k_unreachable);
      }
    auto add = [&](const char* key, std::int64_t for_seconds) {
      if (!spec["tolerations"].is_array()) spec["tolerations"] = json::array();
      spec["tolerations"].push_back(
          {{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", for_seconds}});
    };
    if (!not_ready) add(k_not_ready, seconds.not_ready);
    if (!unreachable) add(k_unreachable, seconds.unreachable);
    return {};
  };
}

registry::AdmissionMutation priority_mutation(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& pod) -> registry::ApiResult<void> {
    if (!pod_itself(r)) return {};
    json& spec = pod["spec"];
    if (!spec.is_object()) return {};
    if (r.operation == "UPDATE") {  // the stored values stay when the update leaves them out
      for (const char* field : {"priority", "preemptionPolicy"})
        if (!spec.contains(field) && r.old != nullptr && at(*r.old, {"spec", field}) != nullptr)
          spec[field] = at(*r.old, {"spec", field});
      return {};
    }
    if (r.operation != "CREATE") return {};
    auto classes = priority_classes(registry);
    if (!classes) return std::unexpected(classes.error());
    std::int64_t priority = 0;
    std::optional<std::string> policy = k_preempt_lower;
    const std::string class_name = str(at(spec, {"priorityClassName"}));
    std::optional<json> chosen;
    if (class_name.empty()) {
      chosen = default_class(*classes);
      if (chosen) spec["priorityClassName"] = str(at(*chosen, {"metadata", "name"}));
    } else {
      for (const auto& pc : *classes)
        if (pc->name == class_name) chosen = pc->object();
      if (!chosen)
        return std::unexpected(registry::admission_forbidden(r, "no PriorityClass with name " + class_name + " was found"));
    }
    if (chosen) {
      priority = value_of(*chosen);
      const std::string own = str(at(*chosen, {"preemptionPolicy"}));
      policy = own.empty() ? std::nullopt : std::optional<std::string>(own);
    }
    if (const json& given = at(spec, {"priority"}); given.is_number_integer() && given.get<std::int64_t>() != priority)
      return std::unexpected(registry::admission_forbidden(
          r, "the integer value of priority (" + std::to_string(given.get<std::int64_t>()) +
                 ") must not be provided in pod spec; priority admission controller computed " +
                 std::to_string(priority) + " from the given PriorityClass name"));
    spec["priority"] = priority;
    if (policy) {
      if (const std::string given = str(at(spec, {"preemptionPolicy"})); !given.empty() && given != *policy)
        return std::unexpected(registry::admission_forbidden(
            r, "the string value of PreemptionPolicy (" + given +
                   ") must not be provided in pod spec; priority admission controller computed " + *policy +
                   " from the given PriorityClass name"));
      spec["preemptionPolicy"] = *policy;
    }
    return {};
  };
}

registry::AdmissionCheck priority_check(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!r.subresource.empty() || r.info.group != "scheduling.k8s.io" || r.info.plural != "priorityclasses") return {};
    if (at(r.object, {"globalDefault"}) != true) return {};
    auto classes = priority_classes(registry);
    if (!classes) return std::unexpected(internal("failed to get default priority class: " + classes.error().message));
    const auto current = default_class(*classes);
    if (!current) return {};
    const std::string current_name = str(at(*current, {"metadata", "name"}));
    if (r.operation == "CREATE" || (r.operation == "UPDATE" && current_name != r.name))
      return std::unexpected(registry::admission_forbidden(
          r, "PriorityClass " + current_name + " is already marked as default. Only one default can exist"));
    return {};
  };
}

}  // namespace kw::admission
