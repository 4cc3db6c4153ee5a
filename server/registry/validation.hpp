#pragma once
// Object validation as kube-apiserver does it: names, labels and annotations here, then
// the kind's own checks from its row. Each failure is a cause {reason, message, field}.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::registry {

// Before anything reads them: the type-meta and object-meta fields the registry uses must
// have their JSON types (string, map of strings, list of strings). null means absent and is
// removed, as Go's decoding treats it; any other wrong type is the returned message
// ("metadata.name: expected a string"), for a 400.
std::optional<std::string> normalize_meta_types(nlohmann::json& object);

// The causes (an array, empty when valid) for `object`: its metadata, then its row's
// checks (`spec` is null for custom resources, whose CRD schema checks them).
nlohmann::json validate_object(const kinds::KindSpec* spec, const nlohmann::json& object);

}  // namespace kw::registry
