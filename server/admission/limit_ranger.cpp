#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"
#include "server/quota/resource_list.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::GoQuantity;
using api::print::at;
using api::print::str;

using quota::ResourceList;
using quota::resource_list;

std::optional<GoQuantity> find(const ResourceList& list, const std::string& name) {
  const auto found = list.find(name);
  return found == list.end() ? std::nullopt : std::optional(found->second);
}

// requestLimitEnforcedValues: milli units unless one of them is too large for them.
struct Observed {
  std::int64_t request = 0, limit = 0, enforced = 0;
};
Observed observe(const std::optional<GoQuantity>& request, const std::optional<GoQuantity>& limit,
                 const GoQuantity& enforced) {
  constexpr std::int64_t k_max_milli = std::numeric_limits<std::int64_t>::max() / 1000;
  Observed o{request ? request->value() : 0, limit ? limit->value() : 0, enforced.value()};
  if (o.request <= k_max_milli && o.limit <= k_max_milli && o.enforced <= k_max_milli)
    o = {request ? request->milli_value() : 0, limit ? limit->milli_value() : 0, enforced.milli_value()};
  return o;
}

std::string usage(const char* bound, const std::string& resource, const std::string& type, const GoQuantity& enforced) {
  return std::string(bound) + " " + resource + " usage per " + type + " is " + enforced.string();
}

std::optional<std::string> min_constraint(const std::string& type, const std::string& resource, const GoQuantity& enforced,
                                          const ResourceList& requests, const ResourceList& limits) {
  const auto request = find(requests, resource), limit = find(limits, resource);
  const auto o = observe(request, limit, enforced);
  if (!request) return usage("minimum", resource, type, enforced) + ".  No request is specified";
  if (o.request < o.enforced) return usage("minimum", resource, type, enforced) + ", but request is " + request->string();
  if (limit && o.limit < o.enforced) return usage("minimum", resource, type, enforced) + ", but limit is " + limit->string();
  return std::nullopt;
}

std::optional<std::string> max_request_constraint(const std::string& type, const std::string& resource,
                                                  const GoQuantity& enforced, const ResourceList& requests) {
  const auto request = find(requests, resource);
  const auto o = observe(request, std::nullopt, enforced);
  if (!request) return usage("maximum", resource, type, enforced) + ".  No request is specified";
  if (o.request > o.enforced) return usage("maximum", resource, type, enforced) + ", but request is " + request->string();
  return std::nullopt;
}

std::optional<std::string> max_constraint(const std::string& type, const std::string& resource, const GoQuantity& enforced,
                                          const ResourceList& requests, const ResourceList& limits) {
  const auto request = find(requests, resource), limit = find(limits, resource);
  const auto o = observe(request, limit, enforced);
  if (!limit) return usage("maximum", resource, type, enforced) + ".  No limit is specified";
  if (o.limit > o.enforced) return usage("maximum", resource, type, enforced) + ", but limit is " + limit->string();
  if (request && o.request > o.enforced)
    return usage("maximum", resource, type, enforced) + ", but request is " + request->string();
  return std::nullopt;
}

std::optional<std::string> ratio_constraint(const std::string& type, const std::string& resource,
                                            const GoQuantity& enforced, const ResourceList& requests,
                                            const ResourceList& limits) {
  const auto request = find(requests, resource), limit = find(limits, resource);
  const auto o = observe(request, limit, enforced);
  const std::string head = resource + " max limit to request ratio per " + type + " is " + enforced.string();
  if (!request || o.request == 0) return head + ", but no request is specified or request is 0";
  if (!limit || o.limit == 0) return head + ", but no limit is specified or limit is 0";
  const double shown = static_cast<double>(o.limit) / static_cast<double>(o.request);
  double ratio = shown;
  double most = static_cast<double>(enforced.value());
  if (enforced.value() <= std::numeric_limits<std::int64_t>::max() / 1000) {
    ratio *= 1000;
    most = static_cast<double>(enforced.milli_value());
  }
  if (ratio <= most) return std::nullopt;
  char text[64];
  std::snprintf(text, sizeof text, "%f", shown);
  return head + ", but provided ratio is " + text;
}

