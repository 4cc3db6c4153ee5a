#include "server/http/handlers/handlers.hpp"

#include <algorithm>
#include <string_view>

#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::http::handlers {
namespace {

using Handler = void (*)(const ResourceRequest&);

struct VerbHandler {
  std::string_view verb;
  Handler handle;
};

// The verbs on the resource itself (watch, which needs the settings, is served apart).
constexpr VerbHandler k_resource_verbs[] = {
    {"get", get},       {"list", list},     {"create", create},          {"update", update},
    {"patch", patch},   {"delete", remove}, {"deletecollection", remove_collection},
};

// A subresource a row may name, and the verbs it takes. "status" is the object itself with
// writes limited to its status (the registry's strategy tells which fields).
struct Subresource {
  std::string_view name;
  VerbHandler verbs[4];
};

const Subresource k_subresources[] = {
    {"status", {{"get", get}, {"update", update}, {"patch", patch}}},
    {"approval", {{"get", get}, {"update", update}, {"patch", patch}}},
    {"ephemeralcontainers", {{"get", get}, {"update", update}, {"patch", patch}}},
    {"scale", {{"get", get_scale}, {"update", update_scale}, {"patch", patch_scale}}},
    {"binding", {{"create", bind}}},
    {"eviction", {{"create", evict}}},
    {"token", {{"create", request_token}}},
    {"finalize", {{"update", update}}},
};

template <std::size_t N>
Handler find(const VerbHandler (&verbs)[N], std::string_view verb) {
  for (const auto& v : verbs)
    if (v.handle && v.verb == verb) return v.handle;
  return nullptr;
}

}  // namespace

std::vector<std::string> subresource_verbs(std::string_view subresource) {
  std::vector<std::string> verbs;
  for (const auto& sub : k_subresources)
    if (sub.name == subresource)
      for (const auto& v : sub.verbs)
        if (v.handle) verbs.emplace_back(v.verb);
  std::ranges::sort(verbs);
  return verbs;
}

void serve(const ResourceRequest& r, const WatchSettings& settings) {
  const auto& info = r.info;
  if (info.verb.empty()) return r.fail(method_not_allowed());
  // kube-apiserver routes PUT and PATCH on an object's path only: on a collection they are 405.
  if (info.name.empty() && (info.verb == "update" || info.verb == "patch")) return r.fail(method_not_allowed());
  if (r.resource.namespaced && info.namespace_.empty() && info.verb != "list" && info.verb != "watch")
    return r.fail(registry::bad_request("the resource " + r.resource.plural + " is namespaced: a namespace is required"));
  // The storage key of a named object (kube's key functions): "." and "..", "/" and "%" are not
  // names, whatever the verb.
  if (!info.name.empty())
    if (const auto errors = kinds::path_segment_errors(info.name); !errors.empty()) {
      std::string why;
      for (const auto& error : errors) why += (why.empty() ? "" : ";") + error;
      return r.fail(registry::bad_request("Name parameter invalid: " + util::go_quote(info.name) + ": " + why));
    }
  if (info.subresource.empty()) {
    const auto& verbs = r.resource.verbs;
    if (!verbs.empty() && std::find(verbs.begin(), verbs.end(), info.verb) == verbs.end())
      return r.fail(method_not_allowed());
    if (const auto* row = kinds::find_kind(r.resource.group, r.resource.version, r.resource.plural)) {
      if (row->lifecycle == kinds::Lifecycle::review && info.verb == "create") return review(r);
      if (row->lifecycle == kinds::Lifecycle::binding && info.verb == "create") return bind(r);
      if (row->lifecycle == kinds::Lifecycle::computed)
        return info.verb == "get" ? get_component_status(r) : list_component_statuses(r);
    }
    if (info.verb == "watch") return watch(r, settings);
    const Handler handle = find(k_resource_verbs, info.verb);
    return handle ? handle(r) : r.fail(method_not_allowed());
  }
  for (const auto& sub : k_subresources)
    if (sub.name == info.subresource) {
      const Handler handle = find(sub.verbs, info.verb);
      return handle ? handle(r) : r.fail(method_not_allowed());
    }
  // A subresource a row names but no handler serves yet.
  r.fail(resource_not_found());
}

}  // namespace kw::http::handlers
