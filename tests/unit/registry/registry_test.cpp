// The registry on a real embedded store: optimistic concurrency under racing writers.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "server/registry/registry.hpp"
#include "server/registry/stored_value.hpp"
#include "server/registry/validation.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/temp_dir.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace {

using namespace kw;

struct Fixture {
  testing::TempDir dir{"kw-registry-test"};
  std::unique_ptr<storage::Backend> backend;
  std::unique_ptr<registry::Registry> registry;
  api::ResourceTable resources = kinds::builtin_table();

  explicit Fixture(registry::RegistryOptions registry_options = {}, bool bootstrap = true) {
    storage::SqliteOptions options;
    options.data_dir = dir.path();
    auto opened = storage::open_sqlite_backend(options);
    REQUIRE_MESSAGE(opened.has_value(), opened.error().message);
    backend = std::move(*opened);
    registry = std::make_unique<registry::Registry>(*backend, resources, std::move(registry_options));
    auto started = registry->start();
    REQUIRE_MESSAGE(started.has_value(), started.error().message);
    if (!bootstrap) return;
    auto written = registry->bootstrap();
    REQUIRE_MESSAGE(written.has_value(), written.error().message);
  }

  const api::ResourceInfo& pods() const {
    const auto* info = resources.find_plural("", "v1", "pods");
    REQUIRE(info != nullptr);
    return *info;
  }
};

nlohmann::json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

}  // namespace

TEST_CASE("the bootstrap objects are admitted, only the missing ones, and a refusal does not stop the rest") {
  Fixture f({}, false);
  const auto* classes = f.resources.find_plural("scheduling.k8s.io", "v1", "priorityclasses");
  const auto* namespaces = f.resources.find_plural("", "v1", "namespaces");
  REQUIRE(classes != nullptr);
  REQUIRE(namespaces != nullptr);
  std::vector<std::string> admitted;
  f.registry->add_admission_check([&](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    admitted.push_back(r.info.plural + "/" + r.name);
    if (r.name == "system-node-critical") return std::unexpected(registry::forbidden(r.info.group, r.info.plural, r.name, "no"));
    return {};
  });
  REQUIRE(f.registry->bootstrap().has_value());
  CHECK(std::ranges::count(admitted, std::string("namespaces/kube-system")) == 1);
  CHECK(std::ranges::count(admitted, std::string("priorityclasses/system-node-critical")) == 1);
  CHECK(f.registry->get(*classes, "", "system-cluster-critical", "").has_value());
  CHECK(!f.registry->get(*classes, "", "system-node-critical", "").has_value());
  CHECK(f.registry->get(*namespaces, "", "kube-node-lease", "").has_value());

  admitted.clear();
  REQUIRE(f.registry->bootstrap().has_value());
  CHECK_MESSAGE(admitted == std::vector<std::string>{"priorityclasses/system-node-critical"},
                std::accumulate(admitted.begin(), admitted.end(), std::string(), [](auto a, auto& b) { return a + " " + b; }));
}

TEST_CASE("racing status updates without a pinned revision are retried until each lands") {
  Fixture f;
  REQUIRE(f.registry->create(f.pods(), "default", pod("racer"), {}).has_value());
  constexpr int k_threads = 6;
  constexpr int k_updates = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_updates; ++i) {
        auto updated = f.registry->update_with(
            f.pods(), "default", "racer",
            [&](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
              nlohmann::json out = now;
              out["metadata"].erase("resourceVersion");
              out["status"]["message"] = "writer " + std::to_string(t) + " update " + std::to_string(i);
              return out;
            },
            {.subresource = "status"});
        if (!updated) ++failures;
      }
    });
  for (auto& thread : threads) thread.join();
  // Retries are bounded, so under heavy contention an update may give up with a 409; none
  // may fail any other way, and most must land.
  auto current = f.registry->get(f.pods(), "default", "racer", {});
  REQUIRE(current.has_value());
  CHECK(failures.load() < k_threads * k_updates / 2);
  CHECK((*current)["status"]["message"].get<std::string>().starts_with("writer "));
}

