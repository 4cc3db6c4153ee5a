// autoscaling/v2: HorizontalPodAutoscaler. autoscaling/v1 (autoscaling_v1.cpp) serves the same
// objects and reuses this file's defaults, validation, columns and printer.
#include <algorithm>
#include <array>
#include <string>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// The annotations autoscaling/v1 carries v2-only fields in; never kept on a v2 object.
constexpr std::array<const char*, 4> k_round_trip_annotations = {
    "autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/current-metrics",
    "autoscaling.alpha.kubernetes.io/conditions", "autoscaling.alpha.kubernetes.io/behavior"};

// ---- printer ------------------------------------------------------------------------------------

// A Quantity as text (kw keeps the string form a client sent); Go prints a missing one "<nil>".
std::string metric_quantity(const json& q) { return api::quantity_string(q, "<nil>"); }

std::string percent(const json& value) { return std::to_string(num(value)) + "%"; }

// One metric of the Targets column: "<current>/<target>", resource metrics prefixed by the
// resource name, as kubectl shows them.
std::string format_metric(const json& spec, const json& status) {
  const std::string type = str(at(spec, {"type"}));
  auto status_part = [&](const char* key) -> const json& { return at(status, {key}); };
  if (type == "External" || type == "Object") {
    const char* key = type == "External" ? "external" : "object";
    const auto& target = at(spec, {key, "target"});
    const auto& current = at(status_part(key), {"current"});
    if (!at(target, {"averageValue"}).is_null()) {
      const auto& average = at(current, {"averageValue"});
      return (average.is_null() ? std::string("<unknown>") : metric_quantity(average)) + "/" +
             metric_quantity(at(target, {"averageValue"})) + " (avg)";
    }
    const std::string now = status_part(key).is_null() ? "<unknown>" : metric_quantity(at(current, {"value"}));
    return now + "/" + metric_quantity(at(target, {"value"}));
  }
  if (type == "Pods") {
    const std::string now = status_part("pods").is_null()
                                ? "<unknown>"
                                : metric_quantity(at(status_part("pods"), {"current", "averageValue"}));
    return now + "/" + metric_quantity(at(spec, {"pods", "target", "averageValue"}));
  }
  if (type == "Resource" || type == "ContainerResource") {
    const char* key = type == "Resource" ? "resource" : "containerResource";
    const auto& source = at(spec, {key});
    const auto& target = at(source, {"target"});
    const auto& current = at(status_part(key), {"current"});
    const std::string name = str(at(source, {"name"})) + ": ";
    if (!at(target, {"averageValue"}).is_null()) {
      const std::string now = status_part(key).is_null() ? "<unknown>" : metric_quantity(at(current, {"averageValue"}));
      return name + now + "/" + metric_quantity(at(target, {"averageValue"}));
    }
    const auto& utilization = at(current, {"averageUtilization"});
    const std::string now = utilization.is_number() ? percent(utilization) : "<unknown>";
    const auto& wanted = at(target, {"averageUtilization"});
    return name + now + "/" + (wanted.is_number() ? percent(wanted) : std::string("<auto>"));
  }
  return "<unknown type>";
}

// formatHPAMetrics: the first two metrics, then how many more there are.
std::string format_metrics(const json& specs, const json& statuses) {
  const auto& list = arr(specs);
  if (list.empty()) return "<none>";
  const auto& readings = arr(statuses);
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < list.size() && i < 2; ++i)
    shown.push_back(format_metric(list[i], i < readings.size() ? readings[i] : json()));
  std::string out = join(shown, ", ");
  if (list.size() > 2) out += " + " + std::to_string(list.size() - 2) + " more...";
  return out;
}

