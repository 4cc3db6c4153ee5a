// Category expansion for kw get: "all" and other discovery categories -> resources, in
// discovery order, with a resource name winning over a category of the same name.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/client/discovery.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::cli {
namespace {

using nlohmann::json;

// A discovery as the client caches it: the core group, apps, both autoscaling versions,
// batch, and one CRD in "all" and in a category of its own.
api::ResourceTable discovered_table(const json& extra = json::array()) {
  json entries = json::array({
      {{"group", ""}, {"version", "v1"}, {"name", "pods"}, {"kind", "Pod"}, {"namespaced", true},
       {"shortNames", {"po"}}, {"categories", {"all"}}},
      {{"group", ""}, {"version", "v1"}, {"name", "configmaps"}, {"kind", "ConfigMap"}, {"namespaced", true},
       {"shortNames", {"cm"}}},
      {{"group", ""}, {"version", "v1"}, {"name", "services"}, {"kind", "Service"}, {"namespaced", true},
       {"shortNames", {"svc"}}, {"categories", {"all"}}},
      {{"group", "apps"}, {"version", "v1"}, {"name", "deployments"}, {"kind", "Deployment"}, {"namespaced", true},
       {"shortNames", {"deploy"}}, {"categories", {"all"}}},
      {{"group", "autoscaling"}, {"version", "v2"}, {"name", "horizontalpodautoscalers"},
       {"kind", "HorizontalPodAutoscaler"}, {"namespaced", true}, {"categories", {"all"}}},
      {{"group", "autoscaling"}, {"version", "v1"}, {"name", "horizontalpodautoscalers"},
       {"kind", "HorizontalPodAutoscaler"}, {"namespaced", true}, {"categories", {"all"}}},
      {{"group", "batch"}, {"version", "v1"}, {"name", "jobs"}, {"kind", "Job"}, {"namespaced", true},
       {"categories", {"all"}}},
      {{"group", "stable.example.com"}, {"version", "v1"}, {"name", "crontabs"}, {"kind", "CronTab"},
       {"namespaced", true}, {"shortNames", {"ct"}}, {"categories", {"all", "cron"}}},
  });
  for (const auto& entry : extra) entries.push_back(entry);
  api::ResourceTable table;
  for (auto& info : resources_from_json(entries)) table.add(std::move(info));
  return table;
}

std::vector<std::string> prefixes(const std::vector<api::ResourceInfo>& infos) {
  std::vector<std::string> out;
  for (const auto& info : infos) out.push_back(kind_prefix(info));
  return out;
}

TEST_CASE("category members come in discovery order, each resource once") {
  const auto table = discovered_table();
  std::vector<std::string> plurals;
  for (const auto* member : category_members(table, "all")) plurals.push_back(member->plural);
  CHECK(plurals == std::vector<std::string>{"pods", "services", "deployments", "horizontalpodautoscalers", "jobs",
                                            "crontabs"});
  // The first version listed is the one kept (the preferred one, as discovery lists it).
  CHECK(category_members(table, "all")[3]->version == "v2");
  CHECK(category_members(table, "cron").size() == 1);
  CHECK(category_members(table, "nothing").empty());
  // Categories are matched exactly, as kubectl's map lookup does.
  CHECK(category_members(table, "All").empty());
}

TEST_CASE("kw get all expands to the discovered kinds of the category") {
  const auto resolved = resolve_type(kinds::builtin_table(), discovered_table(), "all");
  CHECK(prefixes(resolved) == std::vector<std::string>{"pod", "service", "deployment.apps",
                                                       "horizontalpodautoscaler.autoscaling", "job.batch",
                                                       "crontab.stable.example.com"});
  // Built-in kinds come back as the client's own rows (columns, protobuf message); a CRD as
  // discovery describes it.
  REQUIRE(resolved.size() == 6);
  CHECK_FALSE(resolved[0].proto_message.empty());
  CHECK_FALSE(resolved[0].columns.empty());
  CHECK(resolved[5].proto_message.empty());
  CHECK(resolved[5].namespaced);
}

TEST_CASE("a category of the server's own is expanded too") {
  const auto resolved = resolve_type(kinds::builtin_table(), discovered_table(), "cron");
  CHECK(prefixes(resolved) == std::vector<std::string>{"crontab.stable.example.com"});
}

TEST_CASE("a resource name or short name wins over a category of the same name") {
  // A CRD in a category named like the pods short name does not hide pods.
  const json odd = json::array({{{"group", "odd.example.com"}, {"version", "v1"}, {"name", "widgets"},
                                 {"kind", "Widget"}, {"namespaced", true}, {"categories", {"po", "crontabs"}}}});
  const auto table = discovered_table(odd);
  CHECK(prefixes(resolve_type(kinds::builtin_table(), table, "po")) == std::vector<std::string>{"pod"});
  CHECK(prefixes(resolve_type(kinds::builtin_table(), table, "crontabs")) ==
        std::vector<std::string>{"crontab.stable.example.com"});
  // A resource called "all" is that resource, not the category.
  const json named_all = json::array({{{"group", "odd.example.com"}, {"version", "v1"}, {"name", "alls"},
                                       {"singularName", "all"}, {"kind", "All"}, {"namespaced", true}}});
  CHECK(prefixes(resolve_type(kinds::builtin_table(), discovered_table(named_all), "all")) ==
        std::vector<std::string>{"all.odd.example.com"});
}

TEST_CASE("a name that is neither a resource nor a category resolves to nothing") {
  CHECK(resolve_type(kinds::builtin_table(), discovered_table(), "nosuchthing").empty());
  CHECK(prefixes(resolve_type(kinds::builtin_table(), api::ResourceTable{}, "deploy")) ==
        std::vector<std::string>{"deployment.apps"});
}

TEST_CASE("categories survive the discovery cache") {
  const auto table = discovered_table();
  const auto again = resources_from_json(resources_to_json(table.all()));
  REQUIRE(again.size() == table.all().size());
  CHECK(again.back().categories == std::vector<std::string>{"all", "cron"});
}

}  // namespace
}  // namespace kw::cli
