// How objects sit in storage, as kube-apiserver keeps them: built-in kinds as "k8s\0" +
// runtime.Unknown holding the protobuf message, so an etcd written by one can be read by
// the other; custom resources, and rows marked stored_as_json (CustomResourceDefinitions), as
// JSON, as kube-apiserver stores them. Reading
// accepts both forms, so data written as JSON stays readable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/util/error.hpp"

namespace kw::registry {

// The bytes to store for `object` (kind and apiVersion already set to the resource's).
kw::Result<std::string> encode_stored(const api::ResourceInfo& info, const nlohmann::json& object);

// The object stored as `value`: enveloped protobuf or JSON, always a JSON object.
kw::Result<nlohmann::json> decode_stored(const api::ResourceInfo& info, std::string_view value);

// The message of a stored built-in object as served at `revision` (metadata.resourceVersion
// set), taken from the stored bytes without decoding them; empty when the stored form is not
// the served one (JSON, another version of the kind) or cannot be read.
std::string served_protobuf(const api::ResourceInfo& info, std::string_view value, std::int64_t revision);

// A built-in object of `from` as the other row `to` stored under the same key: reshaped into
// the version both are stored as, then out of it (the rows' StoredAs converters), with `to`'s
// apiVersion and kind.
void convert_builtin(const api::ResourceInfo& from, const api::ResourceInfo& to, nlohmann::json& object);

// A built-in object as Kubernetes' Go types write it: no null fields (Go leaves out unset
// pointers, lists and maps), and the struct-valued fields it lacks filled in ({}, or null for a
// time: codec::fill_go_values). Custom objects are left as they are.
void fill_go_shape(const api::ResourceInfo& info, nlohmann::json& object);

}  // namespace kw::registry
