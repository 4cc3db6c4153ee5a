// storage.k8s.io/v1beta1: CSIStorageCapacity, still read by kube-scheduler 1.23 and older. The
// objects are the storage.k8s.io/v1 ones (same fields, same etcd key): only apiVersion differs.
#include <string>

#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {

// The CSIStorageCapacity row of the given version (storage_v1.cpp).
KindSpec csi_storage_capacity_row(std::string version);

std::vector<KindSpec> storage_v1beta1_kinds() {
  KindSpec row = csi_storage_capacity_row("v1beta1");
  row.stored_as = StoredAs{"storage.k8s.io/v1", nullptr, nullptr};
  return {std::move(row)};
}

}  // namespace kw::kinds
