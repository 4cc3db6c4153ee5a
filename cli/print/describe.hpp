#pragma once
// kubectl describe's text for the parts kw prints: a pod template (what `kw rollout history
// --revision` and `kw rollout undo --dry-run=client` show), line for line as kubectl writes
// it, with tabs left in place.
#include <string>

#include <nlohmann/json.hpp>

namespace kw::cli {

// "Pod Template:" and the template's labels, annotations, containers, volumes, node
// selectors and tolerations (kubectl's DescribePodTemplate).
std::string describe_pod_template(const nlohmann::json& pod_template);

}  // namespace kw::cli
