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
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::crd {

// The causes ({reason, message, field}) of `object` against `schema`; empty when valid.
// apiVersion, kind and metadata at the root are the server's business and are skipped.
nlohmann::json validate_custom_object(const nlohmann::json& schema, const nlohmann::json& object);

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
