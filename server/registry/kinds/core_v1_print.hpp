#pragma once
// The Table printers of the core/v1 kinds; the columns they fill are in core_v1.cpp's rows.
#include "core/api/print_support.hpp"

namespace kw::kinds {

using api::print::Cells;
using api::print::TimePoint;
using api::print::json;

Cells print_namespace(const json& object, TimePoint now);
Cells print_service(const json& object, TimePoint now);
Cells print_config_map(const json& object, TimePoint now);
Cells print_secret(const json& object, TimePoint now);
Cells print_service_account(const json& object, TimePoint now);
Cells print_endpoints(const json& object, TimePoint now);
Cells print_event(const json& object, TimePoint now);
// The Table columns of an Event, v1 or events.k8s.io/v1 (kube-apiserver prints both alike).
std::vector<api::ColumnDefinition> event_columns();
Cells print_node(const json& object, TimePoint now);
Cells print_pod(const json& object, TimePoint now);
Cells print_persistent_volume(const json& object, TimePoint now);
Cells print_persistent_volume_claim(const json& object, TimePoint now);
Cells print_replication_controller(const json& object, TimePoint now);
Cells print_pod_template(const json& object, TimePoint now);
Cells print_component_status(const json& object, TimePoint now);
Cells print_resource_quota(const json& object, TimePoint now);

}  // namespace kw::kinds
