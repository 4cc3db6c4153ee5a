#pragma once
// Object validation as kube-apiserver does it: names, labels and annotations here, then
// the kind's own checks from its row. Each failure is a cause {reason, message, field}.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/registry/api_error.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::registry {

// Before anything reads them: the type-meta and object-meta fields the registry uses must
// have their JSON types (string, map of strings, list of strings). null means absent and is
// removed, as Go's decoding treats it; any other wrong type is the returned message
// ("metadata.name: expected a string"), for a 400.
std::optional<std::string> normalize_meta_types(nlohmann::json& object);

// The causes (an array, empty when valid) for `object`: its metadata, then its row's
// checks (`spec` is null for custom resources, whose CRD schema checks them); for a new
// object (`create`), the row's create checks where it has them.
nlohmann::json validate_object(const kinds::KindSpec* spec, const nlohmann::json& object, bool create);

// What field validation reports about a body: its repeated members (`duplicate field "P"`,
// from WriteOptions::duplicate_fields) and its unknown fields (`unknown_warnings`, each
// `unknown field "P"`). With `typed`, they come as kube's typed decoder reports them: a
// repeated member inside an unknown field is left to the unknown one, at most 100, and, given
// the JSON body they came from, in the order the decoder meets them (a repeat where it
// repeats). Otherwise the repeats come first, as a custom resource's decoding and pruning
// report them.
std::vector<std::string> field_problems(const std::vector<std::string>& duplicates,
                                        const std::vector<std::string>& unknown_warnings, bool typed,
                                        std::string_view json_body = {});
// fieldValidation=Strict's refusal: 400 "strict decoding error: " and the problems.
ApiError strict_decoding_error(const std::vector<std::string>& problems);

}  // namespace kw::registry
