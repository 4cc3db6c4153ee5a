// flowcontrol.apiserver.k8s.io/v1: FlowSchema and PriorityLevelConfiguration (API priority and
// fairness), and the mandatory objects of that configuration.
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/flowcontrol_bootstrap.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

constexpr std::string_view k_api_version = "flowcontrol.apiserver.k8s.io/v1";
constexpr const char* k_preserve_zero_shares = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

// ---- the mandatory objects ---------------------------------------------------------------------

json mandatory_object(std::string_view kind, std::string_view name, json spec) {
  return {{"apiVersion", k_api_version},
          {"kind", kind},
          {"metadata", {{"name", name}, {"annotations", {{"apf.kubernetes.io/autoupdate-spec", "true"}}}}},
          {"spec", std::move(spec)}};
}

// A rule matching every request of the given group subjects.
json all_requests_of(std::initializer_list<std::string_view> groups) {
  json subjects = json::array();
  for (std::string_view group : groups) subjects.push_back({{"kind", "Group"}, {"group", {{"name", group}}}});
  return json::array({{{"subjects", subjects},
                       {"resourceRules", json::array({{{"verbs", {"*"}},
                                                       {"apiGroups", {"*"}},
                                                       {"resources", {"*"}},
                                                       {"clusterScope", true},
                                                       {"namespaces", {"*"}}}})},
                       {"nonResourceRules", json::array({{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}})}}});
}

std::vector<json> make_mandatory_objects() {
  return {
      mandatory_object("PriorityLevelConfiguration", "exempt",
                       {{"type", "Exempt"}, {"exempt", {{"nominalConcurrencyShares", 0}, {"lendablePercent", 0}}}}),
      mandatory_object(
          "PriorityLevelConfiguration", "catch-all",
          {{"type", "Limited"},
           {"limited",
            {{"nominalConcurrencyShares", 5}, {"lendablePercent", 0}, {"limitResponse", {{"type", "Reject"}}}}}}),
      mandatory_object("FlowSchema", "exempt",
                       {{"priorityLevelConfiguration", {{"name", "exempt"}}},
                        {"matchingPrecedence", 1},
                        {"rules", all_requests_of({"system:masters"})}}),
      mandatory_object("FlowSchema", "catch-all",
                       {{"priorityLevelConfiguration", {{"name", "catch-all"}}},
                        {"matchingPrecedence", 10000},
                        {"distinguisherMethod", {{"type", "ByUser"}}},
                        {"rules", all_requests_of({"system:unauthenticated", "system:authenticated"})}}),
  };
}

const json* mandatory_spec(std::string_view kind, std::string_view name) {
  for (const auto& o : flowcontrol_mandatory_objects())
    if (o["kind"] == kind && o["metadata"]["name"] == name) return &o["spec"];
  return nullptr;
}

// The value with what Go's semantic equality ignores taken out: nulls, false, "", and empty
// lists and objects.
json pruned(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : v.items()) {
      json p = pruned(value);
      if (!(p.is_null() || p == false || p == "" || ((p.is_array() || p.is_object()) && p.empty())))
        out[key] = std::move(p);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& item : v) out.push_back(pruned(item));
    return out;
  }
  return v;
}

// ---- printers ----------------------------------------------------------------------------------

Cells print_flow_schema(const json& o, TimePoint now) {
  const auto& method = at(o, {"spec", "distinguisherMethod"});
  const json& dangling = condition_of(o, "Dangling");
  const std::string missing = dangling.is_null() ? "?" : str(at(dangling, {"status"}));
  return {name_of(o),
          str(at(o, {"spec", "priorityLevelConfiguration", "name"})),
          num(at(o, {"spec", "matchingPrecedence"})),
          method.is_object() ? str(at(method, {"type"})) : std::string("<none>"),
          age_of(o, now),
          missing};
}

Cells print_priority_level(const json& o, TimePoint now) {
  json shares = "<none>", queues = "<none>", hand_size = "<none>", queue_length = "<none>";
  if (const auto& limited = at(o, {"spec", "limited"}); limited.is_object()) {
    shares = num(at(limited, {"nominalConcurrencyShares"}));
    if (const auto& q = at(limited, {"limitResponse", "queuing"}); q.is_object()) {
      queues = num(at(q, {"queues"}));
      hand_size = num(at(q, {"handSize"}));
      queue_length = num(at(q, {"queueLengthLimit"}));
    }
  }
  return {name_of(o), str(at(o, {"spec", "type"})), shares, queues, hand_size, queue_length, age_of(o, now)};
}

