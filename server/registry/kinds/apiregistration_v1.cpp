// apiregistration.k8s.io/v1: APIService (served by kube-apiserver's aggregator).
#include <string>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

Cells print_api_service(const json& o, TimePoint now) {
  const auto& service = at(o, {"spec", "service"});
  const std::string where =
      service.is_object() ? str(at(service, {"namespace"})) + "/" + str(at(service, {"name"})) : std::string("Local");
  std::string available = "Unknown";
  if (const json& c = condition_of(o, "Available"); !c.is_null()) {
    const std::string status = str(at(c, {"status"}));
    const std::string reason = str(at(c, {"reason"}));
    available = status == "True" || reason.empty() ? status : status + " (" + reason + ")";
  }
  return {name_of(o), where, available, age_of(o, now)};
}

void default_api_service(json& o) {
  auto& spec = object_member(o, "spec");
  if (at(spec, {"service"}).is_object()) default_value(spec["service"], "port", 443);
}

// No status from the client; a local APIService (no service) is available at once.
void prepare_api_service(json& o) {
  o["status"] = json::object();
  if (at(o, {"spec", "service"}).is_object()) return;
  o["status"]["conditions"] = json::array({{{"type", "Available"},
                                            {"status", "True"},
                                            {"lastTransitionTime", at(o, {"metadata", "creationTimestamp"})},
                                            {"reason", "Local"},
                                            {"message", "Local APIServices are always available"}}});
}

// The bytes of a base64 value, without decoding it.
std::size_t decoded_size(const std::string& b64) {
  std::size_t n = b64.size() / 4 * 3;
  if (b64.ends_with("=="))
    n -= 2;
  else if (b64.ends_with("="))
    n -= 1;
  return n;
}

void validate_name(const json& o, Causes& causes) {
  const std::string name = name_of(o);
  const std::string wanted = str(at(o, {"spec", "version"})) + "." + str(at(o, {"spec", "group"}));
  // path.IsValidPathSegmentName first, then the name must be version.group.
  const auto segment_errors = path_segment_errors(name);
  invalid_each(causes, "metadata.name", name, segment_errors);
  if (segment_errors.empty() && name != wanted)
    invalid_value(causes, "metadata.name", name, "must be `spec.version+\".\"+spec.group`: " + json(wanted).dump());
}

void validate_api_service(const json& o, Causes& causes) {
  validate_name(o, causes);
  const auto& spec = at(o, {"spec"});
  const std::string group = str(at(spec, {"group"}));
  const std::string version = str(at(spec, {"version"}));
  if (group.empty() && version != "v1")
    required(causes, "spec.group", "only v1 may have an empty group and it better be legacy kube");
  if (!group.empty()) invalid_each(causes, "spec.group", group, subdomain_errors(group));
  invalid_each(causes, "spec.version", version, dns1035_label_errors(version));
  const std::int64_t group_priority = num(at(spec, {"groupPriorityMinimum"}));
  if (group_priority <= 0 || group_priority > 20000)
    invalid_value(causes, "spec.groupPriorityMinimum", group_priority, "must be positive and less than 20000");
  const std::int64_t version_priority = num(at(spec, {"versionPriority"}));
  if (version_priority <= 0 || version_priority > 1000)
    invalid_value(causes, "spec.versionPriority", version_priority, "must be positive and less than 1000");
  const std::string ca_bundle = str(at(spec, {"caBundle"}));
  const bool skip_verify = at(spec, {"insecureSkipTLSVerify"}) == true;
  const auto& service = at(spec, {"service"});
  if (!service.is_object()) {
    if (!ca_bundle.empty())
      invalid_value(causes, "spec.caBundle", std::to_string(decoded_size(ca_bundle)) + " bytes",
                    "local APIServices may not have a caBundle");
    if (skip_verify)
      invalid_value(causes, "spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify");
  } else {
    if (str(at(service, {"namespace"})).empty()) required(causes, "spec.service.namespace");
    if (str(at(service, {"name"})).empty()) required(causes, "spec.service.name");
    if (skip_verify && !ca_bundle.empty())
      invalid_value(causes, "spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present");
  }
  // ValidateAPIServiceStatus (kube checks it on status writes; a spec write keeps the stored status).
  const auto& conditions = arr(at(o, {"status", "conditions"}));
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const auto& status = at(conditions[i], {"status"});
    if (status != "True" && status != "False" && status != "Unknown")
      unsupported(causes, index_path("status.conditions", i) + ".status", status.is_string() ? status : json(""),
                  {"True", "False", "Unknown"});
  }
}

}  // namespace

std::vector<KindSpec> apiregistration_v1_kinds() {
  return {
      {.info = {.group = "apiregistration.k8s.io",
                .version = "v1",
                .kind = "APIService",
                .plural = "apiservices",
                .categories = {"api-extensions"},
                .namespaced = false,
                .subresources = {"status"},
                .columns = {name_col(),
                            col("Service", "string", "The reference to the service that hosts this API endpoint."),
                            col("Available", "string", "Whether this service is available."), age_col()},
                .printer = print_api_service},
       .storage_resource = "apiregistration.k8s.io/apiservices",
       .status_keeps_meta = {"labels", "annotations", "finalizers", "ownerReferences"},
       // (the core group's is "v1.": the name is checked against spec.version.spec.group)
       .name_rule = NameRule::path_segment,
       .strategy = {
           .defaults = default_api_service, .prepare_create = prepare_api_service, .validate = validate_api_service}}};
}

}  // namespace kw::kinds
