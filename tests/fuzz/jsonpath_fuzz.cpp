// kubectl's JSONPath (core/api/jsonpath.hpp) on arbitrary templates, evaluated against a
// fixed Pod-like object or against JSON from the input. Nothing may crash; a template that
// evaluates renders, and an error says what is wrong.
//
// Input: byte 0 picks strict or relaxed parsing (bit 0) and whether missing keys are allowed
// (bit 1); then the template, and optionally a 0 byte and the JSON object to evaluate on.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/api/jsonpath.hpp"
#include "core/codec/json_limits.hpp"

namespace {

using nlohmann::json;

const json& fixed_object() {
  static const json object = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web", "a.b/c": "x"},
                 "annotations": {}, "ownerReferences": [{"kind": "StatefulSet", "name": "web"}]},
    "spec": {"containers": [{"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80}, {"containerPort": 443}]},
                            {"name": "sidecar", "image": "envoy", "resources": {"limits": {"cpu": "500m"}}}],
             "nodeName": null, "priority": 1.5e-5, "terminationGracePeriodSeconds": 30},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}, {"type": "Scheduled", "status": "False"}],
               "podIPs": [{"ip": "10.0.0.1"}], "ready": true, "restarts": [0, 1, 2, -3, 1e6]}
  })");
  return object;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto split = input.find('\0');
  const std::string_view text = input.substr(0, split);
  json own;
  if (split != std::string_view::npos) {
    // Nested no deeper than the server accepts a request body.
    auto parsed = kw::codec::parse_json(input.substr(split + 1));
    if (!parsed) return 0;
    own = std::move(*parsed);
  }
  const json& root = split == std::string_view::npos ? fixed_object() : own;

  auto path = (data[0] & 1) ? kw::api::JsonPath::parse_relaxed(text) : kw::api::JsonPath::parse(text);
  if (!path) {
    check(!path.error().message.empty());
    return 0;
  }
  const bool allow_missing = (data[0] & 2) != 0;
  auto found = path->find(root, allow_missing);
  auto rendered = path->render(root, allow_missing);
  check(found.has_value() == rendered.has_value());
  if (!found) {
    check(!found.error().message.empty());
    return 0;
  }
  for (const auto& group : *found)
    for (const auto& value : group) (void)kw::api::go_value_text(value);
  return 0;
}