Cells print_hpa(const json& hpa, TimePoint now) {
  const auto& spec = at(hpa, {"spec"});
  const auto& min = at(spec, {"minReplicas"});
  return {name_of(hpa),
          str(at(spec, {"scaleTargetRef", "kind"})) + "/" + str(at(spec, {"scaleTargetRef", "name"})),
          format_metrics(at(spec, {"metrics"}), at(hpa, {"status", "currentMetrics"})),
          min.is_number() ? std::to_string(num(min)) : std::string("<unset>"),
          num(at(spec, {"maxReplicas"})),
          num(at(hpa, {"status", "currentReplicas"})),
          age_of(hpa, now)};
}

// ---- defaults -----------------------------------------------------------------------------------

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the fields a client left unset take the
// defaults of the direction (scale-down has no default stabilization window: the controller's
// flag decides it).
json scaling_rules(const json& given, bool up) {
  json rules = up ? json{{"stabilizationWindowSeconds", 0},
                         {"selectPolicy", "Max"},
                         {"policies", json::array({{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}},
                                                   {{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}})}}
                  : json{{"selectPolicy", "Max"},
                         {"policies", json::array({{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}})}};
  if (given.is_object())
    for (const char* key : {"selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"})
      if (given.contains(key) && !given[key].is_null()) rules[key] = given[key];
  return rules;
}

