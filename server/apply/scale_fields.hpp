#pragma once
// A workload's managedFields as its /scale subresource sees them, and a Scale write's entries
// folded back into the workload's, as kube-apiserver's scale handler maps them. The Scale has
// one field that matters, spec.replicas: a manager of the workload that owns the workload's
// replicas path owns the Scale's spec.replicas, and the other way round.
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/apply/fieldpath.hpp"

namespace kw::apply {

// Where the workload keeps its replicas at the apiVersion a managedFields entry names:
// nullopt for a version the workload was never served at (its entries are dropped), an empty
// path for a version without a scale subresource (its entries are kept as they are).
using ReplicasPathAt = std::function<std::optional<Path>(std::string_view api_version)>;

// ".spec.replicas" -> the path of fields spec, replicas.
Path field_path(std::string_view dotted);

// The Scale's managedFields (a JSON array, or null for none): the workload's entries that own
// its replicas, each owning spec.replicas at autoscaling/v1, with its time.
std::expected<nlohmann::json, std::string> scale_managed_fields(const nlohmann::json& workload_entries,
                                                                const ReplicasPathAt& replicas_at);

// The workload's managedFields after a Scale write left `scale_entries`:
// - a workload entry owning the replicas keeps them only when a Scale entry has its identity;
//   otherwise it loses them (and goes when nothing is left);
// - each other Scale entry owning spec.replicas becomes an entry of `api_version` owning the
//   workload's replicas path there, with the time the workload's entry of that identity had
//   (none when it had none).
// Entries are matched by identity as decoded, which includes the apiVersion of Update entries,
// so a Scale entry of autoscaling/v1 never matches the workload's Update entry it came from.
std::expected<nlohmann::json, std::string> workload_managed_fields(const nlohmann::json& workload_entries,
                                                                   const nlohmann::json& scale_entries,
                                                                   const ReplicasPathAt& replicas_at,
                                                                   const std::string& api_version);

}  // namespace kw::apply
