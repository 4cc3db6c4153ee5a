#include "server/auth/impersonation.hpp"

#include <vector>

#include "core/util/text.hpp"
#include "server/auth/service_account.hpp"
#include "server/auth/status.hpp"

namespace kw::auth {

namespace {

constexpr std::string_view k_extra_prefix = "impersonate-extra-";

// One identity asked for (kube's ObjectReference of the impersonation filter).
struct Wanted {
  std::string kind;  // User, ServiceAccount, Group, UserExtra, UID
  std::string namespace_;
  std::string name;
  std::string field;  // UserExtra: the key
};

// Go's %v of the ObjectReferences, as kube's 500 shows them: {Kind Namespace Name UID
// APIVersion ResourceVersion FieldPath}.
std::string describe(const std::vector<Wanted>& wanted) {
  std::string out = "[";
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto& w = wanted[i];
    const bool authentication = w.kind == "UserExtra" || w.kind == "UID";
    out += (i ? " {" : "{") + w.kind + " " + w.namespace_ + " " + w.name + "  " +
           (authentication ? "authentication.k8s.io/v1" : "") + "  " + w.field + "}";
  }
  return out + "]";
}

nlohmann::json internal_error(const std::string& message) {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", nlohmann::json::object()},
          {"status", "Failure"},
          {"message", "Internal error occurred: " + message},
          {"reason", "InternalError"},
          {"details", {{"causes", nlohmann::json::array({{{"message", message}}})}}},
          {"code", 500}};
}

}  // namespace

std::expected<std::optional<UserInfo>, nlohmann::json> impersonate(const UserInfo& requester,
                                                                   const net::Headers& headers,
                                                                   const Authorizer& authorizer) {
  std::vector<Wanted> wanted;
  std::string user_header, uid_header;
  bool has_groups = false;
  for (const auto& header : headers) {
    if (header.name == "impersonate-user" && user_header.empty()) user_header = header.value;
    if (header.name == "impersonate-uid" && uid_header.empty()) uid_header = header.value;
  }
  if (!user_header.empty()) {
    if (auto account = service_account_of(user_header))
      wanted.push_back({"ServiceAccount", account->first, account->second, ""});
    else
      wanted.push_back({"User", "", user_header, ""});
  }
  for (const auto& header : headers)
    if (header.name == "impersonate-group") wanted.push_back({"Group", "", header.value, ""}), has_groups = true;
  for (const auto& header : headers)
    if (header.name.starts_with(k_extra_prefix))
      wanted.push_back({"UserExtra", "", header.value, util::percent_decode(header.name.substr(k_extra_prefix.size()))});
  if (!uid_header.empty()) wanted.push_back({"UID", "", uid_header, ""});
  if (wanted.empty()) return std::nullopt;
  if (user_header.empty())
    return std::unexpected(internal_error("requested " + describe(wanted) + " without impersonating a user"));

  UserInfo acting;
  for (const auto& w : wanted) {
    std::string group, resource, subresource;
    if (w.kind == "ServiceAccount") {
      resource = "serviceaccounts";
      acting.name = service_account_user(w.namespace_, w.name);
      if (!has_groups) acting.groups = service_account_groups(w.namespace_);
    } else if (w.kind == "User") {
      resource = "users";
      acting.name = w.name;
    } else if (w.kind == "Group") {
      resource = "groups";
      acting.groups.push_back(w.name);
    } else if (w.kind == "UserExtra") {
      group = "authentication.k8s.io";
      resource = "userextras";
      subresource = w.field;
      acting.extra[w.field].push_back(w.name);
    } else {
      group = "authentication.k8s.io";
      resource = "uids";
      acting.uid = w.name;
    }
    const auto attributes =
        resource_attributes(requester, "impersonate", w.namespace_, group, resource, subresource, w.name, "");
    if (const auto decision = authorizer.authorize(attributes); !decision.allowed)
      return std::unexpected(forbidden_status(attributes, decision.reason));
  }
  const bool anonymous = acting.name == k_user_anonymous;
  const bool marked = acting.in_group(k_group_unauthenticated) || (!anonymous && acting.in_group(k_group_authenticated));
  if (!marked) acting.groups.emplace_back(anonymous ? k_group_unauthenticated : k_group_authenticated);
  return acting;
}

}  // namespace kw::auth
