// A pod spec's volumes: ValidateVolumes and the checks of each volume source.
#include <string>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

PodVolumes validate_volumes(Causes& causes, const json& volumes, const std::string& path) {
  PodVolumes valid;
  const json& list = arr(volumes);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = index_path(path, i) + ".name";
    const std::string name = str(at(list[i], {"name"}));
    if (name.empty())
      required(causes, field);
    else if (valid.contains(name))
      duplicate(causes, field, name);
    else {
      label_field(causes, field, name);
      valid.emplace(name, &list[i]);
    }
  }
  return valid;
}

}  // namespace kw::kinds
