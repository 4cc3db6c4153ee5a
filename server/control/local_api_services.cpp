#include "server/control/local_api_services.hpp"

#include <atomic>
#include <iostream>
#include <set>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/util/parallel.hpp"
#include "server/control/follow.hpp"
#include "server/control/work_queue.hpp"
#include "server/registry/kinds/api_priorities.hpp"

namespace kw::control {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_managed = "kube-aggregator.kubernetes.io/automanaged";
constexpr const char* k_on_start = "onstart";  // registered when the server starts
constexpr const char* k_always = "true";       // kept in step with the CRDs
constexpr const char* k_crds_key = "crds";
constexpr const char* k_status_prefix = "status/";

struct GroupVersion {
  std::string group, version;
  auto operator<=>(const GroupVersion&) const = default;
  std::string name() const { return version + "." + group; }
};

json desired_service(const GroupVersion& gv, kinds::ApiPriority priority, const char* mode) {
  return {{"apiVersion", "apiregistration.k8s.io/v1"},
          {"kind", "APIService"},
          {"metadata", {{"name", gv.name()}, {"labels", {{k_managed, mode}}}}},
          {"spec",
           {{"group", gv.group},
            {"version", gv.version},
            {"groupPriorityMinimum", priority.group},
            {"versionPriority", priority.version}}}};
}

// Whether `current` already is what `wanted` asks for (the fields registration owns).
bool up_to_date(const json& current, const json& wanted) {
  for (const char* field : {"group", "version", "groupPriorityMinimum", "versionPriority"})
    if (at(current, {"spec", field}) != at(wanted, {"spec", field})) return false;
  return at(current, {"spec", "service"}).is_null() &&
         str(at(current, {"metadata", "labels", k_managed})) == str(at(wanted, {"metadata", "labels", k_managed}));
}

bool locally_available(const json& service) {
  const json& conditions = at(service, {"status", "conditions"});
  if (!conditions.is_array()) return false;
  for (const auto& condition : conditions)
    if (str(at(condition, {"type"})) == "Available")
      return str(at(condition, {"status"})) == "True" && str(at(condition, {"reason"})) == "Local";
  return false;
}

}  // namespace

struct LocalApiServices::State {
  registry::Registry& registry;
  api::ResourceInfo services, definitions;
  WorkQueue queue{[this](const std::string& key) { return sync(key); }};
  std::vector<std::unique_ptr<registry::Informer>> informers;  // declared last: stopped first

  State(registry::Registry& r, api::ResourceInfo s, api::ResourceInfo d)
      : registry(r), services(std::move(s)), definitions(std::move(d)) {}

  bool report(const std::string& what, const registry::ApiError& error) const {
    std::cerr << "kw: cannot " << what << ": " << error.message << "\n";
    return false;
  }

  // Creates or corrects the APIService `wanted`; one without kube's label is the user's own
  // and stays as it is.
  bool ensure(const json& wanted) {
    const std::string name = str(at(wanted, {"metadata", "name"}));
    auto current = registry.get(services, "", name, "");
    if (!current && current.error().code != 404) return report("read APIService " + name, current.error());
    if (!current) {
      auto created = registry.create(services, "", wanted, {});
      return created || created.error().code == 409 || report("register APIService " + name, created.error());
    }
    if (!at(*current, {"metadata", "labels", k_managed}).is_string() || up_to_date(*current, wanted)) return true;
    auto updated = registry.update_with(
        services, "", name,
        [&](const json& now) -> registry::ApiResult<json> {
          json next = now;
          next["metadata"]["labels"][k_managed] = wanted["metadata"]["labels"][k_managed];
          next["spec"].update(wanted["spec"]);
          next["spec"]["service"] = nullptr;
          return next;
        },
        {});
    return updated || updated.error().code == 404 || report("update APIService " + name, updated.error());
  }

  // Removes the APIServices labelled `mode` that are not in `keep`.
  bool prune(const char* mode, const std::set<std::string>& keep) {
    auto listed = registry.list(services, {.label_selector = std::string(k_managed) + "=" + mode});
    if (!listed) return report("list APIServices", listed.error());
    bool ok = true;
    for (const auto& item : listed->items) {
      if (keep.contains(item->name)) continue;
      auto removed = registry.remove(services, "", item->name, json(), {});
      ok = (removed || removed.error().code == 404 || report("remove APIService " + item->name, removed.error())) && ok;
    }
    return ok;
  }

