// coordination.k8s.io/v1: Lease.
#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

Cells print_lease(const json& lease, TimePoint now) {
  return {name_of(lease), str(at(lease, {"spec", "holderIdentity"})), age_of(lease, now)};
}

void validate_lease(const json& lease, Causes& causes) {
  non_negative(causes, "spec.leaseDurationSeconds", at(lease, {"spec", "leaseDurationSeconds"}), true);
  non_negative(causes, "spec.leaseTransitions", at(lease, {"spec", "leaseTransitions"}));
}

}  // namespace

std::vector<KindSpec> coordination_v1_kinds() {
  return {{.info = {.group = "coordination.k8s.io", .version = "v1", .kind = "Lease", .plural = "leases",
                    .columns = {name_col(),
                                col("Holder", "string",
                                    "holderIdentity contains the identity of the holder of a current lease. If "
                                    "Coordinated Leader Election is used, the holder identity must be equal to the "
                                    "elected LeaseCandidate.metadata.name field."),
                                age_col()},
                    .printer = print_lease},
           .strategy = {.validate = validate_lease}}};
}

}  // namespace kw::kinds
