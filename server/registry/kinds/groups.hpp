#pragma once
// The rows of each API group version, one function per file of this folder; kinds.cpp
// puts them together in discovery order.
#include <vector>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::kinds {

std::vector<KindSpec> core_v1_kinds();
std::vector<KindSpec> apps_v1_kinds();
std::vector<KindSpec> batch_v1_kinds();
std::vector<KindSpec> coordination_v1_kinds();
std::vector<KindSpec> apiextensions_v1_kinds();

}  // namespace kw::kinds
