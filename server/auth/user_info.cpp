#include "server/auth/user_info.hpp"

#include "core/api/print_support.hpp"

namespace kw::auth {

using nlohmann::json;
using api::print::at;
using api::print::str;

json user_info_to_json(const UserInfo& user) {
  json out = {{"username", user.name}};
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = user.groups;
  if (!user.extra.empty()) out["extra"] = user.extra;
  return out;
}

UserInfo user_info_from_json(const json& info, const char* name_key) {
  UserInfo user;
  user.name = str(at(info, {name_key}));
  user.uid = str(at(info, {"uid"}));
  if (const json& groups = at(info, {"groups"}); groups.is_array())
    for (const auto& group : groups)
      if (group.is_string()) user.groups.push_back(group.get<std::string>());
  if (const json& extra = at(info, {"extra"}); extra.is_object())
    for (const auto& [key, values] : extra.items())
      if (values.is_array())
        for (const auto& value : values)
          if (value.is_string()) user.extra[key].push_back(value.get<std::string>());
  return user;
}

}  // namespace kw::auth
