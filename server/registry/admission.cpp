#include "server/registry/admission.hpp"

namespace kw::registry {

ApiError admission_forbidden(const AdmissionRequest& request, const std::string& why) {
  std::string name = request.name;
  if (name.empty()) {
    const auto& meta = request.object.is_object() ? request.object.value("metadata", nlohmann::json::object())
                                                   : nlohmann::json::object();
    name = meta.value("name", std::string());
    if (name.empty()) name = meta.value("generateName", std::string());
    if (name.empty()) name = "Unknown";
  }
  return forbidden(request.info.group, request.info.plural, name, why);
}

}  // namespace kw::registry
