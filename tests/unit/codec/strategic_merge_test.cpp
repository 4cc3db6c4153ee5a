#include <doctest/doctest.h>

#include <string>

#include "core/codec/strategic_merge.hpp"

using kw::codec::PatchError;
using kw::codec::PatchErrorKind;
using kw::codec::SchemaNode;
using kw::codec::strategic_merge;
using nlohmann::json;

namespace {

json pod(json metadata, json spec) {
  metadata["name"] = "p";
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(metadata)}, {"spec", std::move(spec)}};
}

json pod_with_finalizers(json finalizers) {
  return pod({{"finalizers", std::move(finalizers)}}, {{"containers", {{{"name", "c"}}}}});
}

json pod_with_containers(json containers) { return pod(json::object(), {{"containers", std::move(containers)}}); }

json named(const std::string& name) { return json{{"name", name}}; }
json named(const std::string& name, const std::string& image) { return json{{"name", name}, {"image", image}}; }

json merged(const json& object, const json& patch) {
  const auto result = strategic_merge(object, patch, SchemaNode::of_object(object));
  if (!result) FAIL("refused: " << result.error().message);
  return *result;
}

PatchError refused(const json& object, const json& patch) {
  const auto result = strategic_merge(object, patch, SchemaNode::of_object(object));
  REQUIRE_FALSE(result.has_value());
  return result.error();
}

json finalizers_after(const json& finalizers, const json& metadata_patch) {
  return merged(pod_with_finalizers(finalizers), {{"metadata", metadata_patch}})["metadata"]["finalizers"];
}

json containers_after(const json& containers, const json& spec_patch) {
  return merged(pod_with_containers(containers), {{"spec", spec_patch}})["spec"]["containers"];
}

json deployment_with_strategy(json strategy) {
  return json{{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata", {{"name", "d"}}},
              {"spec", {{"replicas", 1}, {"strategy", std::move(strategy)}}}};
}

}  // namespace

TEST_CASE("a merge-strategy list of scalars merges as an ordered set") {
  // Values already there keep their order; each value once.
  CHECK(finalizers_after({"a", "b"}, {{"finalizers", {"b", "c"}}}) == json{"a", "b", "c"});
  // The patch's order wins for the values it names; a new value not placed after an old one
  // comes before it, as kube orders it.
  CHECK(finalizers_after({"a", "b"}, {{"finalizers", {"c"}}}) == json{"c", "a", "b"});
  CHECK(finalizers_after({"1", "2", "3"}, {{"finalizers", {"3", "1", "2"}}}) == json{"3", "1", "2"});
  CHECK(finalizers_after({"1", "2", "3"}, {{"finalizers", {"3", "1"}}}) == json{"2", "3", "1"});
  // A list of scalars with no strategy is replaced.
  const json object = pod_with_containers({{{"name", "c"}, {"args", {"x", "y"}}}});
  CHECK(containers_after(object["spec"]["containers"],
                         {{"containers", {{{"name", "c"}, {"args", {"z"}}}}}})[0]["args"] == json{"z"});
}

TEST_CASE("$deleteFromPrimitiveList removes values from a list of scalars") {
  CHECK(finalizers_after({"1", "2", "3"}, {{"$deleteFromPrimitiveList/finalizers", {"2"}}}) == json{"1", "3"});
  CHECK(finalizers_after({"1", "2"}, {{"$deleteFromPrimitiveList/finalizers", {"3"}}}) == json{"1", "2"});
  // Together with additions to the same list.
  CHECK(finalizers_after({"a", "b"}, {{"$deleteFromPrimitiveList/finalizers", {"a"}}, {"finalizers", {"c"}}}) ==
        json{"c", "b"});
  // A list the object lacks is not created; a list without the merge strategy loses the values too.
  const json no_list = merged(pod(json::object(), {{"containers", json::array()}}),
                              {{"metadata", {{"$deleteFromPrimitiveList/finalizers", {"x"}}}}});
  CHECK_FALSE(no_list["metadata"].contains("finalizers"));
  CHECK_FALSE(no_list["metadata"].contains("$deleteFromPrimitiveList/finalizers"));
  CHECK(containers_after({{{"name", "c"}, {"args", {"1", "2", "3"}}}},
                         {{"containers", {{{"name", "c"}, {"$deleteFromPrimitiveList/args", {"2"}}}}}})[0]["args"] ==
        json{"1", "3"});
  // The directive must name its field.
  const PatchError error = refused(pod_with_finalizers({"a"}), {{"metadata", {{"$deleteFromPrimitiveList", {"a"}}}}});
  CHECK(error.kind == PatchErrorKind::bad_request);
  CHECK(error.message == "invalid patch format of primitive list");
}

