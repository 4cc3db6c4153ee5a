#pragma once
// Strategic merge patch as kube-apiserver applies it (apimachinery's strategicpatch.mergeMap):
// maps merge key by key and null deletes a key; lists whose field has the merge strategy merge
// item by item (by merge key for objects, as an ordered set for scalars), other lists and
// scalars are replaced. The directives:
//   {"$patch": "replace"} replaces a map with the rest of the patch map, {"$patch": "delete"}
//     empties it; in a merged list {key: v, "$patch": "delete"} removes every item keyed v and
//     {"$patch": "replace"} replaces the list with the patch's other items;
//   "$deleteFromPrimitiveList/<field>": [values] removes those values from a list of scalars;
//   "$setElementOrder/<field>": [items or keys] orders the merged list;
//   "$retainKeys": [names] clears the keys of the map the patch does not name.
// Merged lists are ordered as kube orders them: patch items in patch order, interleaved with the
// items only the object had, in their own order, so that new items come before the old ones
// they were not placed after.
#include <expected>
#include <string>

#include <nlohmann/json.hpp>

#include "core/codec/patch_schema.hpp"

namespace kw::codec {

// How kube-apiserver answers a patch it cannot apply (its interpretStrategicMergePatchError).
enum class PatchErrorKind {
  bad_request,    // 400 BadRequest with the message: a malformed directive
  unprocessable,  // 422 Invalid, generic message: a list of lists
  internal,       // 500 with the message and no reason: everything else kube does not classify
};

struct PatchError {
  PatchErrorKind kind = PatchErrorKind::internal;
  std::string message = {};  // kube's words
};

template <class T>
using PatchResult = std::expected<T, PatchError>;

// `target` with `patch` merged into it under `schema`; a patch that is not an object replaces
// the target.
PatchResult<nlohmann::json> strategic_merge(nlohmann::json target, const nlohmann::json& patch,
                                            const SchemaNode& schema);

}  // namespace kw::codec