// ---- defaults ----------------------------------------------------------------------------------

// Zero and absent are the same for these non-pointer fields.
void set_if_zero(json& o, const char* key, int value) {
  if (!o.contains(key) || o[key].is_null() || o[key] == 0) o[key] = value;
}

void default_flow_schema(json& fs) { set_if_zero(object_member(fs, "spec"), "matchingPrecedence", 1000); }

void default_priority_level(json& pl) {
  auto& spec = object_member(pl, "spec");
  if (spec.contains("limited") && spec["limited"].is_object()) {
    auto& limited = spec["limited"];
    default_value(limited, "nominalConcurrencyShares", 30);
    default_value(limited, "lendablePercent", 0);
    if (auto& response = limited["limitResponse"];
        response.is_object() && response.contains("queuing") && response["queuing"].is_object()) {
      auto& queuing = response["queuing"];
      set_if_zero(queuing, "handSize", 8);
      set_if_zero(queuing, "queues", 64);
      set_if_zero(queuing, "queueLengthLimit", 50);
    } else if (response.is_null()) {
      limited.erase("limitResponse");
    }
  }
  if (spec.contains("exempt") && spec["exempt"].is_object()) {
    default_value(spec["exempt"], "nominalConcurrencyShares", 0);
    default_value(spec["exempt"], "lendablePercent", 0);
  }
}

// No status from the client.
void prepare_create(json& o) { o["status"] = json::object(); }

// ---- flow schemas ------------------------------------------------------------------------------

const std::set<std::string_view> k_verbs = {"create", "delete", "deletecollection", "get",  "list",
                                            "patch",  "proxy",  "update",           "watch"};

void validate_verbs(Causes& causes, const json& verbs, const std::string& path) {
  const auto& list = arr(verbs);
  if (list.empty()) return required(causes, path, "verbs must contain at least one value");
  if (contains_wildcard(list)) {
    if (list.size() > 1)
      invalid_rendered(causes, path, go_slice(list), "if '*' is present, must not specify other verbs");
    return;
  }
  for (const auto& verb : list)
    if (!k_verbs.contains(str(verb)))
      return unsupported_rendered(
          causes, path, go_slice(list),
          {"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"});
}

void validate_resource_rule(Causes& causes, const json& rule, const std::string& path) {
  validate_verbs(causes, at(rule, {"verbs"}), path + ".verbs");
  const auto& groups = arr(at(rule, {"apiGroups"}));
  if (groups.empty())
    required(causes, path + ".apiGroups", "resource rules must supply at least one api group");
  else if (groups.size() > 1 && contains_wildcard(groups))
    invalid_rendered(causes, path + ".apiGroups", go_slice(groups),
                     "if '*' is present, must not specify other api groups");
  const auto& resources = arr(at(rule, {"resources"}));
  if (resources.empty())
    required(causes, path + ".resources", "resource rules must supply at least one resource");
  else if (resources.size() > 1 && contains_wildcard(resources))
    invalid_rendered(causes, path + ".resources", go_slice(resources),
                     "if '*' is present, must not specify other resources");
  const auto& namespaces = arr(at(rule, {"namespaces"}));
  if (namespaces.empty() && at(rule, {"clusterScope"}) != true) {
    required(causes, path + ".namespaces",
             "resource rules that are not cluster scoped must supply at least one namespace");
  } else if (contains_wildcard(namespaces)) {
    if (namespaces.size() > 1)
      invalid_rendered(causes, path + ".namespaces", go_slice(namespaces),
                       "if '*' is present, must not specify other namespaces");
  } else {
    for (std::size_t i = 0; i < namespaces.size(); ++i)
      for (const auto& msg : dns1123_label_errors(str(namespaces[i])))
        invalid_value(causes, index_path(path + ".namespaces", i), namespaces[i],
                      "each member of this list must be '*' or a DNS-1123 label; " + msg);
  }
}

// ValidateNonResourceURLPath.
void validate_url_path(Causes& causes, const std::string& field, const std::string& path) {
  if (path.empty()) return invalid_value(causes, field, path, "must not be empty");
  if (path == "/") return;
  if (!path.starts_with("/")) return invalid_value(causes, field, path, "must start with slash");
  if (path.find(' ') != std::string::npos) return invalid_value(causes, field, path, "must not contain white-space");
  if (path.find("//") != std::string::npos) return invalid_value(causes, field, path, "must not contain double slash");
  const auto wildcards = std::ranges::count(path, '*');
  if (wildcards > 1 || (wildcards == 1 && !path.ends_with("/*")))
    invalid_value(causes, field, path, "wildcard can only do suffix matching");
}

