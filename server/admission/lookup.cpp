#include "server/admission/lookup.hpp"

namespace kw::admission {

bool writes_object(const registry::AdmissionRequest& request, std::string_view group, std::string_view plural) {
  return request.subresource.empty() && request.info.group == group && request.info.plural == plural &&
         request.object.is_object();
}

registry::ApiError internal_forbidden(const registry::AdmissionRequest& request, const std::string& why) {
  std::string text = "Internal error occurred: ";
  text += why;  // (not `"..." + why`: GCC 12 warns falsely about it, -Wrestrict)
  return registry::admission_forbidden(request, text);
}

Result<std::unique_ptr<registry::Informer>> follow_by_name(registry::Registry& registry, const std::string& group,
                                                           const std::string& version, const std::string& plural,
                                                           std::function<void(const ObjectsByName&)> changed) {
  const auto table = registry.resources();
  const auto* info = table->find_plural(group, version, plural);
  if (info == nullptr) return fail(group + "/" + version + " " + plural + " is not served");
  // The handlers run one at a time, so the set needs no lock of its own.
  auto objects = std::make_shared<ObjectsByName>();
  registry::InformerHandlers handlers;
  handlers.replace = [objects, changed](const std::vector<cache::ObjectPtr>& all) {
    objects->clear();
    for (const auto& object : all) (*objects)[object->name] = object->object();
    changed(*objects);
  };
  handlers.change = [objects, changed](cache::EventType type, const cache::ObjectPtr& object) {
    if (type == cache::EventType::deleted) objects->erase(object->name);
    else (*objects)[object->name] = object->object();
    changed(*objects);
  };
  auto informer = registry::Informer::start(registry, *info, std::move(handlers));
  if (!informer) return fail("cannot follow " + plural + ": " + informer.error().message);
  return std::move(*informer);
}

}  // namespace kw::admission
