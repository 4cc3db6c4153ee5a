#pragma once
// The meta/v1 Status bodies kube-apiserver answers a failed authentication (401) and a
// denied authorization (403) with, worded as kube words them:
//   401 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
//        "message":"Unauthorized","reason":"Unauthorized","code":401}
//   403 message `pods is forbidden: User "bob" cannot list resource "pods" in API group ""
//        in the namespace "default"`, reason Forbidden, details {kind: pods}
// Send them as JSON with the status code they carry ("code").
#include <string>

#include <nlohmann/json.hpp>

#include "server/auth/authorizer.hpp"

namespace kw::auth {

nlohmann::json unauthorized_status();

// `User "bob" cannot list resource "pods" in API group "" in the namespace "default"`, or
// `... at the cluster scope`, or `User "bob" cannot get path "/metrics"`.
std::string forbidden_message(const Attributes& attributes);

// The 403 Status; a non-empty `reason` (Decision::reason) is appended after ": ".
nlohmann::json forbidden_status(const Attributes& attributes, const std::string& reason = "");

}  // namespace kw::auth
