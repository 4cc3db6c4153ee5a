#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/commands/wait_condition.hpp"

using kw::cli::condition_met;
using kw::cli::parse_wait_condition;
using kw::cli::WaitCondition;
using nlohmann::json;

TEST_CASE("wait --for parses delete, conditions and JSONPath values") {
  CHECK(parse_wait_condition("delete")->kind == WaitCondition::Kind::Delete);
  CHECK(parse_wait_condition("Delete")->kind == WaitCondition::Kind::Delete);
  CHECK(parse_wait_condition("create")->kind == WaitCondition::Kind::Create);
  auto ready = parse_wait_condition("condition=Ready");
  REQUIRE(ready);
  CHECK(ready->kind == WaitCondition::Kind::Condition);
  CHECK(ready->name == "Ready");
  CHECK(*ready->value == "true");
  CHECK(*parse_wait_condition("condition=Ready=False")->value == "False");
  auto phase = parse_wait_condition("jsonpath={.status.phase}=Running");
  REQUIRE(phase);
  CHECK(phase->expression == "{.status.phase}");
  CHECK(*phase->value == "Running");
  CHECK_FALSE(parse_wait_condition("jsonpath={.status.phase}")->value.has_value());
  // A filter's == is part of the expression: only an '=' outside braces starts the value.
  auto ready_status = parse_wait_condition(R"(jsonpath={.status.conditions[?(@.type=="Ready")].status}=True)");
  REQUIRE(ready_status);
  CHECK(ready_status->expression == R"({.status.conditions[?(@.type=="Ready")].status})");
  CHECK(*ready_status->value == "True");
}

TEST_CASE("wait --for refuses what kubectl refuses, in its words") {
  CHECK(parse_wait_condition("bogus").error().message == "unrecognized condition: \"bogus\"");
  CHECK(parse_wait_condition("").error().message == "unrecognized condition: \"\"");
  CHECK(parse_wait_condition("jsonpath={.a}=b=c").error().message.starts_with("jsonpath wait format must be"));
  CHECK_FALSE(parse_wait_condition("jsonpath="));
}

TEST_CASE("a status condition matches its type and status without case") {
  const json pod = {{"metadata", {{"generation", 2}}},
                    {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  CHECK(*condition_met(*parse_wait_condition("condition=ready"), pod));
  CHECK_FALSE(*condition_met(*parse_wait_condition("condition=Ready=false"), pod));
  CHECK_FALSE(*condition_met(*parse_wait_condition("condition=Available"), pod));
}

TEST_CASE("a condition observed for an older generation does not count") {
  const json stale = {{"metadata", {{"generation", 3}}},
                      {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}, {"observedGeneration", 2}}}}}}};
  CHECK_FALSE(*condition_met(*parse_wait_condition("condition=Ready"), stale));
}

TEST_CASE("a JSONPath condition compares one scalar value or checks that the path finds one") {
  const json pod = {{"status", {{"phase", "Running"}}}, {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}}}};
  CHECK(*condition_met(*parse_wait_condition("jsonpath={.status.phase}=Running"), pod));
  CHECK(*condition_met(*parse_wait_condition("jsonpath=.status.phase=Running"), pod));
  CHECK_FALSE(*condition_met(*parse_wait_condition("jsonpath={.status.phase}=Pending"), pod));
  CHECK(*condition_met(*parse_wait_condition("jsonpath={.status.phase}"), pod));
  CHECK_FALSE(*condition_met(*parse_wait_condition("jsonpath={.status.missing}"), pod));
  CHECK_FALSE(condition_met(*parse_wait_condition("jsonpath={.spec.containers[*].name}=a"), pod));
  CHECK_FALSE(condition_met(*parse_wait_condition("jsonpath={.spec}=a"), pod));
}