// SetDefaults_HorizontalPodAutoscaler (v2).
void default_hpa(json& hpa) {
  auto& spec = object_member(hpa, "spec");
  if (at(spec, {"minReplicas"}).is_null()) spec["minReplicas"] = 1;
  if (arr(at(spec, {"metrics"})).empty())
    spec["metrics"] = json::array(
        {{{"type", "Resource"},
          {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  if (auto& behavior = spec["behavior"]; behavior.is_object()) {
    behavior["scaleUp"] = scaling_rules(at(behavior, {"scaleUp"}), true);
    behavior["scaleDown"] = scaling_rules(at(behavior, {"scaleDown"}), false);
  } else if (behavior.is_null()) {
    spec.erase("behavior");
  }
}

// v2 objects never keep the v1 round-trip annotations, and their status always reports
// desiredReplicas (a field Kubernetes writes even when zero).
void canonicalize_hpa(json& hpa) {
  auto& meta = object_member(hpa, "metadata");
  if (auto it = meta.find("annotations"); it != meta.end() && it->is_object()) {
    bool dropped = false;
    for (const char* key : k_round_trip_annotations) dropped = it->erase(key) > 0 || dropped;
    if (dropped && it->empty()) meta.erase(it);
  }
  auto& status = object_member(hpa, "status");
  if (at(status, {"desiredReplicas"}).is_null()) status["desiredReplicas"] = 0;
}

// PrepareForCreate: a new autoscaler has observed nothing yet.
void prepare_hpa(json& hpa) { hpa["status"] = {{"desiredReplicas", 0}}; }

// ---- validation ---------------------------------------------------------------------------------

// ValidateCrossVersionObjectReference; `allow_core_group` takes an apiVersion without a group
// (e.g. "v1" or none at all).
void validate_reference(Causes& causes, const json& ref, const std::string& path, bool allow_core_group) {
  for (const char* key : {"kind", "name"}) {
    const auto& value = at(ref, {key});
    if (str(value).empty()) required(causes, path + "." + key);
    else
      invalid_each(causes, path + "." + key, value, path_segment_errors(str(value)));
  }
  const auto& api_version = at(ref, {"apiVersion"});
  const std::string text = str(api_version);
  const auto slashes = std::count(text.begin(), text.end(), '/');
  if (slashes > 1)
    invalid_value(causes, path + ".apiVersion", text, "unexpected GroupVersion string: " + text);
  else if (!allow_core_group && (slashes == 0 || text.front() == '/'))  // no group: "", "v1", "/v1"
    invalid_value(causes, path + ".apiVersion", text, "apiVersion must specify API group");
}

void validate_metric_identifier(Causes& causes, const json& id, const std::string& path) {
  const auto& name = at(id, {"name"});
  if (str(name).empty()) required(causes, path + ".name", "must specify a metric name");
  else
    invalid_each(causes, path + ".name", name, path_segment_errors(str(name)));
}

void validate_metric_target(Causes& causes, const json& target, const std::string& path) {
  const auto& type = at(target, {"type"});
  if (str(type).empty()) required(causes, path + ".type", "must specify a metric target type");
  if (type != "Utilization" && type != "Value" && type != "AverageValue")
    invalid_value(causes, path + ".type", str(type), "must be either Utilization, Value, or AverageValue");
  for (const char* key : {"value", "averageValue"})
    if (const auto& q = at(target, {key}); !q.is_null() && api::quantity_sign(q) != 1)
      invalid_value(causes, path + "." + key, q, "must be positive");
  if (const auto& u = at(target, {"averageUtilization"}); u.is_number() && num(u) < 1)
    invalid_value(causes, path + ".averageUtilization", u, "must be greater than 0");
}

// Resource and ContainerResource sources want exactly one of averageUtilization and
// averageValue.
void validate_utilization_or_value(Causes& causes, const json& target, const std::string& path) {
  const bool utilization = !at(target, {"averageUtilization"}).is_null();
  const bool value = !at(target, {"averageValue"}).is_null();
  if (!utilization && !value)
    required(causes, path + ".averageUtilization", "must set either a target raw value or a target utilization");
  if (utilization && value)
    forbidden(causes, path + ".averageValue", "may not set both a target raw value and a target utilization");
}

void validate_source(Causes& causes, const std::string& kind, const json& source, const std::string& path) {
  const auto& target = at(source, {"target"});
  const std::string target_path = path + ".target";
  if (kind == "object") {
    validate_reference(causes, at(source, {"describedObject"}), path + ".describedObject", true);
    validate_metric_identifier(causes, at(source, {"metric"}), path + ".metric");
    validate_metric_target(causes, target, target_path);
    if (at(target, {"value"}).is_null() && at(target, {"averageValue"}).is_null())
      required(causes, target_path + ".averageValue", "must set either a target value or averageValue");
  } else if (kind == "external") {
    validate_metric_identifier(causes, at(source, {"metric"}), path + ".metric");
    validate_metric_target(causes, target, target_path);
    const bool value = !at(target, {"value"}).is_null();
    const bool average = !at(target, {"averageValue"}).is_null();
    if (!value && !average)
      required(causes, target_path + ".averageValue", "must set either a target value for metric or a per-pod target");
    if (value && average)
      forbidden(causes, target_path + ".value", "may not set both a target value for metric and a per-pod target");
  } else if (kind == "pods") {
    validate_metric_identifier(causes, at(source, {"metric"}), path + ".metric");
    validate_metric_target(causes, target, target_path);
    if (at(target, {"averageValue"}).is_null())
      required(causes, target_path + ".averageValue", "must specify a positive target averageValue");
  } else if (kind == "resource") {
    if (str(at(source, {"name"})).empty()) required(causes, path + ".name", "must specify a resource name");
    validate_metric_target(causes, target, target_path);
    validate_utilization_or_value(causes, target, target_path);
  } else {  // containerResource
    if (const auto& name = at(source, {"name"}); str(name).empty())
      required(causes, path + ".name", "must specify a resource name");
    else
      container_resource_name(causes, path + ".name", str(name));
    const std::string container = str(at(source, {"container"}));
    if (container.empty()) required(causes, path + ".container", "must specify a container");
    else
      invalid_each(causes, path + ".container", container, dns1123_label_errors(container));
    validate_metric_target(causes, target, target_path);
    validate_utilization_or_value(causes, target, target_path);
  }
}

// validateMetricSpec: a known type and exactly its source.
void validate_metric(Causes& causes, const json& metric, const std::string& path) {
  const auto& type = at(metric, {"type"});
  const std::string type_text = str(type);
  const bool known = type_text == "ContainerResource" || type_text == "External" || type_text == "Object" ||
                     type_text == "Pods" || type_text == "Resource";
  if (type_text.empty()) required(causes, path + ".type", "must specify a metric source type");
  auto not_supported = [&] {
    unsupported(causes, path + ".type", type_text, {"ContainerResource", "External", "Object", "Pods", "Resource"});
  };
  if (!known) not_supported();
  // The sources given, in the order Kubernetes checks them; only the first is validated.
  std::vector<std::string> present;
  for (const char* key : {"object", "external", "pods", "resource", "containerResource"})
    if (!at(metric, {key}).is_null()) {
      if (present.empty()) validate_source(causes, key, metric[key], path + "." + key);
      present.emplace_back(key);
    }
  std::string expected;
  if (known) {
    expected = type_text == "ContainerResource" ? "containerResource" : type_text;
    expected[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(expected[0])));
    if (at(metric, {expected}).is_null())
      required(causes, path + "." + expected, "must populate information for the given metric source");
  } else {
    not_supported();  // reported twice, as Kubernetes does
  }
  if (present.size() != 1) {
    std::sort(present.begin(), present.end());
    for (const auto& key : present)
      if (key != expected) forbidden(causes, path + "." + key, "must populate the given metric source only");
  }
}

void validate_scaling_rules(Causes& causes, const json& rules, const std::string& path) {
  if (!rules.is_object()) return;
  if (const auto& window = at(rules, {"stabilizationWindowSeconds"}); window.is_number()) {
    if (num(window) < 0) invalid_value(causes, path + ".stabilizationWindowSeconds", window, "must be greater than or equal to zero");
    if (num(window) > 3600) invalid_value(causes, path + ".stabilizationWindowSeconds", window, "must be less than or equal to 3600");
  }
  if (const auto& select = at(rules, {"selectPolicy"}); !select.is_null() && select != "Max" && select != "Min" && select != "Disabled")
    unsupported(causes, path + ".selectPolicy", select, {"Disabled", "Max", "Min"});
  const auto& policies = arr(at(rules, {"policies"}));
  if (policies.empty()) required(causes, path + ".policies", "must specify at least one Policy");
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto& policy = policies[i];
    const std::string at_path = path + ".policies[" + std::to_string(i) + "]";
    const auto& type = at(policy, {"type"});
    if (type != "Pods" && type != "Percent") unsupported(causes, at_path + ".type", str(type), {"Percent", "Pods"});
    const auto& value = at(policy, {"value"});
    if (num(value) <= 0) invalid_value(causes, at_path + ".value", num(value), "must be greater than zero");
    const auto& period = at(policy, {"periodSeconds"});
    if (num(period) <= 0) invalid_value(causes, at_path + ".periodSeconds", num(period), "must be greater than zero");
    if (num(period) > 1800) invalid_value(causes, at_path + ".periodSeconds", num(period), "must be less than or equal to 1800");
  }
  if (const auto& tolerance = at(rules, {"tolerance"}); !tolerance.is_null() && api::quantity_sign(tolerance) < 0)
    invalid_value(causes, path + ".tolerance", quantity_text(tolerance), "must be greater than or equal to 0");
}

// ValidateHorizontalPodAutoscaler with the options of a create: minReplicas at least 1 (the
// HPAScaleToZero gate is off), a scale target with an API group unless it is a
// ReplicationController. The status checks are those of a status update (they hold trivially
// on other writes, whose status is the stored one).
void validate_hpa(const json& hpa, Causes& causes) {
  const auto& spec = at(hpa, {"spec"});
  const auto& min = at(spec, {"minReplicas"});
  if (min.is_number() && num(min) < 1) invalid_value(causes, "spec.minReplicas", min, "must be greater than or equal to 1");
  const auto& max = at(spec, {"maxReplicas"});
  if (num(max) == 0) required(causes, "spec.maxReplicas", "must be set and greater than 0");
  else if (num(max) < 0) invalid_value(causes, "spec.maxReplicas", max, "must be greater than or equal to 1");
  if (min.is_number() && num(max) < num(min))
    invalid_value(causes, "spec.maxReplicas", num(max), "must be greater than or equal to `minReplicas`");
  const auto& target = at(spec, {"scaleTargetRef"});
  validate_reference(causes, target, "spec.scaleTargetRef", str(at(target, {"kind"})) == "ReplicationController");
  const auto& metrics = arr(at(spec, {"metrics"}));
  bool object_or_external = false;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    validate_metric(causes, metrics[i], "spec.metrics[" + std::to_string(i) + "]");
    const auto& type = at(metrics[i], {"type"});
    object_or_external = object_or_external || type == "Object" || type == "External";
  }
  if (min.is_number() && num(min) == 0 && !object_or_external)
    forbidden(causes, "spec.metrics", "must specify at least one Object or External metric to support scaling to zero replicas");
  if (const auto& behavior = at(spec, {"behavior"}); behavior.is_object()) {
    validate_scaling_rules(causes, at(behavior, {"scaleUp"}), "spec.behavior.scaleUp");
    validate_scaling_rules(causes, at(behavior, {"scaleDown"}), "spec.behavior.scaleDown");
  }
  const auto& status = at(hpa, {"status"});
  const auto& conditions = arr(at(status, {"conditions"}));
  for (std::size_t i = 0; i < conditions.size(); ++i)
    non_negative(causes, "status.conditions[" + std::to_string(i) + "].observedGeneration",
                 at(conditions[i], {"observedGeneration"}));
  non_negative(causes, "status.currentReplicas", at(status, {"currentReplicas"}));
  non_negative(causes, "status.desiredReplicas", at(status, {"desiredReplicas"}));
}

}  // namespace