void validate_non_resource_rule(Causes& causes, const json& rule, const std::string& path) {
  validate_verbs(causes, at(rule, {"verbs"}), path + ".verbs");
  const auto& urls = arr(at(rule, {"nonResourceURLs"}));
  if (urls.empty()) {
    required(causes, path + ".nonResourceURLs", "nonResourceURLs must contain at least one value");
  } else if (contains_wildcard(urls)) {
    if (urls.size() > 1)
      invalid_rendered(causes, path + ".nonResourceURLs", go_slice(urls),
                       "if '*' is present, must not specify other non-resource URLs");
  } else {
    for (std::size_t i = 0; i < urls.size(); ++i)
      validate_url_path(causes, index_path(path + ".nonResourceURLs", i), str(urls[i]));
  }
}

void validate_subject(Causes& causes, const json& subject, const std::string& path) {
  const std::string kind = str(at(subject, {"kind"}));
  const bool user = at(subject, {"user"}).is_object();
  const bool group = at(subject, {"group"}).is_object();
  const bool sa = at(subject, {"serviceAccount"}).is_object();
  const auto not_user = [&] {
    if (user) forbidden(causes, path + ".user", "user is forbidden when subject kind is not 'User'");
  };
  const auto not_group = [&] {
    if (group) forbidden(causes, path + ".group", "group is forbidden when subject kind is not 'Group'");
  };
  const auto not_sa = [&] {
    if (sa)
      forbidden(causes, path + ".serviceAccount",
                "serviceAccount is forbidden when subject kind is not 'ServiceAccount'");
  };
  if (kind == "ServiceAccount") {
    const auto& account = at(subject, {"serviceAccount"});
    if (!sa) {
      required(causes, path + ".serviceAccount", "serviceAccount is required when subject kind is 'ServiceAccount'");
    } else {
      const std::string name = str(at(account, {"name"}));
      if (name.empty())
        required(causes, path + ".serviceAccount.name");
      else if (name != "*")
        invalid_each(causes, path + ".serviceAccount.name", name, subdomain_errors(name));
      const std::string ns = str(at(account, {"namespace"}));
      if (ns.empty())
        required(causes, path + ".serviceAccount.namespace", "must specify namespace for service account");
      else
        invalid_each(causes, path + ".serviceAccount.namespace", ns, dns1123_label_errors(ns));
    }
    not_user();
    not_group();
  } else if (kind == "User") {
    if (!user)
      required(causes, path + ".user", "user is required when subject kind is 'User'");
    else if (str(at(subject, {"user", "name"})).empty())
      required(causes, path + ".user.name");
    not_sa();
    not_group();
  } else if (kind == "Group") {
    if (!group)
      required(causes, path + ".group", "group is required when subject kind is 'Group'");
    else if (str(at(subject, {"group", "name"})).empty())
      required(causes, path + ".group.name");
    not_sa();
    not_user();
  } else {
    unsupported(causes, path + ".kind", kind, {"Group", "ServiceAccount", "User"});
  }
}

void validate_rules(Causes& causes, const json& rule, const std::string& path) {
  const auto& subjects = arr(at(rule, {"subjects"}));
  if (subjects.empty()) required(causes, path + ".subjects", "subjects must contain at least one value");
  for (std::size_t i = 0; i < subjects.size(); ++i)
    validate_subject(causes, subjects[i], index_path(path + ".subjects", i));
  const auto& resource_rules = arr(at(rule, {"resourceRules"}));
  const auto& non_resource_rules = arr(at(rule, {"nonResourceRules"}));
  if (resource_rules.empty() && non_resource_rules.empty())
    required(causes, path, "at least one of resourceRules and nonResourceRules has to be non-empty");
  for (std::size_t i = 0; i < resource_rules.size(); ++i)
    validate_resource_rule(causes, resource_rules[i], index_path(path + ".resourceRules", i));
  for (std::size_t i = 0; i < non_resource_rules.size(); ++i)
    validate_non_resource_rule(causes, non_resource_rules[i], index_path(path + ".nonResourceRules", i));
}

