#pragma once
// kube-apiserver's user impersonation: a request carrying Impersonate-User (and optionally
// Impersonate-Group, Impersonate-Uid, Impersonate-Extra-KEY) acts as that user once the
// requester may `impersonate` each of them (users, groups, serviceaccounts in the core group;
// userextras/KEY and uids in authentication.k8s.io).
//
//   auto acting = impersonate(user, request.headers, authorizer);
//   if (!acting) send_json(stream, acting.error()["code"], acting.error());   // 403 or 500
//   else if (*acting) user = **acting;
#include <expected>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/net/server/http_server.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::auth {

// The user to act as; nullopt without impersonation headers; else the Status to answer: 403
// naming what may not be impersonated, 500 for groups, extras or a UID without a user.
std::expected<std::optional<UserInfo>, nlohmann::json> impersonate(const UserInfo& requester,
                                                                   const net::Headers& headers,
                                                                   const Authorizer& authorizer);

}  // namespace kw::auth
