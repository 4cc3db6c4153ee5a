#pragma once
// Keeps the Node authorizer's graph (auth::NodeGraph) current from the watch caches of pods,
// PersistentVolumes, VolumeAttachments and nodes, as kube-apiserver's graph populator does.
//
//   auto graph = std::make_shared<auth::NodeGraph>();
//   auto feed = control::NodeGraphFeed::start(registry, graph);   // before serving
#include <memory>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/node_authorizer.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

class NodeGraphFeed {
 public:
  // `graph` holds the current state when this returns. Destroy before `registry`.
  static Result<std::unique_ptr<NodeGraphFeed>> start(registry::Registry& registry,
                                                      std::shared_ptr<auth::NodeGraph> graph);

 private:
  NodeGraphFeed() = default;
  std::vector<std::unique_ptr<registry::Informer>> m_informers;
};

}  // namespace kw::control