// The conditions of either kind's status: types set and unique.
void validate_status_conditions(Causes& causes, const json& o) {
  const auto& conditions = arr(at(o, {"status", "conditions"}));
  std::set<std::string> types;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string field = index_path("status.conditions", i);
    const std::string type = str(at(conditions[i], {"type"}));
    if (!types.insert(type).second) duplicate(causes, field + ".type", type);
    if (type.empty()) required(causes, field + ".type", "must not be empty");
  }
}

void validate_flow_schema(const json& fs, Causes& causes) {
  const auto& spec = at(fs, {"spec"});
  const std::string name = name_of(fs);
  const auto& precedence = at(spec, {"matchingPrecedence"});
  const std::int64_t p = num(precedence);
  if (p <= 0) invalid_value(causes, "spec.matchingPrecedence", p, "must be a positive value");
  if (p > 10000) invalid_value(causes, "spec.matchingPrecedence", p, "must not be greater than 10000");
  if (p == 1 && name != "exempt")
    invalid_value(causes, "spec.matchingPrecedence", p, "only the schema named 'exempt' may have matchingPrecedence 1");
  if (const auto& method = at(spec, {"distinguisherMethod"}); method.is_object()) {
    const std::string type = str(at(method, {"type"}));
    if (type != "ByNamespace" && type != "ByUser")
      unsupported_rendered(causes, "spec.distinguisherMethod.type",
                           "flowcontrol.FlowDistinguisherMethod{Type:" + go_quoted(type) + "}",
                           {"ByNamespace", "ByUser"});
  }
  const std::string level = str(at(spec, {"priorityLevelConfiguration", "name"}));
  if (level.empty())
    required(causes, "spec.priorityLevelConfiguration.name", "must reference a priority level");
  else
    invalid_each(causes, "spec.priorityLevelConfiguration.name", level, subdomain_errors(level));
  const auto& rules = arr(at(spec, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i) validate_rules(causes, rules[i], index_path("spec.rules", i));
  if (const json* fixed = mandatory_spec("FlowSchema", name); fixed && pruned(spec) != pruned(*fixed))
    invalid_value(causes, "spec", spec, "spec of '" + name + "' must equal the fixed value");
  validate_status_conditions(causes, fs);
}

// ---- priority levels ---------------------------------------------------------------------------

void validate_queuing(Causes& causes, const json& q, const std::string& path) {
  const std::int64_t length = num(at(q, {"queueLengthLimit"}));
  const std::int64_t queues = num(at(q, {"queues"}));
  const std::int64_t hand = num(at(q, {"handSize"}));
  if (length <= 0) invalid_value(causes, path + ".queueLengthLimit", length, "must be positive");
  if (queues <= 0)
    invalid_value(causes, path + ".queues", queues, "must be positive");
  else if (queues > 10'000'000)
    invalid_value(causes, path + ".queues", queues, "must not be greater than 10000000");
  if (hand <= 0) {
    invalid_value(causes, path + ".handSize", hand, "must be positive");
  } else if (hand > queues) {
    invalid_value(causes, path + ".handSize", hand,
                  "should not be greater than queues (" + std::to_string(queues) + ")");
  } else if (std::ceil(std::log2(static_cast<double>(queues)) * static_cast<double>(hand)) > 60) {
    invalid_value(causes, path + ".handSize", hand,
                  "required entropy bits of deckSize " + std::to_string(queues) + " and handSize " +
                      std::to_string(hand) + " should not be greater than 60");
  }
}

void validate_limit_response(Causes& causes, const json& response, const std::string& path) {
  const std::string type = str(at(response, {"type"}));
  const auto& queuing = at(response, {"queuing"});
  if (type == "Reject") {
    if (queuing.is_object())
      forbidden(causes, path + ".queuing", "must be nil if limited.limitResponse.type is not Limited");
  } else if (type == "Queue") {
    if (!queuing.is_object())
      required(causes, path + ".queuing", "must not be empty if limited.limitResponse.type is Limited");
    else
      validate_queuing(causes, queuing, path + ".queuing");
  } else {
    unsupported(causes, path + ".type", type, {"Queue", "Reject"});
  }
}

void validate_lendable(Causes& causes, const json& value, const std::string& field) {
  if (value.is_number() && (num(value) < 0 || num(value) > 100))
    invalid_value(causes, field, value, "must be between 0 and 100, inclusive");
}

void validate_priority_level(const json& pl, Causes& causes) {
  const std::string name = name_of(pl);
  if (at(pl, {"metadata", "annotations"}).contains(k_preserve_zero_shares))
    forbidden(causes, "metadata.annotations", std::string("annotation '") + k_preserve_zero_shares + "' is forbidden");
  const auto& spec = at(pl, {"spec"});
  const std::string type = str(at(spec, {"type"}));
  if ((name == "exempt") != (type == "Exempt"))
    invalid_value(causes, "spec.type", type, "type must be 'Exempt' if and only if name is 'exempt'");
  const auto& limited = at(spec, {"limited"});
  const auto& exempt = at(spec, {"exempt"});
  if (type == "Exempt") {
    if (limited.is_object()) forbidden(causes, "spec.limited", "must be nil if the type is not Limited");
    if (exempt.is_object()) {
      const auto& shares = at(exempt, {"nominalConcurrencyShares"});
      if (shares.is_number() && num(shares) < 0)
        invalid_value(causes, "spec.exempt.nominalConcurrencyShares", shares, "must be a non-negative number");
      validate_lendable(causes, at(exempt, {"lendablePercent"}), "spec.exempt.lendablePercent");
    }
  } else if (type == "Limited") {
    if (exempt.is_object()) forbidden(causes, "spec.exempt", "must be nil if the type is Limited");
    if (!limited.is_object()) {
      required(causes, "spec.limited", "must not be empty when type is Limited");
    } else {
      const std::int64_t shares = num(at(limited, {"nominalConcurrencyShares"}));
      if (shares <= 0) invalid_value(causes, "spec.limited.nominalConcurrencyShares", shares, "must be positive");
      validate_limit_response(causes, at(limited, {"limitResponse"}), "spec.limited.limitResponse");
      validate_lendable(causes, at(limited, {"lendablePercent"}), "spec.limited.lendablePercent");
      const auto& borrowing = at(limited, {"borrowingLimitPercent"});
      if (borrowing.is_number() && num(borrowing) < 0)
        invalid_value(causes, "spec.limited.borrowingLimitPercent", borrowing,
                      "if specified, must be a non-negative integer");
    }
  } else {
    unsupported(causes, "spec.type", type, {"Exempt", "Limited"});
  }
  // The mandatory levels are fixed, but for the exempt level's spec.exempt.
  if (const json* fixed = mandatory_spec("PriorityLevelConfiguration", name)) {
    json have = pruned(spec), want = pruned(*fixed);
    if (name == "exempt") {
      have.erase("exempt");
      want.erase("exempt");
    }
    if (have != want)
      invalid_value(causes, "spec", spec,
                    "spec of '" + name + (name == "exempt" ? "' except the 'spec.exempt' field" : "'") +
                        " must equal the fixed value");
  }
  validate_status_conditions(causes, pl);
}

// ---- rows --------------------------------------------------------------------------------------

// The status strategies keep all of the stored metadata but managedFields.
const std::vector<std::string> k_all_but_managed_fields = {"generateName",
                                                           "selfLink",
                                                           "uid",
                                                           "creationTimestamp",
                                                           "generation",
                                                           "deletionTimestamp",
                                                           "deletionGracePeriodSeconds",
                                                           "labels",
                                                           "annotations",
                                                           "ownerReferences",
                                                           "finalizers"};

KindSpec flow_schema_row() {
  return {.info = {.group = "flowcontrol.apiserver.k8s.io",
                   .version = "v1",
                   .kind = "FlowSchema",
                   .plural = "flowschemas",
                   .namespaced = false,
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("PriorityLevel", "string",
                                   "name is the name of the priority level configuration being referenced Required."),
                               col("MatchingPrecedence", "string",
                                   "matchingPrecedence is used to choose among the FlowSchemas that match a given "
                                   "request. The chosen FlowSchema is among those with the numerically lowest (which "
                                   "we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence "
                                   "value must be ranged in [1,10000]. Note that if the precedence is not specified, "
                                   "it will be set to 1000 as default."),
                               col("DistinguisherMethod", "string",
                                   "distinguisherMethod defines how to compute the flow distinguisher for requests "
                                   "that match this schema. `nil` specifies that the distinguisher is disabled and "
                                   "thus will always be the empty string."),
                               age_col(),
                               col("MissingPL", "string",
                                   "references a broken or non-existent PriorityLevelConfiguration")},
                   .printer = print_flow_schema},
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = k_all_but_managed_fields,
          .strategy = {
              .defaults = default_flow_schema, .prepare_create = prepare_create, .validate = validate_flow_schema}};
}