// The sum over containers of each resource every one of them names (cpu in milli units).
ResourceList sum(const std::vector<ResourceList>& lists) {
  ResourceList out;
  if (lists.empty()) return out;
  for (const auto& [name, ignored] : lists.front()) {
    std::int64_t total = 0;
    bool everywhere = true;
    for (const auto& list : lists) {
      const auto q = find(list, name);
      if (!q) {
        everywhere = false;
        break;
      }
      total += name == "cpu" ? q->milli_value() : q->value();
    }
    if (everywhere) out.emplace(name, api::scaled_quantity(total, name == "cpu" ? -3 : 0));
  }
  return out;
}

struct Limit {
  std::string type;
  ResourceList min, max, ratio;
};

// Every bound of one Limit on a container's (or the pod's) requests and limits.
void check_bounds(const Limit& limit, const ResourceList& requests, const ResourceList& limits,
                  std::vector<std::string>& errors) {
  for (const auto& [name, q] : limit.min)
    if (auto e = min_constraint(limit.type, name, q, requests, limits)) errors.push_back(*e);
  for (const auto& [name, q] : limit.max)
    if (auto e = max_constraint(limit.type, name, q, requests, limits)) errors.push_back(*e);
  for (const auto& [name, q] : limit.ratio)
    if (auto e = ratio_constraint(limit.type, name, q, requests, limits)) errors.push_back(*e);
}

std::vector<const json*> containers(const json& pod, const char* list) {
  std::vector<const json*> out;
  if (const json& items = at(pod, {"spec", list}); items.is_array())
    for (const auto& c : items) out.push_back(&c);
  return out;
}

std::vector<std::string> pod_errors(const json& limit_range, const json& pod) {
  std::vector<std::string> errors;
  const json& limits = at(limit_range, {"spec", "limits"});
  if (!limits.is_array()) return errors;
  for (const auto& item : limits) {
    const Limit limit{str(at(item, {"type"})), resource_list(at(item, {"min"})), resource_list(at(item, {"max"})),
                      resource_list(at(item, {"maxLimitRequestRatio"}))};
    if (limit.type == "Container") {
      for (const char* list : {"containers", "initContainers"})
        for (const json* c : containers(pod, list))
          check_bounds(limit, resource_list(at(*c, {"resources", "requests"})),
                       resource_list(at(*c, {"resources", "limits"})), errors);
    } else if (limit.type == "Pod") {
      std::vector<ResourceList> requests, limits_of;
      for (const json* c : containers(pod, "containers")) {
        requests.push_back(resource_list(at(*c, {"resources", "requests"})));
        limits_of.push_back(resource_list(at(*c, {"resources", "limits"})));
      }
      ResourceList pod_requests = sum(requests), pod_limits = sum(limits_of);
      for (const json* c : containers(pod, "initContainers")) {  // max(sum of containers, any init container)
        for (auto [list, into] : {std::pair{"requests", &pod_requests}, std::pair{"limits", &pod_limits}})
          for (auto& [name, q] : resource_list(at(*c, {"resources", list})))
            if (auto held = into->find(name); held == into->end() || q.compare(held->second) > 0) (*into)[name] = q;
      }
      check_bounds(limit, pod_requests, pod_limits, errors);
    }
  }
  return errors;
}

std::vector<std::string> claim_errors(const json& limit_range, const json& claim) {
  std::vector<std::string> errors;
  const json& limits = at(limit_range, {"spec", "limits"});
  if (!limits.is_array()) return errors;
  const ResourceList requests = resource_list(at(claim, {"spec", "resources", "requests"}));
  for (const auto& item : limits) {
    const std::string type = str(at(item, {"type"}));
    if (type != "PersistentVolumeClaim") continue;
    for (const auto& [name, q] : resource_list(at(item, {"min"})))
      if (auto e = min_constraint(type, name, q, requests, {})) errors.push_back(*e);
    for (const auto& [name, q] : resource_list(at(item, {"max"})))
      if (auto e = max_request_constraint(type, name, q, requests)) errors.push_back(*e);
  }
  return errors;
}

