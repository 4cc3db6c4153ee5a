#pragma once
// v1.ResourceList arithmetic as Kubernetes' quota code does it (k8s.io/apiserver quota/v1):
// exact Go quantities by resource name, names in sorted order.
//
//   auto used = quota::resource_list(status["used"]);
//   used = quota::add(used, delta);
//   status["used"] = quota::to_json(used);
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/quantity.hpp"

namespace kw::quota {

using ResourceList = std::map<std::string, api::GoQuantity>;

// A JSON ResourceList; values that are not quantities are left out.
ResourceList resource_list(const nlohmann::json& list);
nlohmann::json to_json(const ResourceList& list);
std::vector<std::string> names(const ResourceList& list);
std::set<std::string> name_set(const ResourceList& list);

// quota.Add: the sum per name (a name in one list only is kept as it is).
ResourceList add(const ResourceList& a, const ResourceList& b);
// quota.SubtractWithNonNegativeResult: a - b per name of either, never below zero.
ResourceList subtract_non_negative(const ResourceList& a, const ResourceList& b);
// quota.Max: the larger value per name.
ResourceList max(const ResourceList& a, const ResourceList& b);
// quota.Mask: only the names in `keep`.
ResourceList mask(const ResourceList& list, const std::set<std::string>& keep);
// quota.RemoveZeros.
ResourceList remove_zeros(const ResourceList& list);
// quota.Equals: the same names with equal values.
bool equals(const ResourceList& a, const ResourceList& b);
// quota.LessThanOrEqual: the names of `a` whose value is over `b`'s (a name `b` lacks is no
// limit).
std::set<std::string> exceeded(const ResourceList& a, const ResourceList& b);
// "name=value,name=value", by name (the admission plugin's messages).
std::string pretty_print(const ResourceList& list);
// "a,b,c" (quota.prettyPrintResourceNames).
std::string pretty_print_names(const std::set<std::string>& names);

}  // namespace kw::quota
