#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <thread>

#include "server/flowcontrol/config.hpp"
#include "server/flowcontrol/fair_queuing.hpp"
#include "server/flowcontrol/flow_control.hpp"
#include "server/registry/kinds/flowcontrol_bootstrap.hpp"
#include "support/recording_stream.hpp"

using nlohmann::json;
using namespace kw::flowcontrol;

namespace {

std::vector<json> bootstrap_of(std::string_view kind) {
  std::vector<json> out;
  for (const auto* objects : {&kw::kinds::flowcontrol_mandatory_objects(), &kw::kinds::flowcontrol_suggested_objects()})
    for (const auto& object : *objects)
      if (object["kind"] == kind) {
        out.push_back(object);
        out.back()["metadata"]["uid"] = "uid-" + object["metadata"]["name"].get<std::string>();
      }
  return out;
}

std::vector<FlowSchema> bootstrap_schemas() {
  std::vector<FlowSchema> schemas;
  for (const auto& object : bootstrap_of("FlowSchema")) schemas.push_back(parse_flow_schema(object));
  sort_for_matching(schemas);
  return schemas;
}

RequestDigest resource(std::string user, std::vector<std::string> groups, std::string verb, std::string group,
                       std::string resource, std::string ns, std::string subresource = "") {
  return {.is_resource_request = true,
          .verb = std::move(verb),
          .api_group = std::move(group),
          .resource = std::move(resource),
          .subresource = std::move(subresource),
          .namespace_ = std::move(ns),
          .path = {},
          .user = std::move(user),
          .groups = std::move(groups)};
}

RequestDigest non_resource(std::string verb, std::string path, std::string user, std::vector<std::string> groups) {
  RequestDigest digest;
  digest.verb = std::move(verb);
  digest.path = std::move(path);
  digest.user = std::move(user);
  digest.groups = std::move(groups);
  return digest;
}

std::string classify(const RequestDigest& digest) {
  static const auto schemas = bootstrap_schemas();
  const auto* schema = first_match(schemas, digest);
  return schema ? schema->name : "";
}

}  // namespace

