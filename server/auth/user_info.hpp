#pragma once
// Who made a request, as authentication found it (kube's user.Info).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::auth {

inline constexpr const char* k_group_masters = "system:masters";
inline constexpr const char* k_group_authenticated = "system:authenticated";
inline constexpr const char* k_group_unauthenticated = "system:unauthenticated";
inline constexpr const char* k_user_anonymous = "system:anonymous";

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
  std::string uid;
  std::map<std::string, std::vector<std::string>> extra;  // e.g. scopes, from impersonation

  bool in_group(const std::string& group) const {
    for (const auto& mine : groups) {
      if (mine == group) return true;
    }
    return false;
  }
};

// The user as an authentication.k8s.io/v1 UserInfo: {username, uid, groups, extra}, empty
// fields left out.
nlohmann::json user_info_to_json(const UserInfo& user);
// And back, from such an object; access reviews name the user under "user" (their spec's
// user, uid, groups and extra). Fields of the wrong type are ignored.
UserInfo user_info_from_json(const nlohmann::json& info, const char* name_key = "username");

}  // namespace kw::auth
