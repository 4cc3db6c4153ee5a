#pragma once
// kube-apiserver's priorities of the built-in group versions: what discovery orders groups
// (highest groupPriorityMinimum first) and versions within a group (highest versionPriority
// first) by, and what the local APIServices kube-apiserver registers for them carry. Custom
// resources' group versions all get k_custom_api_priority.
//
//   if (auto priority = kinds::builtin_api_priority("apps", "v1")) use(priority->group);  // 17800
#include <optional>
#include <string_view>

namespace kw::kinds {

struct ApiPriority {
  int group = 0;    // spec.groupPriorityMinimum
  int version = 0;  // spec.versionPriority
};

// nullopt for a group version kube-apiserver registers no APIService for (apiregistration.k8s.io,
// which its aggregator serves itself, and any group it does not know).
std::optional<ApiPriority> builtin_api_priority(std::string_view group, std::string_view version);

inline constexpr ApiPriority k_custom_api_priority{1000, 100};

}  // namespace kw::kinds
