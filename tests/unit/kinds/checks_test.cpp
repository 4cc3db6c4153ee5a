// The shared building blocks of the rows' strategies (server/registry/kinds/checks.hpp): field
// errors as field.Error prints them, Go's rendering of values, metav1 validation, IP addresses
// and CIDRs, core/v1 resource names and quantities.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/registry/kinds/checks.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

json cause(const std::string& field, const std::string& reason, const std::string& message) {
  return {{"reason", reason}, {"message", message}, {"field", field}};
}

// The messages of the causes, in order.
std::vector<std::string> messages(const Causes& causes) {
  std::vector<std::string> out;
  for (const auto& c : causes) out.push_back(c["message"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("field errors read as field.Error prints them") {
  Causes causes = Causes::array();
  invalid_value(causes, "spec.x", "v", "why");
  invalid_rendered(causes, "spec.y", "core.Thing{A:\"b\"}", "why");
  required(causes, "spec.z");
  required(causes, "spec.z", "detail");
  unsupported(causes, "spec.p", "Sometimes", {"Always", "Never"});
  forbidden(causes, "spec.f", "may not be set");
  duplicate(causes, "spec.d[1]", "a");
  too_long(causes, "spec.l", 1024);
  too_long(causes, "spec.l", 1);
  too_many(causes, "spec.m", 9, 8);
  immutable(causes, "spec.i", 2, 1);
  immutable(causes, "spec.i", 1, 1);
  non_negative(causes, "spec.n", -1);
  non_negative(causes, "spec.n", 0, true);
  CHECK(causes == json::array({
                      cause("spec.x", "FieldValueInvalid", "Invalid value: \"v\": why"),
                      cause("spec.y", "FieldValueInvalid", "Invalid value: core.Thing{A:\"b\"}: why"),
                      cause("spec.z", "FieldValueRequired", "Required value"),
                      cause("spec.z", "FieldValueRequired", "Required value: detail"),
                      cause("spec.p", "FieldValueNotSupported",
                            "Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\""),
                      cause("spec.f", "FieldValueForbidden", "Forbidden: may not be set"),
                      cause("spec.d[1]", "FieldValueDuplicate", "Duplicate value: \"a\""),
                      cause("spec.l", "FieldValueTooLong", "Too long: may not be more than 1024 bytes"),
                      cause("spec.l", "FieldValueTooLong", "Too long: may not be more than 1 byte"),
                      cause("spec.m", "FieldValueTooMany", "Too many: 9: must have at most 8 items"),
                      cause("spec.i", "FieldValueInvalid", "Invalid value: 2: field is immutable"),
                      cause("spec.n", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"),
                      cause("spec.n", "FieldValueInvalid", "Invalid value: 0: must be greater than 0"),
                  }));
}

TEST_CASE("paths, defaults and Go's rendering") {
  CHECK(index_path("spec.containers", 2) == "spec.containers[2]");
  CHECK(key_path("spec.hard", "cpu") == "spec.hard[cpu]");
  json o = {{"a", nullptr}, {"b", ""}, {"c", "set"}};
  default_value(o, "a", 1);
  default_value(o, "c", "other");
  default_string(o, "b", "filled");
  default_string(o, "d", "new");
  CHECK(o == json{{"a", 1}, {"b", "filled"}, {"c", "set"}, {"d", "new"}});
  CHECK(split("a/b//c", '/') == std::vector<std::string_view>{"a", "b", "", "c"});
  CHECK(split("", '.') == std::vector<std::string_view>{""});
  CHECK(contains_wildcard(json{"get", "*"}));
  CHECK_FALSE(contains_wildcard(json{"get"}));
  CHECK(go_quoted("a\"b") == "\"a\\\"b\"");
  CHECK(go_quoted(5) == "\"\"");
  CHECK(go_slice(json{"a", "b"}) == "[]string{\"a\", \"b\"}");
  CHECK(go_slice(json::array(), "admissionregistration.OperationType") == "[]admissionregistration.OperationType{}");
  CHECK(go_slice(json()) == "[]string(nil)");
}

TEST_CASE("ValidateLabels and ValidateLabelSelector") {
  Causes causes = Causes::array();
  validate_labels(causes, json{{"ok", "yes"}, {"bad key!", "-x-"}}, "metadata.labels");
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["field"] == "metadata.labels");
  CHECK(causes[0]["message"].get<std::string>().starts_with("Invalid value: \"bad key!\": name part must consist"));
  CHECK(causes[1]["message"].get<std::string>().starts_with("Invalid value: \"-x-\": a valid label must be"));

  causes = Causes::array();
  validate_label_selector(causes,
                          json{{"matchExpressions",
                                {{{"key", "a"}, {"operator", "In"}},
                                 {{"key", "b"}, {"operator", "Exists"}, {"values", {"x"}}},
                                 {{"key", "c"}, {"operator", "Near"}, {"values", {"-y-"}}}}}},
                          "spec.selector");
  REQUIRE(causes.size() == 4);
  CHECK(causes[0] == cause("spec.selector.matchExpressions[0].values", "FieldValueRequired",
                           "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
  CHECK(causes[1] == cause("spec.selector.matchExpressions[1].values", "FieldValueForbidden",
                           "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  CHECK(causes[2] == cause("spec.selector.matchExpressions[2].operator", "FieldValueInvalid",
                           "Invalid value: \"Near\": not a valid selector operator"));
  CHECK(causes[3]["field"] == "spec.selector.matchExpressions[2].values[0]");

  causes = Causes::array();
  validate_annotation_keys(causes, json{{"Example.COM/Key", "v"}}, "spec.template.annotations");
  CHECK(causes.empty());  // keys are checked lowered
}

TEST_CASE("ValidateConditions") {
  Causes causes = Causes::array();
  const json good = {{"type", "Ready"},
                     {"status", "True"},
                     {"lastTransitionTime", "2024-01-02T03:04:05Z"},
                     {"reason", "AllGood"},
                     {"message", "fine"}};
  validate_conditions(causes, json::array({good}), "status.conditions");
  CHECK(causes.empty());
  json bad = {{"type", "Ready"}, {"status", "Maybe"}, {"reason", "1bad"}, {"observedGeneration", -1}};
  validate_conditions(causes, json::array({good, bad}), "status.conditions");
  CHECK(messages(causes) ==
        std::vector<std::string>{
            "Duplicate value: \"Ready\"",
            "Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"",
            "Invalid value: -1: must be greater than or equal to zero", "Required value: must be set",
            "Invalid value: \"1bad\": a condition reason must start with alphabetic character, optionally followed by "
            "a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
            "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for "
            "validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"});
  CHECK(causes[0]["field"] == "status.conditions[1].type");
  CHECK(causes[3]["field"] == "status.conditions[1].lastTransitionTime");
}

TEST_CASE("IP addresses as netutils parses them, and IsValidIP") {
  const auto v4 = parse_ip("10.0.0.1");
  REQUIRE(v4);
  CHECK(is_v4(*v4));
  CHECK(ip_string(*v4) == "10.0.0.1");
  const auto mapped = parse_ip("::ffff:10.0.0.1");
  REQUIRE(mapped);
  CHECK(mapped->mapped);
  CHECK(is_v4(*mapped));
  CHECK(ip_string(*parse_ip("2001:DB8:0:0:0:0:0:1")) == "2001:db8::1");
  CHECK_FALSE(parse_ip("1.2.3"));
  CHECK_FALSE(parse_ip("::1::"));
  CHECK_FALSE(parse_ip("fe80::1%eth0"));
  CHECK(strict_ip_errors("10.0.0.1").empty());
  CHECK(strict_ip_errors("010.0.0.1") == std::vector<std::string>{"must not have leading 0s"});
  CHECK(strict_ip_errors("::ffff:10.0.0.1") == std::vector<std::string>{"must not be an IPv4-mapped IPv6 address"});
  CHECK(strict_ip_errors("2001:DB8::1") == std::vector<std::string>{"must be in canonical form (\"2001:db8::1\")"});
  CHECK(strict_ip_errors("nope") == std::vector<std::string>{k_ip_help});
  CHECK(std::string(k_ip_help) == "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
}

TEST_CASE("CIDRs and IsValidCIDR") {
  const auto cidr = parse_cidr("10.0.0.0/8");
  REQUIRE(cidr);
  CHECK(cidr->contains(*parse_ip("10.1.2.3")));
  CHECK_FALSE(cidr->contains(*parse_ip("11.0.0.1")));
  CHECK_FALSE(cidr->contains(*parse_ip("::1")));
  CHECK(cidr_string(*parse_cidr("10.1.2.3/8")) == "10.0.0.0/8");
  CHECK(strict_cidr_errors("10.0.0.0/8").empty());
  CHECK(strict_cidr_errors("10.0.0.1/8") ==
        std::vector<std::string>{"must not have bits set beyond the prefix length"});
  CHECK(strict_cidr_errors("10.0.0.0/08") ==
        std::vector<std::string>{"must not have leading 0s in IP or prefix length"});
  CHECK(strict_cidr_errors("2001:DB8::/64") ==
        std::vector<std::string>{"must be in canonical form (\"2001:db8::/64\")"});
  CHECK(strict_cidr_errors("10.0.0.0/33") == std::vector<std::string>{k_cidr_help});
  CHECK(std::string(k_cidr_help) == "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
}

TEST_CASE("core/v1 resource names and quantities") {
  Causes causes = Causes::array();
  container_resource_name(causes, "limits[cpu]", "cpu");
  container_resource_name(causes, "limits[example.com/gpu]", "example.com/gpu");
  container_resource_name(causes, "limits[hugepages-2Mi]", "hugepages-2Mi");
  CHECK(causes.empty());
  container_resource_name(causes, "limits[foo]", "foo");
  CHECK(messages(causes) ==
        std::vector<std::string>{"Invalid value: \"foo\": must be a standard resource type or fully qualified",
                                 "Invalid value: \"foo\": must be a standard resource for containers"});
  causes = Causes::array();
  container_resource_name(causes, "limits[pods]", "pods");
  CHECK(messages(causes) ==
        std::vector<std::string>{"Invalid value: \"pods\": must be a standard resource for containers"});
  CHECK(is_standard_resource("requests.hugepages-1Gi"));
  CHECK(is_integer_resource("example.com/gpu"));
  CHECK_FALSE(is_integer_resource("cpu"));

  causes = Causes::array();
  nonnegative_quantity(causes, "q", "-1Gi");
  nonnegative_quantity(causes, "q", "0");
  positive_quantity(causes, "q", "0");
  basic_resource(causes, "q", "-1.5");
  resource_quantity(causes, "q", "pods", "1500m");
  resource_quantity(causes, "q", "cpu", "1500m");
  CHECK(messages(causes) == std::vector<std::string>{"Invalid value: \"-1Gi\": must be greater than or equal to 0",
                                                     "Invalid value: \"0\": must be greater than zero",
                                                     "Invalid value: -1: must be a valid resource quantity",
                                                     "Invalid value: \"1500m\": must be an integer"});
}
