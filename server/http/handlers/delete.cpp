#include "server/http/handlers/handlers.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::http::handlers {
namespace {

// A delete's start: the write context and the body's DeleteOptions (null without a body);
// false when the request was answered already.
bool begin_delete(const ResourceRequest& r, WriteContext& write, nlohmann::json& options) {
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()}, "DeleteOptions")) return false;
  if (!r.request.body.empty()) {
    auto body = read_body(r.request);
    if (!body) {
      r.fail(body.error());
      return false;
    }
    options = std::move(*body);
    r.audited_request(options);
  } else {
    // Without a body, the DeleteOptions come from the query (kube's ParameterCodec).
    if (const auto grace = r.param("gracePeriodSeconds"); !grace.empty()) {
      std::int64_t seconds = 0;
      const auto [end, ec] = std::from_chars(grace.data(), grace.data() + grace.size(), seconds);
      if (ec != std::errc() || end != grace.data() + grace.size()) {
        r.fail(registry::bad_request("gracePeriodSeconds: invalid value \"" + grace + "\": must be an integer"));
        return false;
      }
      options["gracePeriodSeconds"] = seconds;
    }
    if (const auto policy = r.param("propagationPolicy"); !policy.empty()) options["propagationPolicy"] = policy;
    if (const auto orphan = r.param("orphanDependents"); !orphan.empty()) options["orphanDependents"] = query_bool(r.query, "orphanDependents");
  }
  // DeleteOptions.dryRun (kubectl sends it in the body) means the same as the query's.
  if (options.is_object() && options.contains("dryRun")) {
    const auto& modes = options["dryRun"];
    if (auto refused = dry_run_refusal("DeleteOptions", modes)) {
      r.fail(*refused);
      return false;
    }
    if (!modes.empty()) write.options.dry_run = true;
  }
  return true;
}

// What kube-apiserver answers a DELETE that removed an object at once: a Success Status that
// names it (details.kind is the resource, as kube writes it).
nlohmann::json deleted_status(const api::ResourceInfo& resource, const nlohmann::json& object) {
  const auto meta = object.value("metadata", nlohmann::json::object());
  nlohmann::json details = {{"name", meta.value("name", "")}, {"kind", resource.plural}};
  if (!resource.group.empty()) details["group"] = resource.group;
  if (const std::string uid = meta.value("uid", ""); !uid.empty()) details["uid"] = uid;
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
          {"status", "Success"}, {"details", std::move(details)}};
}

}  // namespace

void remove(const ResourceRequest& r) {
  WriteContext write;
  nlohmann::json options;
  if (!begin_delete(r, write, options)) return;
  auto removed = r.registry.remove(r.resource, r.info.namespace_, r.info.name, options, write.options);
  if (!removed) return r.fail(removed.error());
  const auto* row = kinds::find_kind(r.resource.group, r.resource.version, r.resource.plural);
  if (!removed->gone || (row && row->delete_returns_object))
    return reply(r, write.format, 200, std::move(removed->object), write.warnings);
  reply(r, write.format, 200, deleted_status(r.resource, removed->object), write.warnings);
}

void remove_collection(const ResourceRequest& r) {
  WriteContext write;
  nlohmann::json options;
  if (!begin_delete(r, write, options)) return;
  registry::ListRequest request;
  request.namespace_ = r.info.namespace_;
  request.label_selector = r.param("labelSelector");
  request.field_selector = r.param("fieldSelector");
  auto listed = r.registry.list(r.resource, request);
  if (!listed) return r.fail(listed.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : listed->items) {
    auto removed = r.registry.remove(r.resource, item->namespace_, item->name, options, write.options);
    if (removed) items.push_back(std::move(removed->object));
    else if (removed.error().code != 404) return r.fail(removed.error());
  }
  const nlohmann::json removed_list = {{"kind", r.resource.list_kind},
                                       {"apiVersion", r.resource.api_version()},
                                       {"metadata", {{"resourceVersion", listed->resource_version}}},
                                       {"items", std::move(items)}};
  if (r.audit) r.audit->response_object(removed_list);
  send_object(*r.stream, 200, removed_list, write.format, write.warnings);
}

}  // namespace kw::http::handlers
