// autoscaling/v1: HorizontalPodAutoscaler, served from the autoscaling/v2 objects as
// kube-apiserver serves it. targetCPUUtilizationPercentage stands for a CPU utilization Resource
// metric; every other v2 field travels in autoscaling.alpha.kubernetes.io annotations, written
// as Kubernetes' Go JSON encoder writes them (pkg/apis/autoscaling/v1/conversion.go).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {

// autoscaling_v2.cpp: what the one internal object gets whatever version serves it.
void hpa_v2_defaults(nlohmann::json& hpa);
void hpa_v2_validate(const nlohmann::json& hpa, Causes& causes);
api::print::Cells hpa_v2_print(const nlohmann::json& hpa, api::print::TimePoint now);
std::vector<api::ColumnDefinition> hpa_columns();

namespace {

using namespace api::print;
using ordered = nlohmann::ordered_json;

constexpr const char* k_metrics = "autoscaling.alpha.kubernetes.io/metrics";
constexpr const char* k_current_metrics = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr const char* k_conditions = "autoscaling.alpha.kubernetes.io/conditions";
constexpr const char* k_behavior = "autoscaling.alpha.kubernetes.io/behavior";

bool is_cpu_resource(const json& metric) {
  return at(metric, {"type"}) == "Resource" && at(metric, {"resource", "name"}) == "cpu";
}

// ---- annotations as Go's encoding/json reads them --------------------------------------------

// Reads a v1 annotation as encoding/json decodes it into the Go types: keys match
// case-insensitively (an exact match first), null is the zero value, and a value of the wrong
// type fails the whole annotation, which Kubernetes then ignores.
struct GoReader {
  bool ok = true;

