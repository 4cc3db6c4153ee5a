#include "server/control/follow.hpp"

namespace kw::control {

Result<void> follow(registry::Registry& registry, const api::ResourceInfo& info, ObjectEvent on,
                    std::vector<std::unique_ptr<registry::Informer>>& informers) {
  registry::InformerHandlers handlers;
  handlers.replace = [on](const std::vector<cache::ObjectPtr>& all) {
    for (const auto& object : all) on(cache::EventType::added, *object);
  };
  handlers.change = [on](cache::EventType type, const cache::ObjectPtr& object) { on(type, *object); };
  auto informer = registry::Informer::start(registry, info, std::move(handlers));
  if (!informer) return fail("cannot follow " + info.plural + ": " + informer.error().message);
  informers.push_back(std::move(*informer));
  return {};
}

}  // namespace kw::control
