#pragma once
// Client-side apply's patch arithmetic, as kubectl computes it: the last-applied-configuration
// annotation, and the three-way patch between the last applied manifest (original), the new
// manifest (modified) and the live object (current). Fields dropped from the manifest since
// the last apply are deleted; fields the server or other writers added are kept; lists of the
// built-in kinds with a merge key (containers by name, ports by containerPort...) are merged
// item by item, as core/codec/patch_schema.hpp says for each field, with kubectl's
// $setElementOrder directive; sets of scalars (finalizers) by additions and
// $deleteFromPrimitiveList. Kinds without patch metadata (CRDs) get a JSON merge patch
// instead: lists are replaced whole.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/codec/strategic_merge.hpp"
#include "core/util/error.hpp"

namespace kw::cli {

inline constexpr std::string_view k_last_applied_annotation = "kubectl.kubernetes.io/last-applied-configuration";

enum class PatchStrategy { strategic, merge };

// Go encoding/json text of a value: compact, keys sorted, <>& escaped, newline-terminated
// (what kubectl stores in the annotation).
std::string go_json(const nlohmann::json& value);

// The manifest as apply sends it: the annotation set to the manifest's own serialization
// (without the annotation).
nlohmann::json with_last_applied(const nlohmann::json& manifest);
// The annotation of a live object, parsed; null when absent or unreadable.
nlohmann::json last_applied_of(const nlohmann::json& live);

// kubectl's CreateThreeWayMergePatch (strategy strategic) / CreateThreeWayJSONMergePatch
// (strategy merge). `original` may be null (no last-applied annotation). An empty object
// means there is nothing to change.
nlohmann::json three_way_patch(const nlohmann::json& original, const nlohmann::json& modified,
                               const nlohmann::json& current, PatchStrategy strategy);

// kubectl edit's CreateTwoWayMergePatch (strategy strategic) / CreateMergePatch (strategy
// merge): every difference from `original` to `modified`, removed fields as null. An empty
// object means nothing changed.
nlohmann::json two_way_patch(const nlohmann::json& original, const nlohmann::json& modified, PatchStrategy strategy);

// Applies a strategic merge patch to an object as kube-apiserver would (core/codec/
// strategic_merge.hpp); used to preview the result of a patch.
codec::PatchResult<nlohmann::json> apply_strategic_patch(nlohmann::json target, const nlohmann::json& patch);

}  // namespace kw::cli