TEST_CASE("racing patches (the current resourceVersion kept) are redone on the new object") {
  Fixture f;
  REQUIRE(f.registry->create(f.pods(), "default", pod("patched"), {}).has_value());
  constexpr int k_threads = 4;
  constexpr int k_updates = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_updates; ++i) {
        const std::string label = "w" + std::to_string(t) + "-" + std::to_string(i);
        auto updated = f.registry->update_with(
            f.pods(), "default", "patched",
            [&](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
              nlohmann::json out = now;  // as a merge patch: resourceVersion stays the one read
              out["metadata"]["labels"][label] = "x";
              return out;
            },
            {});
        if (!updated) ++failures;
      }
    });
  for (auto& thread : threads) thread.join();
  auto current = f.registry->get(f.pods(), "default", "patched", {});
  REQUIRE(current.has_value());
  // Every landed patch added its own label and none was lost by a later one.
  CHECK((*current)["metadata"]["labels"].size() == static_cast<std::size_t>(k_threads * k_updates - failures.load()));
  CHECK(failures.load() < k_threads * k_updates / 4);
}

TEST_CASE("an update pinned to a stale resourceVersion is a conflict, on the object and its status") {
  Fixture f;
  auto created = f.registry->create(f.pods(), "default", pod("pinned"), {});
  REQUIRE(created.has_value());
  const auto stale = (*created)["metadata"]["resourceVersion"].get<std::string>();
  auto first = *created;
  first["metadata"]["labels"] = {{"a", "1"}};
  REQUIRE(f.registry->update(f.pods(), "default", "pinned", first, {}).has_value());

  auto second = *created;
  second["metadata"]["resourceVersion"] = stale;
  second["metadata"]["labels"] = {{"a", "2"}};
  auto conflict = f.registry->update(f.pods(), "default", "pinned", second, {});
  REQUIRE_FALSE(conflict.has_value());
  CHECK(conflict.error().code == 409);

  auto status = *created;
  status["metadata"]["resourceVersion"] = stale;
  status["status"] = {{"phase", "Running"}};
  auto status_conflict = f.registry->update(f.pods(), "default", "pinned", status, {.subresource = "status"});
  REQUIRE_FALSE(status_conflict.has_value());
  CHECK(status_conflict.error().code == 409);
}

TEST_CASE("a generated name that is taken is drawn again, a bounded number of times") {
  // Suffixes come from a script: the first draws repeat, then a fresh one.
  auto script = std::make_shared<std::vector<std::string>>();
  auto next = std::make_shared<std::size_t>(0);
  registry::RegistryOptions options;
  options.name_suffix = [script, next] { return (*script)[std::min((*next)++, script->size() - 1)]; };
  Fixture f(options);
  auto generated = [](const std::string& prefix) {
    nlohmann::json object = pod("");
    object["metadata"].erase("name");
    object["metadata"]["generateName"] = prefix;
    return object;
  };

  *script = {"aaaaa", "aaaaa", "aaaaa", "bbbbb"};
  auto first = f.registry->create(f.pods(), "default", generated("web-"), {});
  REQUIRE(first.has_value());
  CHECK((*first)["metadata"]["name"] == "web-aaaaa");
  auto second = f.registry->create(f.pods(), "default", generated("web-"), {});
  REQUIRE(second.has_value());
  CHECK((*second)["metadata"]["name"] == "web-bbbbb");
  CHECK(*next == 4);

  // Every draw taken: the create fails as AlreadyExists after the retries, not forever.
  *script = {"aaaaa"};
  *next = 0;
  auto exhausted = f.registry->create(f.pods(), "default", generated("web-"), {});
  REQUIRE_FALSE(exhausted.has_value());
  CHECK(exhausted.error().code == 409);
  CHECK(*next == 8);

  // A long prefix is cut so that the name stays a valid 63-character label.
  *script = {"ccccc"};
  *next = 0;
  auto long_prefix = f.registry->create(f.pods(), "default", generated(std::string(70, 'x')), {});
  REQUIRE(long_prefix.has_value());
  CHECK((*long_prefix)["metadata"]["name"].get<std::string>().size() == 63);
}

