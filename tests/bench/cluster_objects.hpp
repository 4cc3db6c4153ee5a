#pragma once
// The objects a simulated cluster writes, shaped like a kubelet's and a controller's: a Node
// with about 4 KiB of status, its status heartbeat patch, its Lease, a Pod of about 2-3 KiB,
// the kubelet's Running status patch and the scheduler's Binding. All JSON text.
#include <string>
#include <string_view>

namespace kw::bench::cluster {

inline constexpr std::string_view k_lease_namespace = "kube-node-lease";

// RFC 3339 UTC with seconds ("2026-01-02T03:04:05Z"), and with microseconds (MicroTime).
std::string now_rfc3339();
std::string now_rfc3339_micro();

// The node's index picks its addresses and images, so every node is a little different.
std::string node_body(std::string_view name, int index);
// A strategic merge patch of status: fresh heartbeat times on the conditions.
std::string node_status_patch();
std::string lease_body(std::string_view name);
// A merge patch of spec.renewTime.
std::string lease_renew_patch();
// `node` set: already scheduled there (spec.nodeName), as pods of a cluster at steady state.
std::string pod_body(std::string_view name, std::string_view namespace_name, long index, std::string_view node = {});
// A strategic merge patch of status: Running, Ready, with an IP and container statuses.
std::string pod_running_patch(std::string_view name, long index);
std::string binding_body(std::string_view pod, std::string_view namespace_name, std::string_view node);
std::string namespace_body(std::string_view name);

}  // namespace kw::bench::cluster
