#include "server/flowcontrol/config.hpp"

#include <algorithm>
#include <cmath>

#include "core/api/print_support.hpp"
#include "server/auth/service_account.hpp"

namespace kw::flowcontrol {
namespace {

using api::print::arr;
using api::print::at;
using api::print::num;
using api::print::str;
using nlohmann::json;

constexpr std::string_view k_service_account_prefix = "system:serviceaccount:";

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  for (const auto& item : arr(list)) out.push_back(str(item));
  return out;
}

Subject parse_subject(const json& subject) {
  const std::string kind = str(at(subject, {"kind"}));
  if (kind == "User") return {Subject::Kind::user, str(at(subject, {"user", "name"})), {}};
  if (kind == "Group") return {Subject::Kind::group, str(at(subject, {"group", "name"})), {}};
  if (kind == "ServiceAccount")
    return {Subject::Kind::service_account, str(at(subject, {"serviceAccount", "name"})),
            str(at(subject, {"serviceAccount", "namespace"}))};
  return {};
}

PolicyRules parse_rules(const json& rules) {
  PolicyRules out;
  for (const auto& subject : arr(at(rules, {"subjects"}))) out.subjects.push_back(parse_subject(subject));
  for (const auto& rule : arr(at(rules, {"resourceRules"})))
    out.resource_rules.push_back({strings(at(rule, {"verbs"})), strings(at(rule, {"apiGroups"})),
                                  strings(at(rule, {"resources"})), strings(at(rule, {"namespaces"})),
                                  at(rule, {"clusterScope"}) == true});
  for (const auto& rule : arr(at(rules, {"nonResourceRules"})))
    out.non_resource_rules.push_back({strings(at(rule, {"verbs"})), strings(at(rule, {"nonResourceURLs"}))});
  return out;
}

// kube's containsString: a lone wildcard takes everything, else an exact member.
bool contains(const std::string& x, const std::vector<std::string>& list, std::string_view wildcard) {
  if (list.size() == 1 && list[0] == wildcard) return true;
  return std::ranges::find(list, x) != list.end();
}

// serviceAccountMatchesNamespace: any service account of the namespace.
bool service_account_in_namespace(const std::string& ns, std::string_view user) {
  if (!user.starts_with(k_service_account_prefix)) return false;
  user.remove_prefix(k_service_account_prefix.size());
  if (!user.starts_with(ns)) return false;
  user.remove_prefix(ns.size());
  return user.starts_with(':');
}

bool matches_subject(const Subject& subject, const RequestDigest& request) {
  switch (subject.kind) {
    case Subject::Kind::user:
      return subject.name == "*" || subject.name == request.user;
    case Subject::Kind::group:
      return subject.name == "*" || std::ranges::find(request.groups, subject.name) != request.groups.end();
    case Subject::Kind::service_account:
      if (subject.name == "*") return service_account_in_namespace(subject.namespace_, request.user);
      return auth::service_account_user(subject.namespace_, subject.name) == request.user;
    case Subject::Kind::unknown:
      break;
  }
  return false;
}

bool matches_resource_rule(const ResourceRule& rule, const RequestDigest& request) {
  if (!contains(request.verb, rule.verbs, "*")) return false;
  const std::string resource =
      request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
  if (!contains(resource, rule.resources, "*")) return false;
  if (!contains(request.api_group, rule.api_groups, "*")) return false;
  if (request.namespace_.empty()) return rule.cluster_scope;
  return contains(request.namespace_, rule.namespaces, "*");
}

// matchPolicyRuleNonResourceURL: "*", the exact path, or a prefix ("/apis/*", and "/healthz"
// for "/healthz/etcd").
bool matches_url(const std::vector<std::string>& urls, const std::string& path) {
  for (const auto& url : urls) {
    if (url == "*" || url == path) return true;
    std::string prefix = url.ends_with('*') ? url.substr(0, url.size() - 1) : url;
    if (!prefix.ends_with('/')) prefix += '/';
    if (path.starts_with(prefix)) return true;
  }
  return false;
}

bool matches_policy(const PolicyRules& rules, const RequestDigest& request) {
  if (std::ranges::none_of(rules.subjects, [&](const Subject& s) { return matches_subject(s, request); }))
    return false;
  if (request.is_resource_request)
    return std::ranges::any_of(rules.resource_rules,
                               [&](const ResourceRule& r) { return matches_resource_rule(r, request); });
  return std::ranges::any_of(rules.non_resource_rules, [&](const NonResourceRule& r) {
    return contains(request.verb, r.verbs, "*") && matches_url(r.urls, request.path);
  });
}

int positive_or(const json& value, int fallback) {
  const auto n = num(value);
  return n > 0 ? static_cast<int>(std::min<std::int64_t>(n, 1 << 20)) : fallback;
}

}  // namespace

