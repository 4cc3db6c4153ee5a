#pragma once
// A CustomResourceDefinition version's structural schema (openAPIV3Schema) applied to a
// custom object: validation as kube-apiserver reports it (causes with field paths) and
// pruning of fields the schema does not declare.
//
// Supported keywords: type, properties, additionalProperties (schema or bool), items,
// required, enum, minimum/maximum (+exclusive), minLength/maxLength, minItems/maxItems,
// pattern, nullable, x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string,
// x-kubernetes-embedded-resource, default. Unknown keywords are ignored.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::crd {

// The causes ({reason, message, field}) of `object` against `schema`; empty when valid.
// apiVersion, kind and metadata at the root are the server's business and are skipped.
// On an update, `old` is the stored object and errors ratchet as kube-apiserver's do (1.33):
// a value equal to the old value it correlates with is not checked, so an object that a newer
// schema would refuse can still be updated elsewhere. Values correlate from the root down:
// object properties and map entries by name, list-type=map items by their keys, set items by
// value; items of other lists do not correlate.
nlohmann::json validate_custom_object(const nlohmann::json& schema, const nlohmann::json& object,
                                      const nlohmann::json* old = nullptr);

// The item of `old_list` that correlates with `item` in a list of `list_type` ("map" keyed by
// `map_keys`, or "set"): the one with the same keys, or an equal one; null for any other list.
const nlohmann::json* correlated_item(std::string_view list_type, const std::vector<std::string>& map_keys,
                                      const nlohmann::json& item, const nlohmann::json* old_list);

// Removes from `object` every field `schema` does not declare (outside
// x-kubernetes-preserve-unknown-fields subtrees) and returns their paths ("spec.foo"), in
// document order. apiVersion, kind and metadata at the root are kept.
std::vector<std::string> prune_custom_object(const nlohmann::json& schema, nlohmann::json& object);

// Sets the `default` of every declared property missing from an object present in `object`
// (recursively, defaults included), as kube-apiserver's structural defaulting does.
void default_custom_object(const nlohmann::json& schema, nlohmann::json& object);

// Problems of a schema itself (a bad pattern, an unknown type) as "path: message"; empty
// when the schema can be used.
std::vector<std::string> check_schema(const nlohmann::json& schema, const std::string& path);

}  // namespace kw::crd
