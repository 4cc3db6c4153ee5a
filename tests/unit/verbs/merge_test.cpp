#include <doctest/doctest.h>

#include "cli/client/merge.hpp"
#include "core/codec/patch_schema.hpp"

using kw::cli::PatchStrategy;
using nlohmann::json;

namespace {

json pod(const json& containers, const json& labels = json{{"app", "web"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"containers", containers}}}};
}

// The live object kubectl would see: the manifest plus what the server adds.
json live_of(json object) {
  object["metadata"]["uid"] = "1234";
  object["metadata"]["resourceVersion"] = "7";
  object["spec"]["nodeName"] = "node-1";
  for (auto& c : object["spec"]["containers"]) c["terminationMessagePath"] = "/dev/termination-log";
  object["status"] = {{"phase", "Pending"}};
  return object;
}

}  // namespace

TEST_CASE("the last-applied annotation holds the manifest as kubectl writes it") {
  const json manifest = pod(json::array({{{"name", "c"}, {"image", "nginx"}}}));
  const json sent = kw::cli::with_last_applied(manifest);
  CHECK(sent["metadata"]["annotations"][std::string(kw::cli::k_last_applied_annotation)] ==
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{},\"labels\":{\"app\":\"web\"},"
        "\"name\":\"web\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"image\":\"nginx\",\"name\":\"c\"}]}}\n");
  CHECK(kw::cli::last_applied_of(sent)["metadata"]["name"] == "web");
  CHECK(kw::cli::last_applied_of(manifest).is_null());
  // Applying the annotated manifest again annotates the same text (no nesting).
  CHECK(kw::cli::with_last_applied(sent) == sent);
}

TEST_CASE("go_json escapes like Go's encoding/json") {
  CHECK(kw::cli::go_json(json{{"b", "<a&b>"}, {"a", 1}}) == "{\"a\":1,\"b\":\"\\u003ca\\u0026b\\u003e\"}\n");
}

TEST_CASE("applying the same manifest twice gives an empty patch even with server-added fields") {
  const json modified = kw::cli::with_last_applied(pod(json::array({{{"name", "c"}, {"image", "nginx"}}})));
  const json current = live_of(modified);
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), modified, current, PatchStrategy::strategic);
  CHECK(patch == json::object());
}

TEST_CASE("a field removed from the manifest is deleted while fields the server added are kept") {
  const json first = kw::cli::with_last_applied(pod(json::array({{{"name", "c"}, {"image", "nginx"}}}),
                                                    json{{"app", "web"}, {"tier", "front"}}));
  const json current = live_of(first);
  const json second = kw::cli::with_last_applied(pod(json::array({{{"name", "c"}, {"image", "nginx"}}})));
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), second, current, PatchStrategy::strategic);
  CHECK(patch["metadata"]["labels"] == json{{"tier", nullptr}});
  CHECK_FALSE(patch.contains("status"));
  CHECK_FALSE(patch.contains("spec"));
  const json result = kw::cli::apply_strategic_patch(current, patch).value();
  CHECK(result["metadata"]["labels"] == json{{"app", "web"}});
  CHECK(result["spec"]["nodeName"] == "node-1");
  CHECK(result["status"]["phase"] == "Pending");
  CHECK(result["metadata"]["annotations"][std::string(kw::cli::k_last_applied_annotation)] ==
        second["metadata"]["annotations"][std::string(kw::cli::k_last_applied_annotation)]);
}

TEST_CASE("a field never applied is not deleted when missing from the manifest") {
  json first = pod(json::array({{{"name", "c"}, {"image", "nginx"}}}));
  json current = live_of(kw::cli::with_last_applied(first));
  current["metadata"]["labels"]["added-by-someone"] = "x";
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), kw::cli::with_last_applied(first), current,
                                              PatchStrategy::strategic);
  CHECK(patch == json::object());
}

