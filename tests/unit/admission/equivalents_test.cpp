// matchPolicy (server/admission/equivalents.hpp): which resource a webhook's or policy's rules
// match a request as, and what the request then says of its kind and resource.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/admission/equivalents.hpp"
#include "server/admission/match_conditions.hpp"
#include "server/admission/webhook_config.hpp"

namespace {

using namespace kw;
using nlohmann::json;

api::ResourceInfo widgets(const std::string& version) {
  api::ResourceInfo info;
  info.group = "stable.kw.test";
  info.version = version;
  info.kind = "Widget";
  info.plural = "widgets";
  info.custom = true;
  return info;
}

// A CREATE of `object` on `info` in namespace "ns".
struct Request {
  std::string ns = "ns";
  std::string name = "w";
  json object;
  json user = json::object();
  registry::AdmissionRequest of(const api::ResourceInfo& info) const {
    return {info, "CREATE", "", ns, name, object, nullptr, user, false, nullptr, nullptr, nullptr};
  }
};

admission::Webhook hook_on(std::vector<std::string> versions, admission::MatchPolicy policy) {
  admission::Webhook hook;
  hook.rules.push_back({.operations = {"CREATE"},
                        .groups = {"stable.kw.test"},
                        .versions = std::move(versions),
                        .resources = {"widgets"}});
  hook.match_policy = policy;
  return hook;
}

}  // namespace

TEST_CASE("matchPolicy is Equivalent only when it says so") {
  CHECK(admission::read_match_policy({{"matchPolicy", "Equivalent"}}) == admission::MatchPolicy::equivalent);
  CHECK(admission::read_match_policy({{"matchPolicy", "Exact"}}) == admission::MatchPolicy::exact);
  CHECK(admission::read_match_policy(json::object()) == admission::MatchPolicy::exact);
}

TEST_CASE("a rule naming the request's own version matches it as itself under either policy") {
  const auto v1 = widgets("v1"), v2 = widgets("v2");
  Request r{.object = {{"apiVersion", "stable.kw.test/v2"}, {"kind", "Widget"}}};
  const auto request = r.of(v2);
  for (auto policy : {admission::MatchPolicy::exact, admission::MatchPolicy::equivalent}) {
    admission::EquivalentResources equivalents({&v1, &v2});
    CHECK(admission::rules_match(hook_on({"v2"}, policy), request, equivalents) == &request.info);
    CHECK(admission::rules_match(hook_on({"*"}, policy), request, equivalents) == &request.info);
  }
}

TEST_CASE("a rule naming only another version matches an equivalent resource under Equivalent alone") {
  const auto v1 = widgets("v1"), v2 = widgets("v2"), v3 = widgets("v3");
  Request r{.object = {{"apiVersion", "stable.kw.test/v2"}, {"kind", "Widget"}}};
  const auto request = r.of(v2);
  admission::EquivalentResources equivalents({&v1, &v2, &v3});
  CHECK(admission::rules_match(hook_on({"v1"}, admission::MatchPolicy::exact), request, equivalents) == nullptr);
  CHECK(admission::rules_match(hook_on({"v1"}, admission::MatchPolicy::equivalent), request, equivalents) == &v1);
  CHECK(admission::rules_match(hook_on({"v3", "v1"}, admission::MatchPolicy::equivalent), request, equivalents) == &v1);
  CHECK(admission::rules_match(hook_on({"v9"}, admission::MatchPolicy::equivalent), request, equivalents) == nullptr);
  // Another group's resource of the same name is no equivalent.
  auto other = hook_on({"v1"}, admission::MatchPolicy::equivalent);
  other.rules[0].groups = {"other.kw.test"};
  CHECK(admission::rules_match(other, request, equivalents) == nullptr);
}

TEST_CASE("earlier rules are tried first, each against every equivalent resource") {
  const auto v1 = widgets("v1"), v2 = widgets("v2"), v3 = widgets("v3");
  Request r{.object = {{"apiVersion", "stable.kw.test/v2"}, {"kind", "Widget"}}};
  const auto request = r.of(v2);
  admission::EquivalentResources equivalents({&v1, &v2, &v3});
  auto hook = hook_on({"v3"}, admission::MatchPolicy::equivalent);
  hook.rules.push_back(hook.rules[0]);
  hook.rules[1].versions = {"v1"};
  CHECK(admission::rules_match(hook, request, equivalents) == &v3);
}

TEST_CASE("every rule is tried on the request's own resource before any equivalent one") {
  const auto v1 = widgets("v1"), v2 = widgets("v2");
  Request r;
  const auto request = r.of(v2);
  admission::EquivalentResources equivalents({&v1, &v2});
  std::vector<std::string> asked;  // rule index and version, in the order asked
  auto matches = [&](std::size_t i, const registry::AdmissionRequest& as) {
    asked.push_back(std::to_string(i) + as.info.version);
    return i == 1;
  };
  CHECK(admission::matched_resource(2, matches, request, admission::MatchPolicy::equivalent, equivalents) ==
        &request.info);
  CHECK(asked == std::vector<std::string>{"0v2", "1v2"});
  asked.clear();
  auto only_v1 = [&](std::size_t i, const registry::AdmissionRequest& as) {
    asked.push_back(std::to_string(i) + as.info.version);
    return i == 1 && as.info.version == "v1";
  };
  CHECK(admission::matched_resource(2, only_v1, request, admission::MatchPolicy::equivalent, equivalents) == &v1);
  CHECK(asked == std::vector<std::string>{"0v2", "1v2", "0v1", "1v1"});
}

TEST_CASE("a request seen as an equivalent resource names it as kind and resource, the client's as the request's") {
  const auto v1 = widgets("v1"), v2 = widgets("v2");
  Request r{.object = {{"apiVersion", "stable.kw.test/v2"}, {"kind", "Widget"}}};
  const auto request = r.of(v2);
  const json converted = {{"apiVersion", "stable.kw.test/v1"}, {"kind", "Widget"}};
  const auto seen = admission::seen_as(request, v1, converted, nullptr);
  const json fields = admission::request_fields(seen);
  CHECK(fields["kind"] == json{{"group", "stable.kw.test"}, {"version", "v1"}, {"kind", "Widget"}});
  CHECK(fields["resource"] == json{{"group", "stable.kw.test"}, {"version", "v1"}, {"resource", "widgets"}});
  CHECK(fields["requestKind"] == json{{"group", "stable.kw.test"}, {"version", "v2"}, {"kind", "Widget"}});
  CHECK(fields["requestResource"] == json{{"group", "stable.kw.test"}, {"version", "v2"}, {"resource", "widgets"}});
  CHECK(&seen.object == &converted);
  // Seen again (a policy's exclusions after its rules), the client's resource stays the request's.
  CHECK(admission::request_fields(admission::seen_as(seen, v1))["requestResource"]["version"] == "v2");
  // Not seen as another: both name the request's own.
  const json own = admission::request_fields(request);
  CHECK(own["kind"] == own["requestKind"]);
  CHECK(own["resource"] == own["requestResource"]);
}