TEST_CASE("equivalent resources are the rows stored under one key, converted through the stored version") {
  Fixture f;
  const auto* v1 = f.resources.find_plural("autoscaling", "v1", "horizontalpodautoscalers");
  const auto* v2 = f.resources.find_plural("autoscaling", "v2", "horizontalpodautoscalers");
  REQUIRE(v1 != nullptr);
  REQUIRE(v2 != nullptr);
  const auto equivalents = f.registry->equivalent_resources(f.resources, *v2, "");
  CHECK(equivalents == std::vector<const api::ResourceInfo*>{v2, v1});  // the table's (discovery) order
  CHECK(f.registry->equivalent_resources(f.resources, *v1, "status") == equivalents);
  CHECK(f.registry->equivalent_resources(f.resources, f.pods(), "") ==
        std::vector<const api::ResourceInfo*>{&f.pods()});

  const nlohmann::json hpa = {
      {"apiVersion", "autoscaling/v1"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"minReplicas", 1},
        {"maxReplicas", 4},
        {"targetCPUUtilizationPercentage", 70}}}};
  auto as_v2 = f.registry->convert_equivalent(*v1, *v2, hpa);
  REQUIRE(as_v2.has_value());
  CHECK((*as_v2)["apiVersion"] == "autoscaling/v2");
  CHECK_FALSE((*as_v2)["spec"].contains("targetCPUUtilizationPercentage"));
  CHECK((*as_v2)["spec"]["metrics"][0]["resource"]["name"] == "cpu");
  CHECK((*as_v2)["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70);
  auto back = f.registry->convert_equivalent(*v2, *v1, *as_v2);
  REQUIRE(back.has_value());
  CHECK((*back)["apiVersion"] == "autoscaling/v1");
  CHECK((*back)["spec"]["targetCPUUtilizationPercentage"] == 70);
  CHECK((*back)["spec"]["maxReplicas"] == 4);
}

TEST_CASE("embedded JSON keeps its nulls through a create and a read, while the kind's own nulls go") {
  // The DaemonSet controller compares a ControllerRevision's data byte for byte with its own
  // encoding of the pod template, which has "creationTimestamp": null.
  Fixture f;
  const auto* revisions = f.resources.find_plural("apps", "v1", "controllerrevisions");
  REQUIRE(revisions != nullptr);
  const auto data = nlohmann::json::parse(
      R"({"spec": {"template": {"$patch": "replace", "metadata": {"creationTimestamp": null, "labels": {"a": "b"}}}}})");
  const nlohmann::json revision = {{"apiVersion", "apps/v1"},
                                   {"kind", "ControllerRevision"},
                                   {"metadata", {{"name", "agent-1"}, {"labels", {{"a", "b"}}}, {"annotations", nullptr}}},
                                   {"revision", 1},
                                   {"data", data}};
  auto created = f.registry->create(*revisions, "default", revision, {});
  REQUIRE_MESSAGE(created.has_value(), created.error().message);
  CHECK((*created)["data"] == data);
  CHECK_FALSE((*created)["metadata"].contains("annotations"));
  auto read = f.registry->get(*revisions, "default", "agent-1", "");
  REQUIRE(read.has_value());
  CHECK((*read)["data"] == data);
}

TEST_CASE("field problems of a typed JSON body come in the order the decoder meets them") {
  using kw::registry::field_problems;
  const std::vector<std::string> unknown{R"(unknown field "aa")", R"(unknown field "zz")"};
  const std::string body = R"({"kind":"ConfigMap","zz":1,"metadata":{"name":"a","name":"b"},"aa":2})";
  CHECK(field_problems({"metadata.name"}, unknown, true, body) ==
        std::vector<std::string>{R"(unknown field "zz")", R"(duplicate field "metadata.name")", R"(unknown field "aa")"});
  // A repeat is met where it repeats, after what comes between.
  CHECK(field_problems({"data"}, {R"(unknown field "bogus")"}, true, R"({"data":{},"bogus":1,"data":{}})") ==
        std::vector<std::string>{R"(unknown field "bogus")", R"(duplicate field "data")"});
  // Without the body (YAML, protobuf), and for custom resources, the repeats come first.
  CHECK(field_problems({"metadata.name"}, unknown, true) ==
        std::vector<std::string>{R"(duplicate field "metadata.name")", R"(unknown field "aa")", R"(unknown field "zz")"});
  CHECK(field_problems({"metadata.name"}, unknown, false, body).front() == R"(duplicate field "metadata.name")");
  // A repeat inside an unknown field is named by the unknown one.
  CHECK(field_problems({"zz.q"}, unknown, true, R"({"zz":{"q":1,"q":2},"aa":1})") == std::vector<std::string>{
                                                                                       R"(unknown field "zz")",
                                                                                       R"(unknown field "aa")"});
  // The typed decoder keeps 100.
  std::vector<std::string> many;
  for (int i = 0; i < 150; ++i) many.push_back("unknown field \"f" + std::to_string(i) + "\"");
  CHECK(field_problems({}, many, true).size() == 100);
}

TEST_CASE("a cached object's tree rebuilt from its protobuf is the tree decoded from storage") {
  Fixture f;
  struct Sample {
    const char* group_version;
    const char* plural;
    const char* ns;
    nlohmann::json object;
  };
  const std::vector<Sample> samples = {
      {"v1", "pods", "default", pod("lean")},
      {"v1", "nodes", "",
       {{"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", "n1"}, {"labels", {{"kubernetes.io/hostname", "n1"}}}}},
        {"status", {{"capacity", {{"cpu", "4"}, {"memory", "8Gi"}}}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}},
      {"apps/v1", "deployments", "default",
       {{"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "d"}}},
        {"spec",
         {{"selector", {{"matchLabels", {{"app", "d"}}}}},
          {"template", {{"metadata", {{"labels", {{"app", "d"}}}}}, {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}}}},
      {"v1", "configmaps", "default",
       {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "cm"}}}, {"data", {{"k", "v"}}}}},
      {"coordination.k8s.io/v1", "leases", "default",
       {{"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", "l"}}},
        {"spec", {{"holderIdentity", "n1"}, {"leaseDurationSeconds", 40}, {"renewTime", "2026-01-02T03:04:05.123456Z"}}}}},
  };
  for (const auto& sample : samples) {
    const std::string group_version = sample.group_version;
    const auto slash = group_version.find('/');
    const std::string group = slash == std::string::npos ? "" : group_version.substr(0, slash);
    const std::string version = slash == std::string::npos ? group_version : group_version.substr(slash + 1);
    const auto* info = f.resources.find_plural(group, version, sample.plural);
    REQUIRE(info != nullptr);
    REQUIRE(f.registry->create(*info, sample.ns, sample.object, {}).has_value());
    auto stored = f.registry->get_object(*info, sample.ns, sample.object["metadata"]["name"], "");
    REQUIRE(stored.has_value());
    INFO(sample.plural);
    REQUIRE((*stored)->can_be_lean());
    const auto lean = (*stored)->lean();
    CHECK_FALSE(lean->holds_tree());
    CHECK(lean->object() == (*stored)->object());
    CHECK(lean->json() == (*stored)->json());
  }
}