TEST_CASE("$setElementOrder orders a merged list of objects") {
  // The directive may name items the list does not hold.
  CHECK(
      containers_after({named("1"), named("3")}, {{"$setElementOrder/containers", {named("3"), named("2"), named("1")}},
                                                  {"containers", {named("3", "x"), named("1", "y")}}}) ==
      json{named("3", "x"), named("1", "y")});
  // Without a patch list it only reorders; items it does not name stay before the named items
  // they stood before.
  CHECK(containers_after({named("a"), named("x"), named("b")},
                         {{"$setElementOrder/containers", {named("b"), named("a")}}}) ==
        json{named("x"), named("b"), named("a")});
  // Deletions need not be named.
  CHECK(containers_after({named("a"), named("b"), named("c")},
                         {{"$setElementOrder/containers", {named("c"), named("a")}},
                          {"containers", {{{"name", "b"}, {"$patch", "delete"}}}}}) == json{named("c"), named("a")});
}

TEST_CASE("$setElementOrder orders a list of scalars") {
  CHECK(finalizers_after({"1", "3"}, {{"$setElementOrder/finalizers", {"3", "2", "1"}}}) == json{"3", "1"});
  CHECK(finalizers_after({"a", "b"}, {{"$setElementOrder/finalizers", {"b", "c", "a"}}, {"finalizers", {"c"}}}) ==
        json{"b", "c", "a"});
  // kubectl apply removing a finalizer and adding one.
  CHECK(finalizers_after({"a", "b"}, {{"$setElementOrder/finalizers", {"b", "c"}},
                                      {"$deleteFromPrimitiveList/finalizers", {"a"}},
                                      {"finalizers", {"c"}}}) == json{"b", "c"});
}

TEST_CASE("$setElementOrder must agree with the patch list and be well formed") {
  const json object = pod_with_containers({named("1"), named("3"), named("2")});
  const PatchError mismatch = refused(object, {{"spec",
                                                {{"$setElementOrder/containers", {named("1"), named("2"), named("3")}},
                                                 {"containers", {named("3", "x"), named("1", "y")}}}}});
  CHECK(mismatch.kind == PatchErrorKind::internal);
  CHECK(mismatch.message ==
        "The order in patch list:\n[map[image:x name:3] map[image:y name:1]]\n doesn't match $setElementOrder list:\n"
        "[map[name:1] map[name:2] map[name:3]]\n");
  const PatchError scalars =
      refused(pod_with_finalizers({"1", "3", "2"}),
              {{"metadata", {{"$setElementOrder/finalizers", {"1", "2", "3"}}, {"finalizers", {"3", "1"}}}}});
  CHECK(scalars.message.find("doesn't match") != std::string::npos);
  const PatchError no_field = refused(object, {{"spec", {{"$setElementOrder", {named("1")}}}}});
  CHECK(no_field.kind == PatchErrorKind::bad_request);
  CHECK(no_field.message == "invalid patch format of setElementOrder list");
  const PatchError not_a_list = refused(object, {{"spec", {{"$setElementOrder/containers", "1"}}}});
  CHECK(not_a_list.kind == PatchErrorKind::internal);
  CHECK(not_a_list.message == "expected a []interface {}, but received a string");
}

