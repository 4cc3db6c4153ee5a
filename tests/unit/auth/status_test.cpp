// 401 and 403 Status bodies, worded as kube-apiserver words them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/auth/status.hpp"

namespace kw::auth::test {

namespace {

UserInfo bob() { return UserInfo{.name = "bob", .groups = {"system:authenticated"}, .uid = {}, .extra = {}}; }

}  // namespace

TEST_CASE("status: 401") {
  CHECK(unauthorized_status() == nlohmann::json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},)"
                                                       R"("status":"Failure","message":"Unauthorized",)"
                                                       R"("reason":"Unauthorized","code":401})"));
}

TEST_CASE("status: 403 for a namespaced list") {
  const auto a = resource_attributes(bob(), "list", "default", "", "pods", "", "", "/api/v1/namespaces/default/pods");
  CHECK(
      forbidden_status(a) ==
      nlohmann::json::parse(
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
          R"("message":"pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"",)"
          R"("reason":"Forbidden","details":{"kind":"pods"},"code":403})"));
}

TEST_CASE("status: 403 variants") {
  SUBCASE("a named object of a group, with a subresource") {
    const auto a = resource_attributes(bob(), "update", "prod", "apps", "deployments", "scale", "web", "/");
    const auto status = forbidden_status(a);
    CHECK(status["message"] ==
          "deployments.apps \"web\" is forbidden: User \"bob\" cannot update resource \"deployments/scale\" in API "
          "group \"apps\" in the namespace \"prod\"");
    CHECK(status["details"] == nlohmann::json::parse(R"({"name":"web","group":"apps","kind":"deployments"})"));
    CHECK(status["code"] == 403);
  }
  SUBCASE("cluster scope") {
    const auto a = resource_attributes(bob(), "list", "", "", "nodes", "", "", "/api/v1/nodes");
    CHECK(forbidden_status(a)["message"] ==
          "nodes is forbidden: User \"bob\" cannot list resource \"nodes\" in API group \"\" at the cluster scope");
  }
  SUBCASE("non-resource URL") {
    const auto a =
        non_resource_attributes(UserInfo{.name = "system:anonymous", .groups = {}, .uid = {}, .extra = {}}, "GET", "/metrics");
    CHECK(forbidden_status(a) ==
          nlohmann::json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                                R"("message":"forbidden: User \"system:anonymous\" cannot get path \"/metrics\"",)"
                                R"("reason":"Forbidden","details":{},"code":403})"));
  }
  SUBCASE("the authorizer's reason is appended") {
    const auto a = resource_attributes(bob(), "get", "x", "", "secrets", "", "s", "/");
    CHECK(forbidden_status(a, "no ABAC policy matched")["message"] ==
          "secrets \"s\" is forbidden: User \"bob\" cannot get resource \"secrets\" in API group \"\" in the "
          "namespace \"x\": no ABAC policy matched");
  }
  SUBCASE("quotes in names are escaped as Go's %q does") {
    const auto a = non_resource_attributes(UserInfo{.name = "a\"b", .groups = {}, .uid = {}, .extra = {}}, "POST", "/x");
    CHECK(forbidden_message(a) == "User \"a\\\"b\" cannot post path \"/x\"");
  }
}

}  // namespace kw::auth::test