TEST_CASE("the bootstrap FlowSchemas classify requests as kube-apiserver's do") {
  const std::vector<std::string> authenticated = {"system:authenticated"};
  const std::vector<std::string> node = {"system:nodes", "system:authenticated"};
  CHECK(classify(resource("admin", {"system:masters", "system:authenticated"}, "list", "", "pods", "")) == "exempt");
  CHECK(classify(resource("system:node:n1", node, "update", "coordination.k8s.io", "leases", "kube-node-lease")) ==
        "system-node-high");
  CHECK(classify(resource("system:node:n1", node, "patch", "", "nodes", "", "status")) == "system-node-high");
  CHECK(classify(resource("system:node:n1", node, "list", "", "pods", "")) == "system-nodes");
  CHECK(classify(resource("system:kube-scheduler", authenticated, "create", "", "pods", "default", "binding")) ==
        "kube-scheduler");
  CHECK(classify(resource("system:kube-scheduler", authenticated, "update", "coordination.k8s.io", "leases",
                          "kube-system")) == "system-leader-election");
  CHECK(classify(resource("system:serviceaccount:kube-system:job-controller",
                          {"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
                          "list", "batch", "jobs", "")) == "kube-system-service-accounts");
  CHECK(classify(resource("system:serviceaccount:team:app",
                          {"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}, "list",
                          "", "configmaps", "team")) == "service-accounts");
  CHECK(classify(resource("alice", authenticated, "list", "", "configmaps", "default")) == "global-default");
  auto probe = non_resource("get", "/readyz", "system:anonymous", {"system:unauthenticated"});
  CHECK(classify(probe) == "probes");
  probe.path = "/metrics";
  CHECK(classify(probe) == "global-default");
}

TEST_CASE("subjects, resource rules and non-resource rules match as kube's rule.go does") {
  const json object = {
      {"metadata", {{"name", "s"}, {"uid", "u"}}},
      {"spec",
       {{"priorityLevelConfiguration", {{"name", "pl"}}},
        {"distinguisherMethod", {{"type", "ByNamespace"}}},
        {"rules",
         {{{"subjects",
            {{{"kind", "ServiceAccount"}, {"serviceAccount", {{"namespace", "ns"}, {"name", "*"}}}},
             {{"kind", "ServiceAccount"}, {"serviceAccount", {{"namespace", "other"}, {"name", "one"}}}},
             {{"kind", "User"}, {"user", {{"name", "bob"}}}}}},
           {"resourceRules",
            {{{"verbs", {"get", "list"}},
              {"apiGroups", {"apps"}},
              {"resources", {"deployments", "deployments/scale"}},
              {"namespaces", {"team"}}}}},
           {"nonResourceRules", {{{"verbs", {"*"}}, {"nonResourceURLs", {"/apis/*", "/healthz"}}}}}}}}}}};
  const auto schema = parse_flow_schema(object);
  CHECK(schema.matching_precedence == 1000);
  CHECK(schema.distinguisher == Distinguisher::by_namespace);
  auto request = resource("system:serviceaccount:ns:x", {}, "get", "apps", "deployments", "team");
  CHECK(matches(schema, request));
  CHECK(flow_distinguisher(schema, request) == "team");
  request.user = "system:serviceaccount:nsx:x";  // another namespace that only starts alike
  CHECK_FALSE(matches(schema, request));
  request.user = "system:serviceaccount:other:one";
  CHECK(matches(schema, request));
  request.user = "system:serviceaccount:other:two";
  CHECK_FALSE(matches(schema, request));
  request.user = "bob";
  request.subresource = "scale";
  CHECK(matches(schema, request));
  request.subresource = "status";
  CHECK_FALSE(matches(schema, request));
  request.subresource.clear();
  request.verb = "delete";
  CHECK_FALSE(matches(schema, request));
  request.verb = "list";
  request.namespace_.clear();  // cluster scope was not asked for
  CHECK_FALSE(matches(schema, request));
  request.namespace_ = "elsewhere";
  CHECK_FALSE(matches(schema, request));

  auto path = non_resource("post", "/apis/x", "bob", {});
  CHECK(matches(schema, path));
  path.path = "/healthz/etcd";
  CHECK(matches(schema, path));
  path.path = "/healthzx";
  CHECK_FALSE(matches(schema, path));
  path.path = "/api";
  CHECK_FALSE(matches(schema, path));
}

TEST_CASE("FlowSchemas are tried by matchingPrecedence, then by name") {
  auto make = [](std::string name, int precedence) {
    return parse_flow_schema({{"metadata", {{"name", name}}},
                              {"spec",
                               {{"matchingPrecedence", precedence},
                                {"priorityLevelConfiguration", {{"name", "pl"}}},
                                {"rules",
                                 {{{"subjects", {{{"kind", "Group"}, {"group", {{"name", "*"}}}}}},
                                   {"nonResourceRules", {{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}}}}}}}}});
  };
  std::vector<FlowSchema> schemas = {make("b", 50), make("z", 10), make("a", 50)};
  sort_for_matching(schemas);
  CHECK(schemas[0].name == "z");
  CHECK(schemas[1].name == "a");
  CHECK(schemas[2].name == "b");
  const auto any = non_resource("get", "/x", "u", {});
  CHECK(first_match(schemas, any)->name == "z");
}

TEST_CASE("seats: a limited level's nominal concurrency is its ceiled share of the server's") {
  std::int64_t sum = 0;
  std::map<std::string, std::int64_t> shares;
  for (const auto& object : bootstrap_of("PriorityLevelConfiguration")) {
    const auto level = parse_priority_level(object);
    if (level.exempt) continue;
    shares[level.name] = level.nominal_concurrency_shares;
    sum += level.nominal_concurrency_shares;
  }
  CHECK(sum == 245);
  CHECK(nominal_concurrency(600, shares["catch-all"], sum) == 13);
  CHECK(nominal_concurrency(600, shares["system"], sum) == 74);
  CHECK(nominal_concurrency(600, shares["node-high"], sum) == 98);
  CHECK(nominal_concurrency(600, shares["leader-election"], sum) == 25);
  CHECK(nominal_concurrency(600, shares["workload-high"], sum) == 98);
  CHECK(nominal_concurrency(600, shares["workload-low"], sum) == 245);
  CHECK(nominal_concurrency(600, shares["global-default"], sum) == 49);
  CHECK(nominal_concurrency(600, 0, 0) == 0);
}

TEST_CASE("shuffle sharding deals distinct cards as kube's Dealer does") {
  CHECK(deal_hand(0, 10, 3) == std::vector<int>{0, 1, 2});
  CHECK(deal_hand(13, 5, 2) == std::vector<int>{3, 2});
  for (std::uint64_t hash : {1ULL, 977ULL, 0xdeadbeefcafef00dULL, ~0ULL}) {
    const auto hand = deal_hand(hash, 128, 6);
    REQUIRE(hand.size() == 6);
    CHECK(std::set<int>(hand.begin(), hand.end()).size() == 6);
    CHECK(std::ranges::all_of(hand, [](int card) { return card >= 0 && card < 128; }));
  }
  // kube's hashFlowID: SHA-256 of "schema\0distinguisher", first 8 bytes little-endian.
  CHECK(hash_flow("global-default", "alice") == 17644606172554983095ULL);
  CHECK(hash_flow("global-default", "alice") != hash_flow("global-default", "bob"));
}

TEST_CASE("a queue set runs up to its seats, queues fairly, refuses full queues and expired waits") {
  const auto t0 = Clock::now();
  SUBCASE("reject: no queues") {
    QueueSet set({.concurrency_limit = 1, .queues = 0, .hand_size = 1, .queue_length_limit = 0});
    CHECK(set.arrive(1, 0, t0) == QueueSet::Outcome::execute);
    CHECK(set.arrive(2, 0, t0) == QueueSet::Outcome::reject);
    set.finish();
    CHECK(set.arrive(3, 0, t0) == QueueSet::Outcome::execute);
  }
  SUBCASE("queue: one flow's backlog does not hold another flow back") {
    QueueSet set({.concurrency_limit = 1, .queues = 2, .hand_size = 1, .queue_length_limit = 3});
    CHECK(set.arrive(1, 0, t0) == QueueSet::Outcome::execute);
    for (Ticket t : {2, 3, 4}) CHECK(set.arrive(t, 0, t0) == QueueSet::Outcome::queued);  // queue 0
    CHECK(set.arrive(5, 0, t0) == QueueSet::Outcome::reject);                              // queue 0 is full
    CHECK(set.arrive(6, 1, t0) == QueueSet::Outcome::queued);                              // queue 1
    CHECK(set.dispatch().empty());
    CHECK(set.waiting() == 4);
    set.finish();
    CHECK(set.dispatch() == std::vector<Ticket>{2});
    set.finish();
    CHECK(set.dispatch() == std::vector<Ticket>{6});  // ahead of the flood's 3 and 4
    set.finish();
    CHECK(set.dispatch() == std::vector<Ticket>{3});
    CHECK(set.executing() == 1);
    CHECK(set.waiting() == 1);
  }
  SUBCASE("waits past the limit are expired; more seats dispatch at once") {
    QueueSet set({.concurrency_limit = 1, .queues = 4, .hand_size = 2, .queue_length_limit = 10});
    CHECK(set.arrive(1, 7, t0) == QueueSet::Outcome::execute);
    CHECK(set.arrive(2, 7, t0) == QueueSet::Outcome::queued);
    CHECK(set.arrive(3, 7, t0 + std::chrono::seconds(10)) == QueueSet::Outcome::queued);
    CHECK(set.oldest_arrival() == t0);
    CHECK(set.expire(t0 + std::chrono::seconds(5)) == std::vector<Ticket>{2});
    CHECK(set.waiting() == 1);
    CHECK(set.reconfigure({.concurrency_limit = 2, .queues = 4, .hand_size = 2, .queue_length_limit = 10}).empty());
    CHECK(set.dispatch() == std::vector<Ticket>{3});
    CHECK(set.executing() == 2);
  }
}

namespace {

using kw::testing::RecordingStream;

struct Outcome {
  std::shared_ptr<RecordingStream> stream = std::make_shared<RecordingStream>();
  bool started = false;
  bool refused = false;
  kw::net::Seat seat;
};

void admit(FlowControl& control, const RequestDigest& digest, Outcome& out) {
  control.admit(
      digest, out.stream,
      [&out](std::shared_ptr<kw::net::ResponseStream> stream, kw::net::Seat seat) {
        out.started = true;
        out.seat = std::move(seat);
        stream->begin({200, {}, false});
      },
      [&out](kw::net::ResponseStream& stream) {
        out.refused = true;
        stream.begin({429, {}, false});
      });
}

}  // namespace

TEST_CASE("flow control: a flood of one user's LISTs is queued, then refused, while node leases still run") {
  FlowControl control({.server_concurrency_limit = 10, .request_wait_limit = std::chrono::seconds(60)});
  auto levels = bootstrap_of("PriorityLevelConfiguration");
  for (auto& level : levels)  // a small global-default level: 2 queues of 2, one hand of 1
    if (level["metadata"]["name"] == "global-default")
      level["spec"]["limited"]["limitResponse"]["queuing"] = {{"queues", 2}, {"handSize", 1}, {"queueLengthLimit", 2}};
  control.apply(bootstrap_of("FlowSchema"), levels);
  REQUIRE(control.level_stats("global-default"));
  CHECK(control.level_stats("global-default")->concurrency_limit == 1);  // ceil(10 * 20 / 245)
  CHECK(control.level_stats("node-high")->concurrency_limit == 2);
  CHECK_FALSE(control.level_stats("exempt"));

  const auto flood = resource("flooder", {"system:authenticated"}, "list", "", "configmaps", "default");
  std::vector<Outcome> outcomes(5);
  for (auto& outcome : outcomes) admit(control, flood, outcome);
  CHECK(outcomes[0].started);
  CHECK(outcomes[0].stream->status() == 200);
  CHECK(outcomes[0].stream->header("x-kubernetes-pf-flowschema-uid") == "uid-global-default");
  CHECK(outcomes[0].stream->header("x-kubernetes-pf-prioritylevel-uid") == "uid-global-default");
  for (int i : {1, 2}) CHECK((!outcomes[i].started && !outcomes[i].refused));  // waiting in the flow's queue
  for (int i : {3, 4}) {
    CHECK(outcomes[i].refused);
    CHECK(outcomes[i].stream->status() == 429);
    CHECK(outcomes[i].stream->header("x-kubernetes-pf-prioritylevel-uid") == "uid-global-default");
  }
  // The flood's level is full; a node's lease renewal has its own.
  Outcome lease;
  admit(control, resource("system:node:n1", {"system:nodes", "system:authenticated"}, "update", "coordination.k8s.io",
                          "leases", "kube-node-lease"),
        lease);
  CHECK(lease.started);
  CHECK(lease.stream->header("x-kubernetes-pf-flowschema-uid") == "uid-system-node-high");
  CHECK(lease.stream->header("x-kubernetes-pf-prioritylevel-uid") == "uid-node-high");
  // Exempt: no seat.
  Outcome admin;
  admit(control, resource("root", {"system:masters"}, "list", "", "configmaps", ""), admin);
  CHECK(admin.started);
  CHECK(admin.seat == nullptr);
  // A seat given back starts the next waiting request.
  outcomes[0].seat.reset();
  CHECK(outcomes[1].started);
  CHECK(control.level_stats("global-default")->waiting == 1);
  std::ostringstream metrics;
  control.write_metrics(metrics);
  CHECK(metrics.str().find("apiserver_flowcontrol_rejected_requests_total{flow_schema=\"global-default\","
                           "priority_level=\"global-default\",reason=\"queue-full\"} 2") != std::string::npos);
  CHECK(metrics.str().find("apiserver_flowcontrol_current_inqueue_requests{flow_schema=\"global-default\","
                           "priority_level=\"global-default\"} 1") != std::string::npos);
}

TEST_CASE("flow control: a FlowSchema naming a missing level is left out, and waits past the limit are refused") {
  FlowControl control({.server_concurrency_limit = 1, .request_wait_limit = std::chrono::milliseconds(1)});
  auto schemas = bootstrap_of("FlowSchema");
  schemas.push_back({{"metadata", {{"name", "dangling"}, {"uid", "uid-dangling"}}},
                     {"spec",
                      {{"matchingPrecedence", 5},
                       {"priorityLevelConfiguration", {{"name", "missing"}}},
                       {"rules",
                        {{{"subjects", {{{"kind", "Group"}, {"group", {{"name", "*"}}}}}},
                          {"nonResourceRules", {{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}}}}}}}}});
  control.apply(schemas, bootstrap_of("PriorityLevelConfiguration"));
  const auto request = non_resource("get", "/version", "u", {"system:authenticated"});
  Outcome first, second;
  admit(control, request, first);
  CHECK(first.stream->header("x-kubernetes-pf-flowschema-uid") == "uid-global-default");
  admit(control, request, second);  // queued, then refused by the timer
  for (int i = 0; i < 500 && !second.refused; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(second.refused);
}

TEST_CASE("flow control: a seat taken before its level was replaced is given back to the old level") {
  FlowControl control({.server_concurrency_limit = 10, .request_wait_limit = std::chrono::seconds(60)});
  const auto schemas = bootstrap_of("FlowSchema");
  const auto levels = bootstrap_of("PriorityLevelConfiguration");
  control.apply(schemas, levels);
  const auto request = resource("u", {"system:authenticated"}, "list", "", "configmaps", "default");
  Outcome before;
  admit(control, request, before);
  REQUIRE(before.started);
  auto without = levels;
  std::erase_if(without, [](const json& level) { return level["metadata"]["name"] == "global-default"; });
  control.apply(schemas, without);
  CHECK_FALSE(control.level_stats("global-default"));
  Outcome meanwhile;  // global-default's schema is dangling: catch-all takes the request
  admit(control, request, meanwhile);
  CHECK(meanwhile.stream->header("x-kubernetes-pf-flowschema-uid") == "uid-catch-all");
  control.apply(schemas, levels);
  Outcome after;
  admit(control, request, after);
  CHECK(after.started);
  CHECK(control.level_stats("global-default")->executing == 1);
  before.seat.reset();
  CHECK(control.level_stats("global-default")->executing == 1);
  after.seat.reset();
  CHECK(control.level_stats("global-default")->executing == 0);
}