TEST_CASE("lists with a merge key are merged by name") {
  const json original = pod(json::array({{{"name", "a"}, {"image", "a:1"}}, {{"name", "b"}, {"image", "b:1"}}}));
  json current = live_of(kw::cli::with_last_applied(original));
  current["spec"]["containers"].push_back({{"name", "injected"}, {"image", "proxy"}});
  const json modified =
      kw::cli::with_last_applied(pod(json::array({{{"name", "a"}, {"image", "a:2"}}, {{"name", "c"}, {"image", "c:1"}}})));
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), modified, current, PatchStrategy::strategic);
  const json containers = patch["spec"]["containers"];
  REQUIRE(containers.is_array());
  CHECK(containers.size() == 3);
  CHECK(std::count(containers.begin(), containers.end(), json{{"name", "b"}, {"$patch", "delete"}}) == 1);
  CHECK(std::count(containers.begin(), containers.end(), json{{"name", "a"}, {"image", "a:2"}}) == 1);
  CHECK(std::count(containers.begin(), containers.end(), json{{"name", "c"}, {"image", "c:1"}}) == 1);

  const json result = kw::cli::apply_strategic_patch(current, patch).value();
  std::vector<std::string> names;
  for (const auto& c : result["spec"]["containers"]) names.push_back(c["name"]);
  // As kube-apiserver orders them: the patch's items in patch order, and the injected item,
  // which stood after "a" but never before "c", after both.
  CHECK(names == std::vector<std::string>{"a", "c", "injected"});
  CHECK(result["spec"]["containers"][0]["image"] == "a:2");
  CHECK(result["spec"]["containers"][0]["terminationMessagePath"] == "/dev/termination-log");
}

TEST_CASE("a field removed inside a merged list item is deleted in that item") {
  const json original = pod(json::array({{{"name", "a"}, {"image", "a:1"}, {"command", {"sleep", "1"}}}}));
  const json current = live_of(kw::cli::with_last_applied(original));
  const json modified = kw::cli::with_last_applied(pod(json::array({{{"name", "a"}, {"image", "a:1"}}})));
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), modified, current, PatchStrategy::strategic);
  CHECK(patch["spec"]["containers"] == json::array({{{"name", "a"}, {"command", nullptr}}}));
}

TEST_CASE("container ports merge by containerPort, service ports by port, from the schema") {
  const auto pod_schema = kw::codec::SchemaNode::of_object(pod(json::array()));
  const auto containers = pod_schema.child("spec").child("containers");
  REQUIRE(containers.list_meta("ports").has_value());
  CHECK(containers.list_meta("ports")->merge_key == "containerPort");
  CHECK_FALSE(containers.list_meta("args").has_value());
  CHECK(pod_schema.child("spec").child("ephemeralContainers").list_meta("ports")->merge_key == "containerPort");
  const auto service = kw::codec::SchemaNode::of_object(json{{"apiVersion", "v1"}, {"kind", "Service"}});
  REQUIRE(service.child("spec").list_meta("ports").has_value());
  CHECK(service.child("spec").list_meta("ports")->merge_key == "port");
  // Maps lead to their values' schema; unknown kinds know nothing.
  const auto secret_volumes = pod_schema.child("spec").child("volumes").child("secret");
  CHECK(secret_volumes.known());
  CHECK_FALSE(kw::codec::SchemaNode::of_object(json{{"apiVersion", "example.com/v1"}, {"kind", "Widget"}}).known());
}

TEST_CASE("a Job's status conditions merge by type, as every kind's do") {
  const json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "j"}}},
                    {"status", {{"conditions", {{{"type", "Complete"}, {"status", "False"}}, {{"type", "Failed"}, {"status", "False"}}}}}}};
  const json patched =
      kw::cli::apply_strategic_patch(job, json{{"status", {{"conditions", {{{"type", "Complete"}, {"status", "True"}}}}}}})
          .value();
  CHECK(patched["status"]["conditions"] ==
        json::array({{{"type", "Complete"}, {"status", "True"}}, {{"type", "Failed"}, {"status", "False"}}}));
}

TEST_CASE("a changed scalar and a list without merge key are sent whole") {
  json original = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "d"}}},
                   {"spec", {{"replicas", 1}, {"args", {"a", "b"}}}}};
  json current = kw::cli::with_last_applied(original);
  current["status"] = {{"replicas", 1}};
  json modified = original;
  modified["spec"]["replicas"] = 3;
  modified["spec"]["args"] = {"a"};
  const json patch = kw::cli::three_way_patch(kw::cli::last_applied_of(current), kw::cli::with_last_applied(modified),
                                              current, PatchStrategy::strategic);
  CHECK(patch["spec"] == json{{"replicas", 3}, {"args", {"a"}}});
}