FlowSchema parse_flow_schema(const json& object) {
  FlowSchema out;
  out.name = str(at(object, {"metadata", "name"}));
  out.uid = str(at(object, {"metadata", "uid"}));
  const json& spec = at(object, {"spec"});
  if (const auto precedence = num(at(spec, {"matchingPrecedence"})); precedence > 0) out.matching_precedence = precedence;
  out.priority_level = str(at(spec, {"priorityLevelConfiguration", "name"}));
  const std::string method = str(at(spec, {"distinguisherMethod", "type"}));
  out.distinguisher = method == "ByUser"        ? Distinguisher::by_user
                      : method == "ByNamespace" ? Distinguisher::by_namespace
                                                : Distinguisher::none;
  for (const auto& rules : arr(at(spec, {"rules"}))) out.rules.push_back(parse_rules(rules));
  return out;
}

PriorityLevel parse_priority_level(const json& object) {
  PriorityLevel out;
  out.name = str(at(object, {"metadata", "name"}));
  out.uid = str(at(object, {"metadata", "uid"}));
  const json& spec = at(object, {"spec"});
  out.exempt = str(at(spec, {"type"})) == "Exempt";
  const json& limited = at(spec, {"limited"});
  if (const json& shares = at(limited, {"nominalConcurrencyShares"}); shares.is_number())
    out.nominal_concurrency_shares = std::max<std::int64_t>(0, num(shares));
  const json& response = at(limited, {"limitResponse"});
  out.queuing = str(at(response, {"type"})) == "Queue";
  if (out.queuing) {
    const json& queuing = at(response, {"queuing"});
    out.queues = positive_or(at(queuing, {"queues"}), 64);
    out.hand_size = std::min(positive_or(at(queuing, {"handSize"}), 8), out.queues);
    out.queue_length_limit = positive_or(at(queuing, {"queueLengthLimit"}), 50);
  }
  return out;
}

bool matches(const FlowSchema& schema, const RequestDigest& request) {
  return std::ranges::any_of(schema.rules, [&](const PolicyRules& rules) { return matches_policy(rules, request); });
}

void sort_for_matching(std::vector<FlowSchema>& schemas) {
  std::ranges::sort(schemas, [](const FlowSchema& a, const FlowSchema& b) {
    return a.matching_precedence != b.matching_precedence ? a.matching_precedence < b.matching_precedence
                                                          : a.name < b.name;
  });
}

const FlowSchema* first_match(const std::vector<FlowSchema>& sorted, const RequestDigest& request) {
  for (const auto& schema : sorted)
    if (matches(schema, request)) return &schema;
  return nullptr;
}

std::string flow_distinguisher(const FlowSchema& schema, const RequestDigest& request) {
  switch (schema.distinguisher) {
    case Distinguisher::by_user:
      return request.user;
    case Distinguisher::by_namespace:
      return request.namespace_;
    case Distinguisher::none:
      break;
  }
  return {};
}

int nominal_concurrency(int server_concurrency_limit, std::int64_t shares, std::int64_t share_sum) {
  if (share_sum <= 0) return 0;
  return static_cast<int>(std::ceil(static_cast<double>(server_concurrency_limit) * static_cast<double>(shares) /
                                    static_cast<double>(share_sum)));
}

}  // namespace kw::flowcontrol