  bool register_builtin() {
    std::set<GroupVersion> served;
    const auto table = registry.resources();  // (held: the registry swaps tables as CRDs change)
    for (const auto& info : table->all())
      if (!info.custom) served.insert({info.group, info.version});
    std::set<std::string> names;
    std::vector<json> wanted;
    for (const auto& gv : served)
      if (auto priority = kinds::builtin_api_priority(gv.group, gv.version)) {
        names.insert(gv.name());
        wanted.push_back(desired_service(gv, *priority, k_on_start));
      }
    std::atomic<bool> ok{true};
    util::for_each_parallel(wanted, registry::k_start_up_writers, [&](const json& one) {
      if (!ensure(one)) ok = false;
    });
    return prune(k_on_start, names) && ok;
  }

  bool sync_definitions() {
    auto listed = registry.list(definitions, {.resource_version = "0"});
    if (!listed) return report("list CustomResourceDefinitions", listed.error());
    std::set<GroupVersion> served;
    for (const auto& item : listed->items) {
      const std::string group = str(at(item->object(), {"spec", "group"}));
      if (const json& versions = at(item->object(), {"spec", "versions"}); versions.is_array())
        for (const auto& version : versions)
          if (at(version, {"served"}) == json(true)) served.insert({group, str(at(version, {"name"}))});
    }
    std::set<std::string> names;
    bool ok = true;
    for (const auto& gv : served) {
      names.insert(gv.name());
      ok = ensure(desired_service(gv, kinds::k_custom_api_priority, k_always)) && ok;
    }
    return prune(k_always, names) && ok;
  }

  bool mark_available(const std::string& name) {
    auto updated = registry.update_with(
        services, "", name,
        [&](const json& now) -> registry::ApiResult<json> {
          if (!at(now, {"spec", "service"}).is_null() || locally_available(now)) return now;
          json next = now;
          json condition = {{"type", "Available"},
                            {"status", "True"},
                            {"lastTransitionTime", api::print::format_rfc3339(std::chrono::system_clock::now())},
                            {"reason", "Local"},
                            {"message", "Local APIServices are always available"}};
          json& conditions = next["status"]["conditions"];
          if (!conditions.is_array()) conditions = json::array();
          auto found = std::ranges::find_if(conditions, [](const json& c) { return str(at(c, {"type"})) == "Available"; });
          if (found != conditions.end()) *found = std::move(condition);
          else conditions.push_back(std::move(condition));
          return next;
        },
        {.subresource = "status"});
    return updated || updated.error().code == 404 || report("mark APIService " + name + " available", updated.error());
  }

  bool sync(const std::string& key) {
    if (key == k_crds_key) return sync_definitions();
    return mark_available(key.substr(std::string_view(k_status_prefix).size()));
  }
};

LocalApiServices::LocalApiServices(std::unique_ptr<State> state) : m_state(std::move(state)) {}

LocalApiServices::~LocalApiServices() { m_state->informers.clear(); }

Result<std::unique_ptr<LocalApiServices>> LocalApiServices::start(registry::Registry& registry) {
  const auto table = registry.resources();
  const auto* services = table->find_plural("apiregistration.k8s.io", "v1", "apiservices");
  const auto* definitions = table->find_plural("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  if (!services || !definitions) return fail("apiservices or customresourcedefinitions are not served");
  auto state = std::make_unique<State>(registry, *services, *definitions);
  State* s = state.get();
  s->register_builtin();  // what fails is reported; serving goes on, as kube-apiserver's does
  auto followed = follow(registry, *definitions, [s](cache::EventType, const cache::StoredObject&) {
    s->queue.add(k_crds_key);
  }, s->informers);
  if (followed)
    followed = follow(registry, *services, [s](cache::EventType type, const cache::StoredObject& o) {
      if (type == cache::EventType::deleted) {
        // An automanaged one deleted by hand comes back while a CRD serves it.
        if (str(at(o.object(), {"metadata", "labels", k_managed})) == k_always) s->queue.add(k_crds_key);
        return;
      }
      if (at(o.object(), {"spec", "service"}).is_null() && !locally_available(o.object()))
        s->queue.add(k_status_prefix + o.name);
    }, s->informers);
  if (!followed) return std::unexpected(followed.error());
  return std::unique_ptr<LocalApiServices>(new LocalApiServices(std::move(state)));
}

}  // namespace kw::control
