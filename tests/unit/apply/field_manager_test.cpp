#include <doctest/doctest.h>

#include "server/apply/field_manager.hpp"
#include "server/apply/typed.hpp"

using namespace kw::apply;
using json = nlohmann::json;

namespace {

Type deployment_type() {
  auto type = Type::of_kind("apps/v1", "Deployment");
  REQUIRE(type.has_value());
  return *type;
}

json deployment(const json& containers, int replicas = 1) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", {{"containers", containers}}}}}}}};
}

FieldManager manager_for(const Type& type) {
  return FieldManager(type, "apps/v1", "", Set(), json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}});
}

const json* entry_of(const json& object, const std::string& manager) {
  for (const auto& e : object["metadata"]["managedFields"])
    if (e["manager"] == manager) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("a Deployment's field set: containers by name, ports by port and defaulted protocol, atomic selector") {
  const Type type = deployment_type();
  json object = deployment(json::array({{{"name", "c"}, {"image", "nginx"}, {"ports", {{{"containerPort", 80}}}}}}));
  const Set set = to_field_set(object, type);
  const json fields = set.to_json();
  CHECK(fields["f:spec"]["f:selector"] == json::object());
  const json& container = fields["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"];
  CHECK(container.contains("."));
  CHECK(container["f:ports"].contains(R"(k:{"containerPort":80,"protocol":"TCP"})"));
  CHECK_FALSE(validate(object, type).has_value());
}

TEST_CASE("validation names the path of what structured-merge-diff refuses") {
  const Type type = deployment_type();
  json twice = deployment(json::array({{{"name", "c"}}, {{"name", "c"}}}));
  CHECK(validate(twice, type) == std::optional<std::string>(".spec.template.spec.containers: duplicate entries for key [name=\"c\"]"));
  json unknown = deployment(json::array());
  unknown["spec"]["bogus"] = 1;
  CHECK(validate(unknown, type) == std::optional<std::string>(".spec.bogus: field not declared in schema"));
  json wrong = deployment(json::array({{{"name", "c"}, {"args", {"x", true}}}}));
  CHECK(validate(wrong, type) ==
        std::optional<std::string>(".spec.template.spec.containers[name=\"c\"].args[1]: expected string, got "
                                   "&value.valueUnstructured{Value:true}"));
}

TEST_CASE("merge keeps the live items the configuration does not name, in place") {
  const Type type = deployment_type();
  const json live = deployment(json::array({{{"name", "a"}}, {{"name", "b"}, {"image", "old"}}}));
  const json config = deployment(json::array({{{"name", "b"}, {"image", "new"}}, {{"name", "c"}}}));
  auto merged = merge(live, config, type);
  REQUIRE(merged.has_value());
  CHECK((*merged)["spec"]["template"]["spec"]["containers"] ==
        json::parse(R"([{"name":"a"},{"name":"b","image":"new"},{"name":"c"}])"));
  auto compared = compare(live, *merged, type);
  REQUIRE(compared.has_value());
  CHECK(compared->modified.to_json()["f:spec"]["f:template"]["f:spec"]["f:containers"].contains("k:{\"name\":\"b\"}"));
  CHECK(compared->added.to_json()["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"].contains("."));
  CHECK(compared->removed.empty());
}

TEST_CASE("merge_keeps answers as a merge and a comparison would, and never yes when they say no") {
  const Type type = deployment_type();
  json live = deployment(json::array({{{"name", "a"}, {"image", "x"}, {"ports", {{{"containerPort", 80}}}}},
                                      {{"name", "b"}, {"image", "y"}, {"resources", json::object()}}}),
                         3);
  live["metadata"]["labels"] = {{"app", "web"}, {"tier", "db"}};
  live["metadata"]["managedFields"] = json::array({{{"manager", "m"}, {"operation", "Apply"}}});
  live["spec"]["template"]["metadata"]["creationTimestamp"] = nullptr;
  live["status"] = {{"replicas", 3}};
  const auto unchanged_by_merge = [&](const json& config) {
    auto merged = merge(live, config, type);
    if (!merged) return false;
    auto compared = compare(live, *merged, type);
    return compared && compared->same();
  };
  std::vector<std::pair<std::string, json>> configs;
  const auto variant = [&](const std::string& name, auto&& change) {
    json config = deployment(json::array({{{"name", "a"}, {"image", "x"}}, {{"name", "b"}}}), 3);
    change(config);
    configs.emplace_back(name, std::move(config));
  };
  variant("a subset of the live object", [](json&) {});
  variant("one label of two", [](json& c) { c["metadata"]["labels"] = {{"tier", "db"}}; });
  variant("the live list items in full", [&](json& c) {
    c["spec"]["template"]["spec"]["containers"] = live["spec"]["template"]["spec"]["containers"];
  });
  variant("a null where a map is", [](json& c) { c["spec"]["template"]["metadata"] = nullptr; });
  variant("a null where a scalar is", [](json& c) { c["spec"]["replicas"] = nullptr; });
  variant("another replica count", [](json& c) { c["spec"]["replicas"] = 4; });
  variant("a changed image", [](json& c) { c["spec"]["template"]["spec"]["containers"][1]["image"] = "z"; });
  variant("the items in another order", [](json& c) {
    auto& list = c["spec"]["template"]["spec"]["containers"];
    std::swap(list[0], list[1]);
  });
  variant("one more item", [](json& c) { c["spec"]["template"]["spec"]["containers"].push_back({{"name", "c"}}); });
  variant("the same item twice", [](json& c) { c["spec"]["template"]["spec"]["containers"].push_back({{"name", "a"}}); });
  variant("an item without its key", [](json& c) { c["spec"]["template"]["spec"]["containers"].push_back({{"image", "q"}}); });
  variant("a port list of another length (atomic selector aside)", [](json& c) {
    c["spec"]["template"]["spec"]["containers"][0]["ports"] = {{{"containerPort", 80}}, {{"containerPort", 81}}};
  });
  variant("the same port", [](json& c) {
    c["spec"]["template"]["spec"]["containers"][0]["ports"] = {{{"containerPort", 80}}};
  });
  variant("an atomic selector with less", [](json& c) { c["spec"]["selector"] = {{"matchLabels", json::object()}}; });
  variant("an empty map where one is", [](json& c) { c["spec"]["template"]["spec"]["containers"][1]["resources"] = json::object(); });
  variant("an empty map where none is", [](json& c) { c["spec"]["template"]["spec"]["containers"][0]["resources"] = json::object(); });
  variant("a new field", [](json& c) { c["spec"]["paused"] = true; });
  variant("the live status", [&](json& c) { c["status"] = live["status"]; });
  variant("a number written as a float", [](json& c) { c["spec"]["replicas"] = 3.0; });
  int kept = 0;
  for (const auto& [name, config] : configs) {
    CAPTURE(name);
    const bool fast = merge_keeps(live, config, type);
    if (fast) {
      ++kept;
      CHECK(unchanged_by_merge(config));
    }
    if (name != "the items in another order" && name != "an item without its key" && name != "the same item twice")
      CHECK(fast == unchanged_by_merge(config));
  }
  CHECK(kept == 8);
}

TEST_CASE("two appliers: shared values, conflicts, force, and removal of what nobody owns any more") {
  const Type type = deployment_type();
  const FieldManager fm = manager_for(type);
  const std::string t = "2024-01-01T00:00:00Z";
  auto first = fm.apply(nullptr, deployment(json::array({{{"name", "c"}, {"image", "nginx:1"}}})), "one", false, t);
  REQUIRE(first.has_value());
  // Another manager setting the same value shares it; a different value conflicts.
  auto same = fm.apply(*first, deployment(json::array({{{"name", "c"}, {"image", "nginx:1"}}})), "two", false, t);
  REQUIRE(same.has_value());
  auto clash = fm.apply(*same, deployment(json::array({{{"name", "c"}, {"image", "nginx:2"}}}), 1), "three", false, t);
  REQUIRE_FALSE(clash.has_value());
  CHECK(clash.error().kind == ApplyFailure::Kind::conflict);
  CHECK(clash.error().message ==
        "Apply failed with 2 conflicts: conflicts with \"one\":\n- .spec.template.spec.containers[name=\"c\"].image\n"
        "conflicts with \"two\":\n- .spec.template.spec.containers[name=\"c\"].image");
  CHECK(clash.error().causes.size() == 2);
  // Forced: "three" takes the image (and the rest it sent) from both.
  auto forced = fm.apply(*same, deployment(json::array({{{"name", "c"}, {"image", "nginx:2"}}}), 1), "three", true, t);
  REQUIRE(forced.has_value());
  CHECK((*forced)["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2");
  const json* one = entry_of(*forced, "one");
  REQUIRE(one != nullptr);
  CHECK_FALSE((*one)["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"].contains("f:image"));
  // "one" drops its container: it stays, since "two" and "three" still own it.
  json without = deployment(json::array());
  without["spec"]["template"]["spec"].erase("containers");
  auto dropped = fm.apply(*forced, without, "one", false, t);
  REQUIRE(dropped.has_value());
  CHECK((*dropped)["spec"]["template"]["spec"]["containers"].size() == 1);
}

TEST_CASE("updates own what they change, and an unchanged apply keeps the entry time") {
  const Type type = deployment_type();
  const FieldManager fm = manager_for(type);
  auto created = fm.apply(nullptr, deployment(json::array({{{"name", "c"}, {"image", "a"}}})), "applier", false,
                          "2024-01-01T00:00:00Z");
  REQUIRE(created.has_value());
  json edited = *created;
  edited["spec"]["replicas"] = 5;
  const json updated = fm.update(*created, edited, "kubectl-edit", "2024-01-01T00:00:05Z");
  const json* editor = entry_of(updated, "kubectl-edit");
  REQUIRE(editor != nullptr);
  CHECK((*editor)["operation"] == "Update");
  CHECK((*editor)["fieldsV1"] == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  CHECK_FALSE(entry_of(updated, "applier")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  auto again = fm.apply(updated, deployment(json::array({{{"name", "c"}, {"image", "a"}}}), 5), "applier", true,
                        "2024-01-01T00:00:09Z");
  REQUIRE(again.has_value());
  CHECK(entry_of(*again, "applier")->at("time") == "2024-01-01T00:00:09Z");  // took replicas back
  auto unchanged = fm.apply(*again, deployment(json::array({{{"name", "c"}, {"image", "a"}}}), 5), "applier", false,
                            "2024-01-01T00:00:20Z");
  REQUIRE(unchanged.has_value());
  CHECK(entry_of(*unchanged, "applier")->at("time") == "2024-01-01T00:00:09Z");
}

TEST_CASE("managedFields entries: identifiers, order, and errors in what a client sent") {
  CHECK(manager_identifier({"m", "Update", "v1", ""}) == R"({"manager":"m","operation":"Update","apiVersion":"v1"})");
  CHECK(manager_identifier({"m", "Apply", "", "status"}) == R"({"manager":"m","operation":"Apply","subresource":"status"})");
  CHECK(manager_from_user_agent("kubectl-create/v1.30.0 (linux/amd64)") == "kubectl-create");
  CHECK(manager_from_user_agent(std::string(300, 'x')).size() == 128);
  const json entries = json::parse(R"([
    {"manager":"b","operation":"Update","apiVersion":"v1","time":"2024-01-01T00:00:02Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},
    {"manager":"a","operation":"Update","apiVersion":"v1","time":"2024-01-01T00:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},
    {"manager":"z","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:09Z","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}])");
  auto managed = decode_managed_fields(entries);
  REQUIRE(managed.has_value());
  const json encoded = encode_managed_fields(*managed);
  CHECK(encoded[0]["manager"] == "z");
  CHECK(encoded[1]["manager"] == "a");
  CHECK(encoded[2]["manager"] == "b");
  CHECK_FALSE(decode_managed_fields(json::parse(R"([{"manager":"a","operation":"Patch","apiVersion":"v1"}])")).has_value());
  CHECK(decode_managed_fields(json::parse(R"([{"manager":"a","operation":"Update","apiVersion":"v1"}])")).error() ==
        "missing fieldsType in managed fields entry 0");
}

TEST_CASE("at most ten Update entries: the oldest are merged into ancient-changes") {
  const FieldManager fm(Type::deduced(), "v1", "", Set(), json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}});
  json object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}, {"data", json::object()}};
  object = fm.update(nullptr, object, "creator", "2024-01-01T00:00:00Z");
  for (int i = 1; i <= 11; ++i) {
    json next = object;
    next["data"]["k" + std::to_string(i)] = "v";
    char time[32];
    std::snprintf(time, sizeof time, "2024-01-01T00:00:%02dZ", i);
    object = fm.update(object, next, "agent-" + std::to_string(i), time);
  }
  const json& entries = object["metadata"]["managedFields"];
  CHECK(entries.size() == 10);
  const json* ancient = entry_of(object, "ancient-changes");
  REQUIRE(ancient != nullptr);
  CHECK(ancient->at("fieldsV1")["f:data"].contains("f:k1"));
  CHECK(entry_of(object, "creator") == nullptr);
  CHECK(ancient->at("fieldsV1")["f:data"].contains("f:k2"));  // the next oldest joined it
  CHECK(ancient->at("time") == "2024-01-01T00:00:02Z");
  CHECK(entry_of(object, "agent-1") == nullptr);
  CHECK(entry_of(object, "agent-2") == nullptr);
  CHECK(entry_of(object, "agent-3") != nullptr);
}