// utilerrors.NewAggregate's text: the one error, or all of them in brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
  return out + "]";
}

// The LimitRanger's subjects: pods being created, claims being created or updated, never a
// subresource nor an object already being deleted.
bool subject(const registry::AdmissionRequest& r) {
  if (!r.subresource.empty() || !r.info.group.empty() || !r.object.is_object()) return false;
  if (r.old != nullptr && !at(*r.old, {"metadata", "deletionTimestamp"}).is_null()) return false;
  if (r.info.plural == "pods") return r.operation == "CREATE";
  return r.info.plural == "persistentvolumeclaims" && (r.operation == "CREATE" || r.operation == "UPDATE");
}

// One container's defaults: what it does not set itself, and the note kube writes about it.
void default_container(json& container, const json& requests, const json& limits, const std::string& what,
                       std::vector<std::string>& notes) {
  json& resources = container["resources"];
  for (auto [defaults, list, word] : {std::tuple{&requests, "requests", "request"}, std::tuple{&limits, "limits", "limit"}}) {
    std::vector<std::string> set;
    for (const auto& [name, value] : defaults->items()) {
      json& own = resources[list];
      if (!own.is_object()) own = json::object();
      if (own.contains(name)) continue;
      own[name] = value;
      set.push_back(name);
    }
    if (set.empty()) continue;
    std::ranges::sort(set);
    std::string note;
    for (const auto& name : set) note += (note.empty() ? "" : ", ") + name;
    notes.push_back(note + " " + word + " for " + what + " " + str(at(container, {"name"})));
  }
  for (const char* list : {"requests", "limits"})
    if (resources.contains(list) && resources[list].empty()) resources.erase(list);
}

}  // namespace

registry::AdmissionMutation limit_ranger_mutation(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& pod) -> registry::ApiResult<void> {
    if (!subject(r) || r.info.plural != "pods") return {};
    auto ranges = cached(registry, "", "v1", "limitranges", r.namespace_);
    if (!ranges) return std::unexpected(ranges.error());
    for (const auto& range : *ranges) {
      json requests = json::object(), limits = json::object();
      if (const json& items = at(range->object(), {"spec", "limits"}); items.is_array())
        for (const auto& item : items) {
          if (str(at(item, {"type"})) != "Container") continue;
          if (const json& d = at(item, {"defaultRequest"}); d.is_object()) requests.update(d);
          if (const json& d = at(item, {"default"}); d.is_object()) limits.update(d);
        }
      std::vector<std::string> notes;
      json& spec = pod["spec"];
      for (auto [list, what] : {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}})
        if (auto items = spec.find(list); items != spec.end() && items->is_array())
          for (auto& container : *items) default_container(container, requests, limits, what, notes);
      if (notes.empty()) continue;
      std::string text = "LimitRanger plugin set: ";
      for (std::size_t i = 0; i < notes.size(); ++i) text += (i ? "; " : "") + notes[i];
      pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] = text;
    }
    return {};
  };
}

registry::AdmissionCheck limit_ranger_check(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!subject(r)) return {};
    auto ranges = cached(registry, "", "v1", "limitranges", r.namespace_);
    if (!ranges) return std::unexpected(ranges.error());
    for (const auto& range : *ranges) {
      const auto errors = r.info.plural == "pods" ? pod_errors(range->object(), r.object) : claim_errors(range->object(), r.object);
      if (!errors.empty()) return std::unexpected(registry::admission_forbidden(r, aggregate(errors)));
    }
    return {};
  };
}

}  // namespace kw::admission
