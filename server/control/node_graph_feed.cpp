#include "server/control/node_graph_feed.hpp"

namespace kw::control {

Result<std::unique_ptr<NodeGraphFeed>> NodeGraphFeed::start(registry::Registry& registry,
                                                            std::shared_ptr<auth::NodeGraph> graph) {
  struct Followed {
    const char* group;
    const char* plural;
  };
  constexpr Followed k_followed[] = {
      {"", "pods"}, {"", "persistentvolumes"}, {"storage.k8s.io", "volumeattachments"}, {"", "nodes"}};
  const auto table = registry.resources();
  std::unique_ptr<NodeGraphFeed> feed(new NodeGraphFeed());
  for (const auto& [group, plural] : k_followed) {
    const auto* info = table->find_plural(group, "v1", plural);
    if (info == nullptr) return fail(std::string("the server does not serve ") + plural);
    const std::string kind = plural;
    registry::InformerHandlers handlers;
    handlers.replace = [graph, kind](const std::vector<cache::ObjectPtr>& all) {
      // The cache keeps most objects lean: each tree is made for the graph and let go.
      graph->replace(kind, [&all](const std::function<void(const nlohmann::json&)>& take) {
        for (const auto& object : all) object->with_tree(take);
      });
    };
    handlers.change = [graph, kind](cache::EventType type, const cache::ObjectPtr& object) {
      if (type == cache::EventType::deleted) graph->remove(kind, object->namespace_, object->name);
      else graph->apply(kind, object->object());
    };
    auto informer = registry::Informer::start(registry, *info, std::move(handlers));
    if (!informer) return fail("cannot follow " + kind + ": " + informer.error().message);
    feed->m_informers.push_back(std::move(*informer));
  }
  return feed;
}

}  // namespace kw::control