TEST_CASE("the JSON merge strategy replaces keyed lists whole and deletes with null") {
  json original = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}},
                   {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}, {"size", 1}}}};
  const json current = kw::cli::with_last_applied(original);
  json modified = original;
  modified["spec"]["containers"] = json::array({{{"name", "a"}}});
  modified["spec"].erase("size");
  const json patch =
      kw::cli::three_way_patch(kw::cli::last_applied_of(current), kw::cli::with_last_applied(modified), current, PatchStrategy::merge);
  CHECK(patch["spec"] == json{{"containers", json::array({{{"name", "a"}}})}, {"size", nullptr}});
}

TEST_CASE("$patch: replace and null deletion in a strategic patch") {
  const json target = {{"a", {{"x", 1}, {"y", 2}}}, {"b", 1}};
  CHECK(kw::cli::apply_strategic_patch(target, json{{"a", {{"$patch", "replace"}, {"z", 3}}}, {"b", nullptr}}).value() ==
        json{{"a", {{"z", 3}}}});
}

TEST_CASE("edit's two-way patch carries every change, removals as null, containers merged by name") {
  const json original = live_of(pod(json::array({{{"name", "a"}, {"image", "nginx:1"}}, {{"name", "b"}, {"image", "x"}}})));
  json edited = original;
  edited["spec"]["containers"][0]["image"] = "nginx:2";
  edited["spec"]["containers"].erase(1);
  edited["metadata"]["labels"] = {{"new", "1"}};
  edited["status"].erase("phase");
  const json patch = kw::cli::two_way_patch(original, edited, PatchStrategy::strategic);
  CHECK(patch["metadata"] == json{{"labels", {{"app", nullptr}, {"new", "1"}}}});
  CHECK(patch["spec"]["containers"] ==
        json::array({{{"name", "a"}, {"image", "nginx:2"}}, {{"name", "b"}, {"$patch", "delete"}}}));
  CHECK(patch["status"] == json{{"phase", nullptr}});
  CHECK(kw::cli::two_way_patch(original, original, PatchStrategy::strategic).empty());
  // A JSON merge patch (custom resources) replaces the list whole.
  CHECK(kw::cli::two_way_patch(original, edited, PatchStrategy::merge)["spec"]["containers"] ==
        edited["spec"]["containers"]);
}

TEST_CASE("lists merged by key carry $setElementOrder with a change or a new order, as kubectl writes them") {
  const json original = pod(json::array({{{"name", "a"}, {"image", "1"}}, {{"name", "b"}, {"image", "1"}}}));
  json reordered = original;
  std::swap(reordered["spec"]["containers"][0], reordered["spec"]["containers"][1]);
  const json order = json::array({{{"name", "b"}}, {{"name", "a"}}});
  CHECK(kw::cli::two_way_patch(original, reordered, PatchStrategy::strategic) ==
        json{{"spec", {{"$setElementOrder/containers", order}}}});
  json changed = original;
  changed["spec"]["containers"][1]["image"] = "2";
  CHECK(kw::cli::two_way_patch(original, changed, PatchStrategy::strategic)["spec"] ==
        json{{"$setElementOrder/containers", json::array({{{"name", "a"}}, {{"name", "b"}}})},
             {"containers", json::array({{{"name", "b"}, {"image", "2"}}})}});
  // Unchanged lists say nothing, in the three-way patch too.
  CHECK(kw::cli::three_way_patch(original, original, live_of(original), PatchStrategy::strategic).empty());
}

TEST_CASE("a set of scalars (finalizers) is patched by additions, $deleteFromPrimitiveList and the order") {
  json original = pod(json::array({{{"name", "a"}, {"image", "1"}}}));
  original["metadata"]["finalizers"] = json::array({"x/c", "x/a", "x/b"});
  json edited = original;
  edited["metadata"]["finalizers"] = json::array({"x/b", "x/d"});
  const json patch = kw::cli::two_way_patch(original, edited, PatchStrategy::strategic);
  CHECK(patch == json{{"metadata",
                       {{"finalizers", json::array({"x/d"})},
                        {"$deleteFromPrimitiveList/finalizers", json::array({"x/a", "x/c"})},
                        {"$setElementOrder/finalizers", json::array({"x/b", "x/d"})}}}});
  // Apply's three-way patch: a finalizer dropped from the manifest is deleted, one another
  // writer added is kept.
  json live = live_of(original);
  live["metadata"]["finalizers"].push_back("other/z");
  const json three = kw::cli::three_way_patch(original, edited, live, PatchStrategy::strategic);
  CHECK(three["metadata"]["$deleteFromPrimitiveList/finalizers"] == json::array({"x/a", "x/c"}));
  CHECK(three["metadata"]["finalizers"] == json::array({"x/d"}));
}