TEST_CASE("$retainKeys clears the keys of a map it does not name") {
  const json object = deployment_with_strategy(
      {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}});
  // What kubectl apply sends to switch to Recreate.
  CHECK(
      merged(
          object,
          {{"spec",
            {{"strategy",
              {{"$retainKeys", {"type"}}, {"type", "Recreate"}, {"rollingUpdate", nullptr}}}}}})["spec"]["strategy"] ==
      json{{"type", "Recreate"}});
  CHECK(merged(object,
               {{"spec", {{"strategy", {{"$retainKeys", {"type"}}, {"type", "Recreate"}}}}}})["spec"]["strategy"] ==
        json{{"type", "Recreate"}});
  // Without the directive the map merges as usual.
  CHECK(merged(object, {{"spec", {{"strategy", {{"type", "Recreate"}}}}}})["spec"]["strategy"]["rollingUpdate"] ==
        json{{"maxSurge", "25%"}, {"maxUnavailable", "25%"}});
  // Names that are not strings retain nothing.
  CHECK(merged(object, {{"spec", {{"strategy", {{"$retainKeys", {1}}}}}}})["spec"]["strategy"] == json::object());
}

TEST_CASE("$retainKeys in a merged list item") {
  const json object =
      pod(json::object(), {{"containers", {named("c")}}, {"volumes", {{{"name", "v"}, {"emptyDir", json::object()}}}}});
  const json patch = {
      {"spec",
       {{"volumes", {{{"name", "v"}, {"$retainKeys", {"name", "configMap"}}, {"configMap", {{"name", "cm"}}}}}}}}};
  CHECK(merged(object, patch)["spec"]["volumes"] == json{{{"name", "v"}, {"configMap", {{"name", "cm"}}}}});
}

TEST_CASE("$retainKeys must be a list naming every key the patch sets") {
  const json object = deployment_with_strategy({{"type", "RollingUpdate"}});
  const PatchError not_a_list =
      refused(object, {{"spec", {{"strategy", {{"$retainKeys", "type"}, {"type", "Recreate"}}}}}});
  CHECK(not_a_list.kind == PatchErrorKind::bad_request);
  CHECK(not_a_list.message == "invalid patch format of retainKeys");
  const PatchError unnamed =
      refused(object, {{"spec", {{"strategy", {{"$retainKeys", {"rollingUpdate"}}, {"type", "Recreate"}}}}}});
  CHECK(unnamed.kind == PatchErrorKind::bad_request);
  CHECK(unnamed.message == "invalid patch format of retainKeys");
}

TEST_CASE("$patch on a map: replace, delete, and anything else refused") {
  const json object = deployment_with_strategy({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 1}}}});
  CHECK(merged(object, {{"spec", {{"strategy", {{"$patch", "replace"}, {"type", "Recreate"}}}}}})["spec"]["strategy"] ==
        json{{"type", "Recreate"}});
  CHECK(merged(object, {{"spec", {{"strategy", {{"$patch", "delete"}}}}}})["spec"]["strategy"] == json::object());
  // A map the object lacks is not created by a directive.
  CHECK_FALSE(merged(object, {{"spec", {{"selector", {{"$patch", "delete"}}}}}})["spec"].contains("selector"));

  const PatchError merge = refused(object, {{"spec", {{"strategy", {{"$patch", "merge"}, {"type", "Recreate"}}}}}});
  CHECK(merge.kind == PatchErrorKind::internal);
  CHECK(merge.message == "unknown patch type: merge in map: map[$patch:merge type:Recreate]");
  CHECK(refused(object, {{"$patch", 1}}).message == "unknown patch type: %!s(int64=1) in map: map[$patch:1]");
  CHECK(refused(object, {{"spec", {{"strategy", {{"$patch", true}}}}}}).message ==
        "unknown patch type: %!s(bool=true) in map: map[$patch:true]");
  CHECK(refused(object, {{"spec", {{"strategy", {{"$patch", nullptr}}}}}}).message ==
        "unknown patch type: %!s(<nil>) in map: map[$patch:<nil>]");
}

