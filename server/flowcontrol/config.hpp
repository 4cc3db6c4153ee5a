#pragma once
// API priority and fairness configuration as the filter reads it: FlowSchemas and
// PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1) turned into value types, the
// matching of a request against them (kube's apiserver/pkg/util/flowcontrol/rule.go) and the
// nominal concurrency of each limited level. Pure functions, no locks.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::flowcontrol {

// What a FlowSchema sees of a request (kube's RequestDigest: RequestInfo and user).
struct RequestDigest {
  bool is_resource_request = false;
  std::string verb;         // get list watch create ...; a non-resource request: the method in lower case
  std::string api_group;
  std::string resource;
  std::string subresource;
  std::string namespace_;   // "" for a cluster-scoped request
  std::string path;         // non-resource requests
  std::string user;
  std::vector<std::string> groups;
};

struct Subject {
  enum class Kind { user, group, service_account, unknown } kind = Kind::unknown;
  std::string name;        // "*" = every name
  std::string namespace_;  // service accounts
};

struct ResourceRule {
  std::vector<std::string> verbs, api_groups, resources, namespaces;
  bool cluster_scope = false;
};

struct NonResourceRule {
  std::vector<std::string> verbs, urls;
};

struct PolicyRules {
  std::vector<Subject> subjects;
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
};

enum class Distinguisher { none, by_user, by_namespace };

struct FlowSchema {
  std::string name;
  std::string uid;
  std::int64_t matching_precedence = 1000;
  std::string priority_level;
  Distinguisher distinguisher = Distinguisher::none;
  std::vector<PolicyRules> rules;
};

struct PriorityLevel {
  std::string name;
  std::string uid;
  bool exempt = false;
  std::int64_t nominal_concurrency_shares = 30;
  bool queuing = false;  // limitResponse Queue (else Reject)
  int queues = 64;
  int hand_size = 8;
  int queue_length_limit = 50;
};

// A stored object (defaulted as the registry stores it) as a value; tolerant of missing fields.
FlowSchema parse_flow_schema(const nlohmann::json& object);
PriorityLevel parse_priority_level(const nlohmann::json& object);

// Whether the schema's rules take the request (kube's matchesFlowSchema).
bool matches(const FlowSchema& schema, const RequestDigest& request);

// Matching order: lowest matchingPrecedence first, ties by name.
void sort_for_matching(std::vector<FlowSchema>& schemas);

// The first schema in `sorted` that matches, or null.
const FlowSchema* first_match(const std::vector<FlowSchema>& sorted, const RequestDigest& request);

// The flow a request belongs to within its schema (ByUser: the user, ByNamespace: the namespace).
std::string flow_distinguisher(const FlowSchema& schema, const RequestDigest& request);

// kube's seats for a limited level: ceil(serverConcurrencyLimit * shares / sum of the limited
// levels' shares). 0 when there are no shares at all.
int nominal_concurrency(int server_concurrency_limit, std::int64_t shares, std::int64_t share_sum);

}  // namespace kw::flowcontrol
