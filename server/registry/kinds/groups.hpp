#pragma once
// The rows of each API group version, one function per file of this folder; kinds.cpp
// puts them together in discovery order.
#include <vector>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::kinds {

std::vector<KindSpec> core_v1_kinds();
std::vector<KindSpec> apiregistration_v1_kinds();
std::vector<KindSpec> apps_v1_kinds();
std::vector<KindSpec> events_v1_kinds();
std::vector<KindSpec> authentication_v1_kinds();
std::vector<KindSpec> authorization_v1_kinds();
std::vector<KindSpec> autoscaling_v2_kinds();
std::vector<KindSpec> autoscaling_v1_kinds();
std::vector<KindSpec> batch_v1_kinds();
std::vector<KindSpec> certificates_v1_kinds();
std::vector<KindSpec> networking_v1_kinds();
std::vector<KindSpec> policy_v1_kinds();
std::vector<KindSpec> rbac_v1_kinds();
std::vector<KindSpec> storage_v1_kinds();
std::vector<KindSpec> storage_v1beta1_kinds();
std::vector<KindSpec> admissionregistration_v1_kinds();
std::vector<KindSpec> apiextensions_v1_kinds();
std::vector<KindSpec> scheduling_v1_kinds();
std::vector<KindSpec> coordination_v1_kinds();
std::vector<KindSpec> node_v1_kinds();
std::vector<KindSpec> discovery_v1_kinds();
std::vector<KindSpec> flowcontrol_v1_kinds();

}  // namespace kw::kinds