TEST_CASE("$patch in a merged list: replace, delete every match, merge refused") {
  const json containers = {named("a", "1"), named("a", "2"), named("b", "1")};
  CHECK(containers_after(containers, {{"containers", {{{"$patch", "replace"}}, named("z", "9")}}}) ==
        json::array({named("z", "9")}));
  CHECK(containers_after(containers, {{"containers", {{{"name", "a"}, {"$patch", "delete"}}}}}) ==
        json::array({named("b", "1")}));
  const PatchError merge =
      refused(pod_with_containers(containers), {{"spec", {{"containers", {{{"$patch", "merge"}}}}}}});
  CHECK(merge.kind == PatchErrorKind::internal);
  CHECK(merge.message == "merging lists cannot yet be specified in the patch");
  CHECK(refused(pod_with_containers(containers), {{"spec", {{"containers", {{{"name", "a"}, {"$patch", "drop"}}}}}}})
            .message == "unknown patch type: drop in map: map[$patch:drop name:a]");
}

TEST_CASE("a field replaced whole by its strategy keeps only the patch") {
  const json pdb = {{"apiVersion", "policy/v1"},
                    {"kind", "PodDisruptionBudget"},
                    {"metadata", {{"name", "b"}}},
                    {"spec", {{"selector", {{"matchLabels", {{"a", "1"}, {"b", "2"}}}}}}}};
  CHECK(merged(pdb, {{"spec", {{"selector", {{"matchLabels", {{"c", "3"}}}}}}}})["spec"]["selector"] ==
        json{{"matchLabels", {{"c", "3"}}}});
}

TEST_CASE("directives and nulls never reach a value the object did not have") {
  const json object = pod_with_containers(json::array({named("c")}));
  const json result = merged(
      object, {{"spec",
                {{"nodeSelector", {{"a", nullptr}, {"b", "x"}}},
                 {"volumes", {{{"name", "gone"}, {"$patch", "delete"}}, {{"name", "kept"}, {"emptyDir", nullptr}}}},
                 {"affinity", {{"nodeAffinity", {{"$patch", "delete"}}}}}}}});
  CHECK(result["spec"]["nodeSelector"] == json{{"b", "x"}});
  CHECK(result["spec"]["volumes"] == json::array({named("kept")}));
  CHECK(result["spec"]["affinity"] == json::object());
  // Directive keys that were acted on are gone from the result.
  const json ordered = merged(pod_with_finalizers({"a"}), {{"metadata",
                                                            {{"$setElementOrder/finalizers", {"b", "a"}},
                                                             {"$deleteFromPrimitiveList/finalizers", {"x"}},
                                                             {"finalizers", {"b"}}}}});
  CHECK(ordered["metadata"] == json{{"name", "p"}, {"finalizers", {"b", "a"}}});
}

TEST_CASE("lists of lists and mixed lists are refused") {
  // The first item decides the type the others must have.
  const PatchError lists = refused(pod_with_finalizers(json::array()), {{"metadata", {{"finalizers", {{"x"}}}}}});
  CHECK(lists.kind == PatchErrorKind::unprocessable);
  CHECK(lists.message == "lists of lists are not supported");
  const PatchError mixed = refused(pod_with_finalizers({"a"}), {{"metadata", {{"finalizers", {1}}}}});
  CHECK(mixed.kind == PatchErrorKind::internal);
  CHECK(mixed.message == "list element types are not identical: [[a] [1]]");
  CHECK(refused(pod_with_finalizers({"a"}), {{"metadata", {{"finalizers", {{"x"}}}}}}).message ==
        "list element types are not identical: [[a] [[x]]]");
}