KindSpec priority_level_row() {
  return {
      .info = {.group = "flowcontrol.apiserver.k8s.io",
               .version = "v1",
               .kind = "PriorityLevelConfiguration",
               .plural = "prioritylevelconfigurations",
               .namespaced = false,
               .subresources = {"status"},
               .columns = {name_col(),
                           col("Type", "string",
                               "type indicates whether this priority level is subject to limitation on request "
                               "execution.  A value of `\"Exempt\"` means that requests of this priority level "
                               "are not subject to a limit (and thus are never queued) and do not detract from "
                               "the capacity made available to other priority levels.  A value of "
                               "`\"Limited\"` means that (a) requests of this priority level _are_ subject to "
                               "limits and (b) some of the server's limited capacity is made available "
                               "exclusively to this priority level. Required."),
                           col("NominalConcurrencyShares", "string",
                               "nominalConcurrencyShares (NCS) contributes to the computation of the "
                               "NominalConcurrencyLimit (NominalCL) of this level. This is the number of "
                               "execution seats available at this priority level. This is used both for "
                               "requests dispatched from this priority level as well as requests dispatched "
                               "from other priority levels borrowing seats from this level. The server's "
                               "concurrency limit (ServerCL) is divided among the Limited priority levels in "
                               "proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / "
                               "sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger "
                               "nominal concurrency limit, at the expense of every other priority level.\n\nIf "
                               "not specified, this field defaults to a value of 30.\n\nSetting this field to "
                               "zero supports the construction of a \"jail\" for this priority level that is "
                               "used to hold some request(s)"),
                           col("Queues", "string",
                               "queues is the number of queues for this priority level. The queues exist "
                               "independently at each apiserver. The value must be positive.  Setting it to 1 "
                               "effectively precludes shufflesharding and thus makes the distinguisher method "
                               "of associated flow schemas irrelevant.  This field has a default value of 64."),
                           col("HandSize", "string",
                               "handSize is a small positive number that configures the shuffle sharding of "
                               "requests into queues.  When enqueuing a request at this priority level the "
                               "request's flow identifier (a string pair) is hashed and the hash value is used "
                               "to shuffle the list of queues and deal a hand of the size specified here.  The "
                               "request is put into one of the shortest queues in that hand. `handSize` must "
                               "be no larger than `queues`, and should be significantly smaller (so that a few "
                               "heavy flows do not saturate most of the queues).  See the user-facing "
                               "documentation for more extensive guidance on setting this field.  This field "
                               "has a default value of 8."),
                           col("QueueLengthLimit", "string",
                               "queueLengthLimit is the maximum number of requests allowed to be waiting in a "
                               "given queue of this priority level at a time; excess requests are rejected.  "
                               "This value must be positive.  If not specified, it will be defaulted to 50."),
                           age_col()},
               .printer = print_priority_level},
      .generation = std::vector<std::string>{"spec"},
      .status_keeps_meta = k_all_but_managed_fields,
      .strategy = {
          .defaults = default_priority_level, .prepare_create = prepare_create, .validate = validate_priority_level}};
}

}  // namespace

const std::vector<json>& flowcontrol_mandatory_objects() {
  static const std::vector<json> k_objects = make_mandatory_objects();
  return k_objects;
}

namespace {

std::vector<json> mandatory_of_kind(std::string_view kind) {
  std::vector<json> out;
  for (const auto& o : flowcontrol_mandatory_objects())
    if (o["kind"] == kind) out.push_back(o);
  for (const auto& o : flowcontrol_suggested_objects())
    if (o["kind"] == kind) out.push_back(o);
  return out;
}

// The objects created at start-up when missing: the mandatory ones, then the suggested ones.
std::vector<json> mandatory_flow_schemas() { return mandatory_of_kind("FlowSchema"); }
std::vector<json> mandatory_priority_levels() { return mandatory_of_kind("PriorityLevelConfiguration"); }

}  // namespace

std::vector<KindSpec> flowcontrol_v1_kinds() {
  auto flow_schemas = flow_schema_row();
  flow_schemas.bootstrap = mandatory_flow_schemas;
  auto priority_levels = priority_level_row();
  priority_levels.bootstrap = mandatory_priority_levels;
  return {std::move(flow_schemas), std::move(priority_levels)};
}

}  // namespace kw::kinds
