#pragma once
// The building blocks of the rows' strategies: validation worded as Kubernetes' field errors
// are (each failure is a StatusCause {reason, message, field} appended to a Causes array),
// and small helpers for defaulting.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::kinds {

extern const char* const k_subdomain_help;
extern const char* const k_label_help;

void add_cause(Causes& causes, const std::string& field, const std::string& reason, const std::string& message);
// "Invalid value: <value as JSON>: <why>"
void invalid_value(Causes& causes, const std::string& field, const nlohmann::json& value, const std::string& why);
void required(Causes& causes, const std::string& field, const std::string& detail = "");
// "Unsupported value: "x": supported values: "a", "b""
void unsupported(Causes& causes, const std::string& field, const nlohmann::json& value,
                 std::initializer_list<std::string_view> supported);
// "Invalid value: <value>: field is immutable" when `field` differs between the objects.
void immutable(Causes& causes, const std::string& field, const nlohmann::json& now, const nlohmann::json& before);
// An integer field that, when set, must be >= 0 (or > 0 with `positive`).
void non_negative(Causes& causes, const std::string& field, const nlohmann::json& value, bool positive = false);

bool is_dns1123_label(std::string_view value);
bool is_dns1123_subdomain(std::string_view value);
bool is_qualified_name(std::string_view value);  // label/annotation key
bool is_label_value(std::string_view value);

// The member `key` of `parent`, made an empty object when it is missing or not an object.
nlohmann::json& object_member(nlohmann::json& parent, const char* key);

// A pod spec's containers: at least one, each named (a DNS label) with an image.
void validate_containers(Causes& causes, const nlohmann::json& pod_spec, const std::string& path);
// A workload's selector (required) and pod template: the selector must match the
// template's labels and the template must have containers.
void validate_selector_and_template(Causes& causes, const nlohmann::json& spec, const std::string& path);

}  // namespace kw::kinds
