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

}  // namespace kw::admission