  const json& member(const json& o, std::string_view key) {
    static const json k_null;
    if (!o.is_object()) return k_null;
    if (auto it = o.find(key); it != o.end()) return *it;
    for (auto it = o.begin(); it != o.end(); ++it)
      if (util::iequals(it.key(), key)) return *it;
    return k_null;
  }
  std::optional<std::string> text(const json& o, std::string_view key) {
    const auto& v = member(o, key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_string()) return fail();
    return v.get<std::string>();
  }
  std::optional<std::int64_t> integer(const json& o, std::string_view key) {
    const auto& v = member(o, key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number_integer()) return fail();
    return v.get<std::int64_t>();
  }
  // A Quantity takes a string or a bare number.
  std::optional<json> quantity(const json& o, std::string_view key) {
    const auto& v = member(o, key);
    if (v.is_null()) return std::nullopt;
    if (v.is_string()) return v;
    if (v.is_number()) return json(v.dump());
    return fail();
  }
  const json* object(const json& o, std::string_view key) {
    const auto& v = member(o, key);
    if (v.is_null()) return nullptr;
    if (!v.is_object()) return fail(), nullptr;
    return &v;
  }
  const json* array(const json& v) {
    if (v.is_null()) return nullptr;
    if (!v.is_array()) return fail(), nullptr;
    return &v;
  }
  std::nullopt_t fail() {
    ok = false;
    return std::nullopt;
  }
};

// The annotation parsed as JSON; "discarded" when it is absent or is not JSON.
json annotation(const json& hpa, const char* key) {
  const auto& value = at(hpa, {"metadata", "annotations", key});
  if (!value.is_string()) return json(json::value_t::discarded);
  return json::parse(value.get<std::string>(), nullptr, false);
}

json reference_v2(GoReader& r, const json* ref) {
  json out = {{"kind", ref ? r.text(*ref, "kind").value_or("") : ""},
              {"name", ref ? r.text(*ref, "name").value_or("") : ""}};
  if (ref)
    if (auto v = r.text(*ref, "apiVersion"); v && !v->empty()) out["apiVersion"] = *v;
  return out;
}

json metric_id(GoReader& r, const json& source, const char* name_key, const char* selector_key) {
  json id = {{"name", r.text(source, name_key).value_or("")}};
  if (const json* selector = r.object(source, selector_key)) id["selector"] = *selector;
  return id;
}

// A v1 MetricSpec of the metrics annotation as a v2 MetricSpec.
json metric_spec_v2(GoReader& r, const json& m) {
  json out = {{"type", r.text(m, "type").value_or("")}};
  if (const json* s = r.object(m, "object")) {
    const auto average = r.quantity(*s, "averageValue");
    json target = {{"type", average ? "AverageValue" : "Value"}, {"value", r.quantity(*s, "targetValue").value_or("0")}};
    if (average) target["averageValue"] = *average;
    out["object"] = {{"describedObject", reference_v2(r, r.object(*s, "target"))},
                     {"target", target},
                     {"metric", metric_id(r, *s, "metricName", "selector")}};
  }
  if (const json* s = r.object(m, "pods"))
    out["pods"] = {{"metric", metric_id(r, *s, "metricName", "selector")},
                   {"target", {{"type", "AverageValue"}, {"averageValue", r.quantity(*s, "targetAverageValue").value_or("0")}}}};
  for (const char* key : {"resource", "containerResource"})
    if (const json* s = r.object(m, key)) {
      const auto utilization = r.integer(*s, "targetAverageUtilization");
      const auto average = r.quantity(*s, "targetAverageValue");
      json target = {{"type", utilization ? "Utilization" : "AverageValue"}};
      if (average) target["averageValue"] = *average;
      if (utilization) target["averageUtilization"] = *utilization;
      json source = {{"name", r.text(*s, "name").value_or("")}, {"target", target}};
      if (key == std::string_view("containerResource")) source["container"] = r.text(*s, "container").value_or("");
      out[key] = source;
    }
  if (const json* s = r.object(m, "external")) {
    const auto value = r.quantity(*s, "targetValue");
    const auto average = r.quantity(*s, "targetAverageValue");
    json target = {{"type", value ? "Value" : "AverageValue"}};
    if (value) target["value"] = *value;
    if (average) target["averageValue"] = *average;
    out["external"] = {{"metric", metric_id(r, *s, "metricName", "metricSelector")}, {"target", target}};
  }
  return out;
}

// A v1 MetricStatus of the current-metrics annotation as a v2 MetricStatus.
json metric_status_v2(GoReader& r, const json& m) {
  json out = {{"type", r.text(m, "type").value_or("")}};
  if (const json* s = r.object(m, "object")) {
    json current = {{"value", r.quantity(*s, "currentValue").value_or("0")}};
    if (auto average = r.quantity(*s, "averageValue")) current["averageValue"] = *average;
    out["object"] = {{"metric", metric_id(r, *s, "metricName", "selector")},
                     {"current", current},
                     {"describedObject", reference_v2(r, r.object(*s, "target"))}};
  }
  if (const json* s = r.object(m, "pods"))
    out["pods"] = {{"metric", metric_id(r, *s, "metricName", "selector")},
                   {"current", {{"averageValue", r.quantity(*s, "currentAverageValue").value_or("0")}}}};
  for (const char* key : {"resource", "containerResource"})
    if (const json* s = r.object(m, key)) {
      json current = {{"averageValue", r.quantity(*s, "currentAverageValue").value_or("0")}};
      if (auto utilization = r.integer(*s, "currentAverageUtilization")) current["averageUtilization"] = *utilization;
      json source = {{"name", r.text(*s, "name").value_or("")}, {"current", current}};
      if (key == std::string_view("containerResource")) source["container"] = r.text(*s, "container").value_or("");
      out[key] = source;
    }
  if (const json* s = r.object(m, "external")) {
    json current = {{"value", r.quantity(*s, "currentValue").value_or("0")}};
    if (auto average = r.quantity(*s, "currentAverageValue")) current["averageValue"] = *average;
    out["external"] = {{"metric", metric_id(r, *s, "metricName", "metricSelector")}, {"current", current}};
  }
  return out;
}

json condition_v2(GoReader& r, const json& c) {
  json out = {{"type", r.text(c, "type").value_or("")}, {"status", r.text(c, "status").value_or("")}};
  if (auto t = r.text(c, "lastTransitionTime")) out["lastTransitionTime"] = *t;
  for (const char* key : {"reason", "message"})
    if (auto v = r.text(c, key); v && !v->empty()) out[key] = *v;
  if (auto g = r.integer(c, "observedGeneration")) out["observedGeneration"] = *g;
  return out;
}

// Each element of an annotation's list through `convert` (JSON null is an empty list); nothing
// when the annotation is absent or does not decode.
template <typename Convert>
std::optional<json> decode_list(const json& value, Convert convert) {
  if (value.is_discarded()) return std::nullopt;
  GoReader reader;
  json out = json::array();
  if (const json* list = reader.array(value))
    for (const auto& item : *list) {
      if (!item.is_null() && !item.is_object()) return std::nullopt;
      out.push_back(convert(reader, item));
    }
  if (!reader.ok) return std::nullopt;
  return out;
}

// The behavior annotation holds Kubernetes' internal HorizontalPodAutoscalerBehavior, whose Go
// field names ("ScaleUp", "StabilizationWindowSeconds", ...) are its JSON keys.
std::optional<json> decode_behavior(const json& value) {
  if (value.is_discarded() || !(value.is_object() || value.is_null())) return std::nullopt;
  GoReader r;
  json behavior = json::object();
  for (const auto& [go_key, key] : {std::pair{"ScaleUp", "scaleUp"}, std::pair{"ScaleDown", "scaleDown"}}) {
    const json* rules = r.object(value, go_key);
    if (rules == nullptr) continue;
    json out = json::object();
    if (auto window = r.integer(*rules, "StabilizationWindowSeconds")) out["stabilizationWindowSeconds"] = *window;
    if (auto select = r.text(*rules, "SelectPolicy")) out["selectPolicy"] = *select;
    if (const json* policies = r.array(r.member(*rules, "Policies"))) {
      json list = json::array();
      for (const auto& p : *policies) {
        if (!p.is_null() && !p.is_object()) return std::nullopt;
        list.push_back({{"type", r.text(p, "Type").value_or("")},
                        {"value", r.integer(p, "Value").value_or(0)},
                        {"periodSeconds", r.integer(p, "PeriodSeconds").value_or(0)}});
      }
      if (!list.empty()) out["policies"] = list;
    }
    if (auto tolerance = r.quantity(*rules, "Tolerance")) out["tolerance"] = *tolerance;
    behavior[key] = out;
  }
  if (!r.ok || behavior.empty()) return std::nullopt;
  return behavior;
}

void drop_annotations(json& hpa, std::initializer_list<const char*> keys) {
  auto& meta = object_member(hpa, "metadata");
  auto it = meta.find("annotations");
  if (it == meta.end() || !it->is_object()) return;
  for (const char* key : keys) it->erase(key);
  if (it->empty()) meta.erase(it);
}

// Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler, in place: the v1
// object becomes the v2 object it stands for (no v2 defaults).
void v1_to_v2(json& hpa) {
  const json spec_v1 = at(hpa, {"spec"});
  const json status_v1 = at(hpa, {"status"});
  json spec = json::object();
  for (const char* key : {"scaleTargetRef", "minReplicas", "maxReplicas"})
    if (!at(spec_v1, {key}).is_null()) spec[key] = spec_v1[key];
  json metrics = json::array();
  if (const auto& cpu = at(spec_v1, {"targetCPUUtilizationPercentage"}); cpu.is_number())
    metrics.push_back({{"type", "Resource"},
                       {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", cpu}}}}}});
  if (auto others = decode_list(annotation(hpa, k_metrics), metric_spec_v2)) {
    if (!metrics.empty()) others->push_back(metrics[0]);  // the CPU target comes after the others
    metrics = std::move(*others);
  }
  if (auto behavior = decode_behavior(annotation(hpa, k_behavior))) spec["behavior"] = *behavior;
  if (metrics.empty())  // autoscaling/v1's implicit target
    metrics.push_back({{"type", "Resource"},
                       {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}});
  spec["metrics"] = metrics;

  json status = json::object();
  for (const char* key : {"observedGeneration", "lastScaleTime"})
    if (!at(status_v1, {key}).is_null()) status[key] = status_v1[key];
  if (const auto n = num(at(status_v1, {"currentReplicas"})); n != 0) status["currentReplicas"] = n;
  status["desiredReplicas"] = num(at(status_v1, {"desiredReplicas"}));
  if (const auto& cpu = at(status_v1, {"currentCPUUtilizationPercentage"}); cpu.is_number())
    status["currentMetrics"] = json::array(
        {{{"type", "Resource"}, {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", cpu}}}}}}});
  if (auto current = decode_list(annotation(hpa, k_current_metrics), metric_status_v2)) {
    if (current->empty()) status.erase("currentMetrics");
    else status["currentMetrics"] = *current;
  }
  if (auto conditions = decode_list(annotation(hpa, k_conditions), condition_v2); conditions && !conditions->empty())
    status["conditions"] = *conditions;

  hpa["spec"] = spec;
  hpa["status"] = status;
  drop_annotations(hpa, {k_metrics, k_current_metrics, k_conditions, k_behavior});
}

// ---- the v2 object as v1 ------------------------------------------------------------------------

// Go's encoding/json output: compact, HTML characters and line separators escaped.
std::string go_json(const ordered& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool line_separator = c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
                                (text[i + 2] == '\xa8' || text[i + 2] == '\xa9');
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (line_separator) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

ordered quantity_or_zero(const json& q) { return q.is_null() ? ordered("0") : ordered(q.is_string() ? q : json(q.dump())); }

ordered selector_v1(const json& selector) {
  ordered out = ordered::object();
  if (const auto& labels = at(selector, {"matchLabels"}); labels.is_object() && !labels.empty())
    out["matchLabels"] = ordered(labels);
  if (const auto& expressions = arr(at(selector, {"matchExpressions"})); !expressions.empty()) {
    ordered list = ordered::array();
    for (const auto& e : expressions) {
      ordered item = {{"key", str(at(e, {"key"}))}, {"operator", str(at(e, {"operator"}))}};
      if (const auto& values = arr(at(e, {"values"})); !values.empty()) item["values"] = ordered(values);
      list.push_back(item);
    }
    out["matchExpressions"] = list;
  }
  return out;
}

ordered reference_v1(const json& ref) {
  ordered out = {{"kind", str(at(ref, {"kind"}))}, {"name", str(at(ref, {"name"}))}};
  if (const auto v = str(at(ref, {"apiVersion"})); !v.empty()) out["apiVersion"] = v;
  return out;
}

// v1 ObjectMetricSource, PodsMetricSource, ... fields in Go declaration order.
ordered metric_spec_v1(const json& m) {
  ordered out = {{"type", str(at(m, {"type"}))}};
  if (const auto& s = at(m, {"object"}); s.is_object()) {
    ordered o = {{"target", reference_v1(at(s, {"describedObject"}))},
                 {"metricName", str(at(s, {"metric", "name"}))},
                 {"targetValue", quantity_or_zero(at(s, {"target", "value"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["selector"] = selector_v1(sel);
    if (const auto& avg = at(s, {"target", "averageValue"}); !avg.is_null()) o["averageValue"] = quantity_or_zero(avg);
    out["object"] = o;
  }
  if (const auto& s = at(m, {"pods"}); s.is_object()) {
    ordered o = {{"metricName", str(at(s, {"metric", "name"}))},
                 {"targetAverageValue", quantity_or_zero(at(s, {"target", "averageValue"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["selector"] = selector_v1(sel);
    out["pods"] = o;
  }
  for (const char* key : {"resource", "containerResource"})
    if (const auto& s = at(m, {key}); s.is_object()) {
      ordered o = {{"name", str(at(s, {"name"}))}};
      if (const auto& u = at(s, {"target", "averageUtilization"}); u.is_number()) o["targetAverageUtilization"] = u;
      if (const auto& avg = at(s, {"target", "averageValue"}); !avg.is_null()) o["targetAverageValue"] = quantity_or_zero(avg);
      if (key == std::string_view("containerResource")) o["container"] = str(at(s, {"container"}));
      out[key] = o;
    }
  if (const auto& s = at(m, {"external"}); s.is_object()) {
    ordered o = {{"metricName", str(at(s, {"metric", "name"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["metricSelector"] = selector_v1(sel);
    if (const auto& v = at(s, {"target", "value"}); !v.is_null()) o["targetValue"] = quantity_or_zero(v);
    if (const auto& avg = at(s, {"target", "averageValue"}); !avg.is_null()) o["targetAverageValue"] = quantity_or_zero(avg);
    out["external"] = o;
  }
  return out;
}

ordered metric_status_v1(const json& m) {
  ordered out = {{"type", str(at(m, {"type"}))}};
  if (const auto& s = at(m, {"object"}); s.is_object()) {
    ordered o = {{"target", reference_v1(at(s, {"describedObject"}))},
                 {"metricName", str(at(s, {"metric", "name"}))},
                 {"currentValue", quantity_or_zero(at(s, {"current", "value"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["selector"] = selector_v1(sel);
    if (const auto& avg = at(s, {"current", "averageValue"}); !avg.is_null()) o["averageValue"] = quantity_or_zero(avg);
    out["object"] = o;
  }
  if (const auto& s = at(m, {"pods"}); s.is_object()) {
    ordered o = {{"metricName", str(at(s, {"metric", "name"}))},
                 {"currentAverageValue", quantity_or_zero(at(s, {"current", "averageValue"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["selector"] = selector_v1(sel);
    out["pods"] = o;
  }
  for (const char* key : {"resource", "containerResource"})
    if (const auto& s = at(m, {key}); s.is_object()) {
      ordered o = {{"name", str(at(s, {"name"}))}};
      if (const auto& u = at(s, {"current", "averageUtilization"}); u.is_number()) o["currentAverageUtilization"] = u;
      o["currentAverageValue"] = quantity_or_zero(at(s, {"current", "averageValue"}));
      if (key == std::string_view("containerResource")) o["container"] = str(at(s, {"container"}));
      out[key] = o;
    }
  if (const auto& s = at(m, {"external"}); s.is_object()) {
    ordered o = {{"metricName", str(at(s, {"metric", "name"}))}};
    if (const auto& sel = at(s, {"metric", "selector"}); sel.is_object()) o["metricSelector"] = selector_v1(sel);
    o["currentValue"] = quantity_or_zero(at(s, {"current", "value"}));
    if (const auto& avg = at(s, {"current", "averageValue"}); !avg.is_null()) o["currentAverageValue"] = quantity_or_zero(avg);
    out["external"] = o;
  }
  return out;
}

ordered condition_v1(const json& c) {
  ordered out = {{"type", str(at(c, {"type"}))},
                 {"status", str(at(c, {"status"}))},
                 {"lastTransitionTime", ordered(at(c, {"lastTransitionTime"}))}};
  for (const char* key : {"reason", "message"})
    if (const auto v = str(at(c, {key})); !v.empty()) out[key] = v;
  if (const auto& g = at(c, {"observedGeneration"}); g.is_number()) out["observedGeneration"] = g;
  return out;
}

// The internal HorizontalPodAutoscalerBehavior, every field written (unset ones as null).
ordered behavior_internal(const json& behavior) {
  auto rules = [](const json& r) -> ordered {
    if (!r.is_object()) return nullptr;
    ordered policies = nullptr;
    if (const auto& list = at(r, {"policies"}); list.is_array()) {
      policies = ordered::array();
      for (const auto& p : list)
        policies.push_back({{"Type", str(at(p, {"type"}))},
                            {"Value", num(at(p, {"value"}))},
                            {"PeriodSeconds", num(at(p, {"periodSeconds"}))}});
    }
    const auto& tolerance = at(r, {"tolerance"});
    return {{"StabilizationWindowSeconds", ordered(at(r, {"stabilizationWindowSeconds"}))},
            {"SelectPolicy", ordered(at(r, {"selectPolicy"}))},
            {"Policies", policies},
            {"Tolerance", tolerance.is_null() ? ordered(nullptr) : quantity_or_zero(tolerance)}};
  };
  return {{"ScaleUp", rules(at(behavior, {"scaleUp"}))}, {"ScaleDown", rules(at(behavior, {"scaleDown"}))}};
}

// Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, in place.
void v2_to_v1(json& hpa) {
  const json spec_v2 = at(hpa, {"spec"});
  const json status_v2 = at(hpa, {"status"});
  const auto& metrics = arr(at(spec_v2, {"metrics"}));
  const auto& current = arr(at(status_v2, {"currentMetrics"}));
  const auto& conditions = arr(at(status_v2, {"conditions"}));

  json spec = json::object();
  for (const char* key : {"scaleTargetRef", "minReplicas"})
    if (!at(spec_v2, {key}).is_null()) spec[key] = spec_v2[key];
  spec["maxReplicas"] = num(at(spec_v2, {"maxReplicas"}));
  ordered others = ordered::array();
  for (const auto& m : metrics) {
    const auto& utilization = at(m, {"resource", "target", "averageUtilization"});
    if (is_cpu_resource(m) && utilization.is_number()) {
      if (!spec.contains("targetCPUUtilizationPercentage")) spec["targetCPUUtilizationPercentage"] = utilization;
    } else {
      others.push_back(metric_spec_v1(m));
    }
  }

  json status = json::object();
  for (const char* key : {"observedGeneration", "lastScaleTime"})
    if (!at(status_v2, {key}).is_null()) status[key] = status_v2[key];
  status["currentReplicas"] = num(at(status_v2, {"currentReplicas"}));
  status["desiredReplicas"] = num(at(status_v2, {"desiredReplicas"}));
  for (const auto& m : current)
    if (const auto& u = at(m, {"resource", "current", "averageUtilization"}); is_cpu_resource(m) && u.is_number())
      status["currentCPUUtilizationPercentage"] = u;

  drop_annotations(hpa, {k_metrics, k_current_metrics, k_conditions, k_behavior});
  json annotations = at(hpa, {"metadata", "annotations"}).is_object() ? hpa["metadata"]["annotations"] : json::object();
  if (!others.empty()) annotations[k_metrics] = go_json(others);
  if (!current.empty()) {
    ordered list = ordered::array();
    for (const auto& m : current) list.push_back(metric_status_v1(m));
    annotations[k_current_metrics] = go_json(list);
  }
  if (const auto& behavior = at(spec_v2, {"behavior"}); behavior.is_object())
    annotations[k_behavior] = go_json(behavior_internal(behavior));
  if (!conditions.empty()) {
    ordered list = ordered::array();
    for (const auto& c : conditions) list.push_back(condition_v1(c));
    annotations[k_conditions] = go_json(list);
  }
  if (!annotations.empty()) object_member(hpa, "metadata")["annotations"] = annotations;

  hpa["spec"] = spec;
  hpa["status"] = status;
}

// ---- StoredAs converters ------------------------------------------------------------------------

// Written as the v2 object, defaulted as kube-apiserver defaults what it reads back.
void to_stored(json& hpa) {
  v1_to_v2(hpa);
  hpa_v2_defaults(hpa);
}

void from_stored(json& hpa) {
  hpa_v2_defaults(hpa);
  v2_to_v1(hpa);
}

// ---- strategy -----------------------------------------------------------------------------------

// The status always reports both replica counts (Go writes them even when zero).
void canonicalize_hpa_v1(json& hpa) {
  auto& status = object_member(hpa, "status");
  for (const char* key : {"currentReplicas", "desiredReplicas"})
    if (at(status, {key}).is_null()) status[key] = 0;
}

// SetDefaults_HorizontalPodAutoscaler (v1), then the object as the conversions to the stored
// version and back leave it: the implicit 80% CPU target spelled out, the annotations
// rewritten. The v2 defaults are not applied: Kubernetes validates a v1 write before them.
void default_hpa_v1(json& hpa) {
  auto& spec = object_member(hpa, "spec");
  if (at(spec, {"minReplicas"}).is_null()) spec["minReplicas"] = 1;
  v1_to_v2(hpa);
  v2_to_v1(hpa);
}

// PrepareForCreate: no status yet, so no status annotations either.
void prepare_hpa_v1(json& hpa) {
  hpa["status"] = {{"currentReplicas", 0}, {"desiredReplicas", 0}};
  drop_annotations(hpa, {k_current_metrics, k_conditions});
}

// PrepareForUpdate keeps the stored status, and with it the annotations that carry its v2 part.
void prepare_update_hpa_v1(json& hpa, const json& old) {
  drop_annotations(hpa, {k_current_metrics, k_conditions});
  for (const char* key : {k_current_metrics, k_conditions})
    if (const auto& value = at(old, {"metadata", "annotations", key}); !value.is_null())
      object_member(object_member(hpa, "metadata"), "annotations")[key] = value;
}

// Kubernetes validates the internal (v2-shaped) object: field paths are those of autoscaling/v2.
void validate_hpa_v1(const json& hpa, Causes& causes) {
  json v2 = hpa;
  v1_to_v2(v2);
  hpa_v2_validate(v2, causes);
}

// The Table of kube-apiserver prints the internal object, whatever version was asked for.
Cells print_hpa_v1(const json& hpa, TimePoint now) {
  json v2 = hpa;
  v1_to_v2(v2);
  return hpa_v2_print(v2, now);
}

}  // namespace

std::vector<KindSpec> autoscaling_v1_kinds() {
  // The same Table as autoscaling/v2 (kube-apiserver prints the internal object for both).
  return {{.info = {.group = "autoscaling", .version = "v1", .kind = "HorizontalPodAutoscaler",
                    .plural = "horizontalpodautoscalers", .short_names = {"hpa"}, .categories = {"all"},
                    .subresources = {"status"}, .columns = hpa_columns(), .printer = print_hpa_v1},
           .storage_resource = "horizontalpodautoscalers",
           .stored_as = StoredAs{"autoscaling/v2", to_stored, from_stored},
           // The status strategy resets only spec: metadata stays writable through /status.
           .status_keeps_meta = {},
           .strategy = {.canonicalize = canonicalize_hpa_v1,
                        .defaults = default_hpa_v1,
                        .prepare_create = prepare_hpa_v1,
                        .prepare_update = prepare_update_hpa_v1,
                        .validate = validate_hpa_v1}}};
}

}  // namespace kw::kinds