TEST_CASE("a kind's create-only checks do not hold back updates of objects that pass them no longer") {
  Fixture f;
  const auto info = [&](const char* group, const char* version, const char* plural) -> const api::ResourceInfo& {
    const auto* found = f.resources.find_plural(group, version, plural);
    REQUIRE(found != nullptr);
    return *found;
  };
  const auto relabelled = [&](const api::ResourceInfo& resource, const std::string& ns, const std::string& name) {
    auto read = f.registry->get(resource, ns, name, {});
    REQUIRE_MESSAGE(read.has_value(), read.error().message);
    nlohmann::json object = *read;
    object["metadata"]["labels"]["touched"] = "yes";
    return object;
  };

  SUBCASE("an Event written through v1 is updated through events.k8s.io/v1, whose create checks it fails") {
    const nlohmann::json event = {
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", "web.1"}, {"namespace", "default"}}},
        {"involvedObject", {{"kind", "Pod"}, {"name", "web"}, {"namespace", "default"}}},
        {"reason", "Started"},
        {"message", "Started container web"},
        {"type", "Normal"},
        {"count", 1},
        {"firstTimestamp", "2026-11-28T10:00:00Z"},
        {"lastTimestamp", "2026-11-28T10:00:00Z"},
        {"source", {{"component", "kubelet"}}}};
    REQUIRE(f.registry->create(info("", "v1", "events"), "default", event, {}).has_value());
    const auto& events_v1 = info("events.k8s.io", "v1", "events");
    auto updated = f.registry->update(events_v1, "default", "web.1", relabelled(events_v1, "default", "web.1"), {});
    CHECK_MESSAGE(updated.has_value(), updated.error().message);
    // A create through events.k8s.io/v1 still gets them.
    nlohmann::json fresh = relabelled(events_v1, "default", "web.1");
    fresh["metadata"] = {{"name", "web.2"}};
    auto refused = f.registry->create(events_v1, "default", fresh, {});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("Invalid value: \"\": needs to be unset") != std::string::npos);
  }
  SUBCASE("a system PriorityClass is checked against its known values on create only") {
    const auto& classes = info("scheduling.k8s.io", "v1", "priorityclasses");
    nlohmann::json pc = relabelled(classes, "", "system-cluster-critical");
    pc["globalDefault"] = true;
    auto updated = f.registry->update(classes, "", "system-cluster-critical", pc, {});
    CHECK_MESSAGE(updated.has_value(), updated.error().message);
    pc["metadata"] = {{"name", "system-made-up"}};
    auto refused = f.registry->create(classes, "", pc, {});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("'system-' prefix are reserved") != std::string::npos);
  }
  SUBCASE("an Ingress's class annotation may differ from ingressClassName after its create") {
    const auto& ingresses = info("networking.k8s.io", "v1", "ingresses");
    nlohmann::json ing = {{"apiVersion", "networking.k8s.io/v1"},
                          {"kind", "Ingress"},
                          {"metadata", {{"name", "web"}, {"annotations", {{"kubernetes.io/ingress.class", "nginx"}}}}},
                          {"spec",
                           {{"ingressClassName", "nginx"},
                            {"defaultBackend", {{"service", {{"name", "web"}, {"port", {{"number", 80}}}}}}}}}};
    REQUIRE(f.registry->create(ingresses, "default", ing, {}).has_value());
    nlohmann::json changed = relabelled(ingresses, "default", "web");
    changed["metadata"]["annotations"]["kubernetes.io/ingress.class"] = "traefik";
    auto updated = f.registry->update(ingresses, "default", "web", changed, {});
    CHECK_MESSAGE(updated.has_value(), updated.error().message);
    changed["metadata"] = {{"name", "web-2"}, {"annotations", {{"kubernetes.io/ingress.class", "traefik"}}}};
    auto refused = f.registry->create(ingresses, "default", changed, {});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("must match `ingressClassName` when both are specified") != std::string::npos);
  }
}

