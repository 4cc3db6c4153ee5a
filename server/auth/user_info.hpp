#pragma once
// Who made a request, as authentication found it (kube's user.Info).
#include <map>
#include <string>
#include <vector>

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

}  // namespace kw::auth
