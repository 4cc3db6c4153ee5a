#pragma once
// YAML <-> JSON the way Kubernetes tools convert them (sigs.k8s.io/yaml over go-yaml v2):
// plain scalars are typed (YAML 1.1 booleans, integers incl. 0x/0o/leading-0 octal,
// floats, null/~), quoted and block scalars stay strings, map keys become strings.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::codec {

// All documents of a YAML stream; empty documents are skipped.
Result<std::vector<nlohmann::json>> yaml_to_json(std::string_view yaml);

// Block-style YAML like kubectl's -o yaml: keys in the object's order, sequences under a key
// not indented, strings quoted when they would read back as another type or contain
// special characters, multi-line strings as literal blocks when that is lossless.
// The result ends in '\n'.
std::string json_to_yaml(const nlohmann::json& value);

}  // namespace kw::codec