TEST_CASE("a pod create reports the AppArmor annotations it turns into fields as warnings") {
  Fixture f;
  nlohmann::json web = pod("armored");
  web["metadata"]["annotations"] = {{"container.apparmor.security.beta.kubernetes.io/c", "runtime/default"}};
  std::vector<std::string> warnings;
  registry::WriteOptions options;
  options.warnings = &warnings;
  auto created = f.registry->create(f.pods(), "default", web, options);
  REQUIRE_MESSAGE(created.has_value(), created.error().message);
  CHECK((*created)["spec"]["containers"][0]["securityContext"]["appArmorProfile"] ==
        nlohmann::json{{"type", "RuntimeDefault"}});
  CHECK(warnings == std::vector<std::string>{"metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: "
                                             "deprecated since v1.30; use the \"appArmorProfile\" field instead"});
}

TEST_CASE("a registry torn down while its caches still take in a write's events leaves the heap intact") {
  // The caches' feed threads decode events through the registry until the caches stop, so what
  // they use must outlive them. Repeated, as the race needs the teardown to meet a feed in flight.
  for (int round = 0; round < 8; ++round) {
    Fixture f;
    REQUIRE(f.registry->create(f.pods(), "default", pod("short-lived"), {}).has_value());
  }
}

TEST_CASE("a pod stored before a rule tightened can still be deleted, though an update is refused") {
  Fixture f;
  nlohmann::json held = pod("old");
  held["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(f.registry->create(f.pods(), "default", held, {}).has_value());
  // Rewrite the stored pod as an older server could have kept it: an image with a blank in
  // front, which a create or an update refuses now.
  const std::string key = "/registry/pods/default/old";
  auto stored = f.backend->get(key);
  REQUIRE(stored.has_value());
  auto object = registry::decode_stored(f.pods(), stored->value);
  REQUIRE(object.has_value());
  (*object)["spec"]["containers"][0]["image"] = " busybox";
  auto encoded = registry::encode_stored(f.pods(), *object);
  REQUIRE(encoded.has_value());
  REQUIRE(f.backend->update(key, *encoded, stored->mod_revision).has_value());

  auto relabeled = f.registry->update_with(
      f.pods(), "default", "old",
      [](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
        nlohmann::json out = now;
        out["metadata"]["labels"] = {{"a", "b"}};
        return out;
      },
      {});
  REQUIRE_FALSE(relabeled.has_value());
  CHECK(relabeled.error().message.find("must not have leading or trailing whitespace") != std::string::npos);

  // The delete marks it (its finalizer holds it) without checking it again.
  auto removed = f.registry->remove(f.pods(), "default", "old", nullptr, {});
  REQUIRE_MESSAGE(removed.has_value(), removed.error().message);
  auto marked = f.registry->get(f.pods(), "default", "old", "");
  REQUIRE(marked.has_value());
  CHECK((*marked)["metadata"].contains("deletionTimestamp"));
}

TEST_CASE("a pod template stored with what a create no longer takes keeps it through updates") {
  Fixture f;
  const auto* deployments = f.resources.find_plural("apps", "v1", "deployments");
  REQUIRE(deployments != nullptr);
  nlohmann::json deployment = {{"apiVersion", "apps/v1"},
                               {"kind", "Deployment"},
                               {"metadata", {{"name", "web"}}},
                               {"spec",
                                {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                                 {"template",
                                  {{"metadata", {{"labels", {{"app", "web"}}}}},
                                   {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}}}}};
  REQUIRE(f.registry->create(*deployments, "default", deployment, {}).has_value());
  // Rewrite the stored template as an older server could have kept it: half a 2Mi page, and a
  // net sysctl on a pod that shares the host's network.
  const std::string key = "/registry/deployments/default/web";
  auto stored = f.backend->get(key);
  REQUIRE(stored.has_value());
  auto object = registry::decode_stored(*deployments, stored->value);
  REQUIRE(object.has_value());
  auto& spec = (*object)["spec"]["template"]["spec"];
  spec["containers"][0]["resources"] = {{"limits", {{"memory", "1Gi"}, {"hugepages-2Mi", "1Mi"}}}};
  spec["hostNetwork"] = true;
  spec["securityContext"] = {{"sysctls", {{{"name", "net.core.somaxconn"}, {"value", "1024"}}}}};
  const nlohmann::json tightened = *object;
  auto encoded = registry::encode_stored(*deployments, *object);
  REQUIRE(encoded.has_value());
  REQUIRE(f.backend->update(key, *encoded, stored->mod_revision).has_value());

  // An update keeps both (GetValidationOptionsFromPodTemplate's ratchets).
  auto scaled = f.registry->update_with(*deployments, "default", "web",
                                        [](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
                                          nlohmann::json out = now;
                                          out["spec"]["replicas"] = 3;
                                          out["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:2";
                                          return out;
                                        },
                                        {});
  REQUIRE_MESSAGE(scaled.has_value(), scaled.error().message);

  // A new Deployment with the same template is refused on both counts.
  nlohmann::json copy = tightened;
  copy["metadata"] = {{"name", "web-copy"}};
  copy.erase("status");
  auto refused = f.registry->create(*deployments, "default", copy, {});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message.find("1Mi is not positive integer multiple of hugepages-2Mi") != std::string::npos);
  CHECK(refused.error().message.find("may not be specified when 'hostNetwork' is true") != std::string::npos);

  // A stored template without them gets no such leeway: a ReplicaSet's update is refused.
  const auto* replica_sets = f.resources.find_plural("apps", "v1", "replicasets");
  REQUIRE(replica_sets != nullptr);
  nlohmann::json plain = deployment;
  plain["kind"] = "ReplicaSet";
  REQUIRE(f.registry->create(*replica_sets, "default", plain, {}).has_value());
  auto tightening = f.registry->update_with(*replica_sets, "default", "web",
                                            [](const nlohmann::json& now) -> registry::ApiResult<nlohmann::json> {
                                              nlohmann::json out = now;
                                              out["spec"]["template"]["spec"]["containers"][0]["resources"] = {
                                                  {"limits", {{"memory", "1Gi"}, {"hugepages-2Mi", "1Mi"}}}};
                                              return out;
                                            },
                                            {});
  REQUIRE_FALSE(tightening.has_value());
  CHECK(tightening.error().message.find("is not positive integer multiple of hugepages-2Mi") != std::string::npos);
}
