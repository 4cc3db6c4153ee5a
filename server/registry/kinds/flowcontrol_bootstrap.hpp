#pragma once
// The mandatory API priority and fairness configuration: the "exempt" and "catch-all"
// PriorityLevelConfigurations and FlowSchemas kube-apiserver always keeps (each annotated
// apf.kubernetes.io/autoupdate-spec: "true"), in their defaulted flowcontrol.apiserver.k8s.io/v1
// form, priority levels first. The server creates the missing ones at start-up; validation
// holds their specs fixed (the exempt level's spec.exempt aside).
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::kinds {

const std::vector<nlohmann::json>& flowcontrol_mandatory_objects();

// The suggested configuration (system, node-high, leader-election, workload-high, workload-low
// and global-default levels and the FlowSchemas that use them, each annotated
// apf.kubernetes.io/autoupdate-spec: "true"), created at start-up when missing; not held fixed.
const std::vector<nlohmann::json>& flowcontrol_suggested_objects();

}  // namespace kw::kinds
