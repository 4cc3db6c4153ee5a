#pragma once
// What a ResourceQuota counts, resource by resource, as Kubernetes' quota evaluators count it:
// pods (compute resources, scopes, the "must specify" constraints), services (node ports, load
// balancers), persistent volume claims (storage, per StorageClass), and an object count for
// everything else ("count/deployments.apps", and the legacy "configmaps", "secrets",
// "replicationcontrollers", "resourcequotas"). The ResourceQuota admission plugin and kw's
// quota controller share these rules.
//
//   auto evaluator = quota::Evaluator::of("", "pods");
//   if (evaluator.handles("CREATE")) delta = evaluator.usage(pod, now);
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"
#include "server/quota/resource_list.hpp"

namespace kw::quota {

class Evaluator {
 public:
  // The rules for objects of `group`/`resource` ("" is the core group).
  static Evaluator of(std::string group, std::string resource);

  const std::string& group() const { return m_group; }
  const std::string& resource() const { return m_resource; }
  // Whether a write can change usage: every create; updates of services and claims.
  bool handles(std::string_view operation) const;
  // The names among `names` (a quota's hard resources) this evaluator counts.
  std::vector<std::string> matching_resources(const std::vector<std::string>& names) const;
  // Whether `object` is in a scope (a ScopedResourceSelectorRequirement). Only pods are in any.
  Result<bool> in_scope(const nlohmann::json& requirement, const nlohmann::json& object) const;
  // generic.Matches: the quota limits something this evaluator counts (by its status.hard) and
  // `object` is in every one of its scopes.
  Result<bool> matches(const nlohmann::json& quota, const nlohmann::json& object) const;
  // Constraints: "" when `object` meets them, else why ("must specify limits.cpu,requests.cpu":
  // a quota on cpu or memory needs every container of a pod to set them).
  std::string constraints(const std::vector<std::string>& required, const nlohmann::json& object) const;
  // The usage of one object at `now` (a pod past its deletion grace period counts only as an
  // object).
  ResourceList usage(const nlohmann::json& object, std::chrono::system_clock::time_point now) const;

 private:
  enum class Kind { pods, services, claims, count };
  Evaluator(std::string group, std::string resource, Kind kind, std::string alias);

  std::string m_group, m_resource;
  Kind m_kind;
  std::string m_count_name;  // "count/RESOURCE[.GROUP]"
  std::string m_alias;       // the legacy object-count name ("configmaps"), or ""
};

// A quota's scopes as requirements: each of spec.scopes (operator Exists), then the match
// expressions of spec.scopeSelector.
std::vector<nlohmann::json> scope_selectors(const nlohmann::json& quota);

// The evaluators of the resources `names` (a quota's hard resources) count something of: the
// built-in ones, and an object count per "count/RESOURCE.GROUP" name.
std::vector<Evaluator> evaluators_for(const std::vector<std::string>& names);

}  // namespace kw::quota
