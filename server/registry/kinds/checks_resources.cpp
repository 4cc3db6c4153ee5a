// core/v1 resource names (pkg/apis/core/helper) and the checks of their quantities (core
// validation), shared by the rows that carry resource lists (checks.hpp).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/api/json_access.hpp"
#include "core/api/quantity.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {

using nlohmann::json;

bool is_native_resource(std::string_view name) {
  return name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
}

bool is_hugepages(std::string_view name) { return name.starts_with("hugepages-"); }

bool is_extended_resource(std::string_view name) {
  return !is_native_resource(name) && !name.starts_with("requests.") &&
         qualified_name_errors("requests." + std::string(name)).empty();
}

bool is_standard_resource(std::string_view name) {
  return one_of(name, {"cpu",
                       "memory",
                       "ephemeral-storage",
                       "requests.cpu",
                       "requests.memory",
                       "requests.ephemeral-storage",
                       "limits.cpu",
                       "limits.memory",
                       "limits.ephemeral-storage",
                       "pods",
                       "resourcequotas",
                       "services",
                       "replicationcontrollers",
                       "secrets",
                       "configmaps",
                       "persistentvolumeclaims",
                       "storage",
                       "requests.storage",
                       "services.nodeports",
                       "services.loadbalancers"}) ||
         name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
}

bool is_integer_resource(std::string_view name) {
  return one_of(name, {"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                       "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}) ||
         is_extended_resource(name);
}

void resource_name(Causes& causes, const std::string& field, const std::string& name) {
  const auto errors = qualified_name_errors(name);
  invalid_each(causes, field, name, errors);
  if (errors.empty() && name.find('/') == std::string::npos && !is_standard_resource(name))
    invalid_value(causes, field, name, "must be a standard resource type or fully qualified");
}

void container_resource_name(Causes& causes, const std::string& field, const std::string& name) {
  resource_name(causes, field, name);
  if (name.find('/') == std::string::npos) {
    if (!one_of(name, {"cpu", "memory", "ephemeral-storage"}) && !is_hugepages(name))
      invalid_value(causes, field, name, "must be a standard resource for containers");
  } else if (!is_native_resource(name) && !is_extended_resource(name)) {
    invalid_value(causes, field, name, "doesn't follow extended resource name standard");
  }
}

std::string quantity_text(const json& value) { return api::quantity_string(value, "null"); }

void nonnegative_quantity(Causes& causes, const std::string& field, const json& value) {
  if (auto q = api::quantity_value(value); q && *q < 0)
    invalid_value(causes, field, quantity_text(value), "must be greater than or equal to 0");
}

void positive_quantity(Causes& causes, const std::string& field, const json& value) {
  if (auto q = api::quantity_value(value); q && *q <= 0)
    invalid_value(causes, field, quantity_text(value), "must be greater than zero");
}

void basic_resource(Causes& causes, const std::string& field, const json& value) {
  if (auto q = api::quantity_value(value); q && std::ceil(*q) < 0)
    invalid_value(causes, field, static_cast<std::int64_t>(std::ceil(*q)), "must be a valid resource quantity");
}

void resource_quantity(Causes& causes, const std::string& field, const std::string& name, const json& value) {
  nonnegative_quantity(causes, field, value);
  if (auto q = api::parse_quantity(value);
      q && is_integer_resource(name) && std::fmod(std::ceil(q->scaled(3)), 1000.0L) != 0)
    invalid_value(causes, field, quantity_text(value), "must be an integer");
}

std::string go_int_or_string(const json& value) {
  if (value.is_string()) return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + value.dump() + "}";
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(api::num(value)) + ", StrVal:\"\"}";
}

void validate_int_or_percent(Causes& causes, const json& value, const std::string& path, bool at_most_100) {
  if (value.is_number()) {
    non_negative(causes, path, value);
    return;
  }
  if (!value.is_string()) return;
  const std::string text = value.get<std::string>();
  const auto invalid = [&](const std::string& why) { invalid_rendered(causes, path, go_int_or_string(value), why); };
  const bool digits = text.size() > 1 && text.back() == '%' && text.find_first_not_of("0123456789") == text.size() - 1;
  if (!digits) {
    invalid(
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
        "regex used for validation is '[0-9]+%')");
    return;
  }
  if (at_most_100) not_over_100_percent(causes, value, path);
}

namespace {

// getPercentValue: N of a valid "N%".
std::optional<std::int64_t> percent_value(const json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (text.size() < 2 || text.back() != '%') return std::nullopt;
  std::int64_t percent = 0;
  const char* last = text.data() + text.size() - 1;
  const auto [end, error] = std::from_chars(text.data(), last, percent);
  if (error != std::errc() || end != last || text[0] == '-' || text[0] == '+') return std::nullopt;
  return percent;
}

}  // namespace

void not_over_100_percent(Causes& causes, const json& value, const std::string& path) {
  if (const auto percent = percent_value(value); percent && *percent > 100)
    invalid_rendered(causes, path, go_int_or_string(value), "must not be greater than 100%");
}

std::int64_t int_or_percent_value(const json& value) {
  if (const auto percent = percent_value(value)) return *percent;
  if (!value.is_string()) return api::num(value);
  // IntValue of a string: strconv.Atoi, 0 when it fails.
  const std::string text = value.get<std::string>();
  std::int64_t out = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() ? out : 0;
}

}  // namespace kw::kinds