// Shared with autoscaling_v1.cpp, which serves the same objects: kube-apiserver defaults,
// validates and prints the one internal object whatever version a client uses.
void hpa_v2_defaults(nlohmann::json& hpa) { default_hpa(hpa); }
void hpa_v2_validate(const nlohmann::json& hpa, Causes& causes) { validate_hpa(hpa, causes); }
api::print::Cells hpa_v2_print(const nlohmann::json& hpa, api::print::TimePoint now) { return print_hpa(hpa, now); }

std::vector<api::ColumnDefinition> hpa_columns() {
  using namespace api::print;
  return {name_col(),
          col("Reference", "string",
              "scaleTargetRef points to the target resource to scale, and is used to the pods for "
              "which metrics should be collected, as well as to actually change the replica count."),
          col("Targets", "string",
              "metrics contains the specifications for which to use to calculate the desired "
              "replica count (the maximum replica count across all metrics will be used).  The "
              "desired replica count is calculated multiplying the ratio between the target value "
              "and the current value by the current number of pods.  Ergo, metrics used must "
              "decrease as the pod count is increased, and vice-versa.  See the individual metric "
              "source types for more information about how each type of metric must respond."),
          col("MinPods", "string",
              "minReplicas is the lower limit for the number of replicas to which the autoscaler "
              "can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
              "feature gate HPAScaleToZero is enabled and at least one Object or External metric is "
              "configured.  Scaling is active as long as at least one metric value is available."),
          col("MaxPods", "string",
              "maxReplicas is the upper limit for the number of replicas to which the autoscaler "
              "can scale up. It cannot be less that minReplicas."),
          col("Replicas", "string",
              "currentReplicas is current number of replicas of pods managed by this autoscaler, "
              "as last seen by the autoscaler."),
          age_col()};
}

std::vector<KindSpec> autoscaling_v2_kinds() {
  return {{.info = {.group = "autoscaling", .version = "v2", .kind = "HorizontalPodAutoscaler",
                    .plural = "horizontalpodautoscalers", .short_names = {"hpa"}, .categories = {"all"},
                    .subresources = {"status"}, .columns = hpa_columns(), .printer = print_hpa},
           // The status strategy resets only spec: metadata stays writable through /status.
           .status_keeps_meta = {},
           .strategy = {.canonicalize = canonicalize_hpa,
                        .defaults = default_hpa,
                        .prepare_create = prepare_hpa,
                        .validate = validate_hpa}}};
}

}  // namespace kw::kinds
