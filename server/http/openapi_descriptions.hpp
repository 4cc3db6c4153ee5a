#pragma once
// Help text for the OpenAPI schemas (what `kubectl explain` prints), keyed by
// protobuf full name: a message ("k8s.io.api.core.v1.Pod") or a field
// ("k8s.io.api.core.v1.PodSpec.containers"). Fields of inline messages (Probe's
// ProbeHandler, Volume's VolumeSource) are keyed under the inlined message.
// The table is constant; a unit test checks that every key names a message or
// field of the compiled descriptors.
#include <span>
#include <string_view>
#include <vector>

namespace kw::http::openapi {

struct Description {
  std::string_view key;   // protobuf full name of a message or field
  std::string_view text;  // one or two sentences
};

// The description of a message or field; empty when the table has none.
std::string_view description_of(std::string_view proto_full_name);

// Every entry of the table, part by part.
std::vector<Description> all_descriptions();

// The parts of the table, one per area of the API.
std::span<const Description> meta_descriptions();      // meta/v1, Quantity, IntOrString
std::span<const Description> pod_descriptions();       // Pod, PodSpec, Container and what they use
std::span<const Description> workload_descriptions();  // PodStatus, probes, volumes, env sources
std::span<const Description> core_descriptions();      // the other core/v1 kinds
std::span<const Description> apps_descriptions();      // apps/v1
std::span<const Description> batch_descriptions();     // batch/v1 and coordination.k8s.io/v1

}  // namespace kw::http::openapi
