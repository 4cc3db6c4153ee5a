#include "server/http/handlers/handlers.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace kw::http::handlers {
namespace {

// A delete's start: the write context and the body's DeleteOptions (null without a body);
// false when the request was answered already.
bool begin_delete(const ResourceRequest& r, WriteContext& write, nlohmann::json& options) {
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()})) return false;
  if (!r.request.body.empty()) {
    auto body = read_body(r.request);
    if (!body) {
      r.fail(body.error());
      return false;
    }
    options = std::move(*body);
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
    if (const auto orphan = r.param("orphanDependents"); !orphan.empty()) options["orphanDependents"] = orphan == "true";
  }
  // DeleteOptions.dryRun (kubectl sends it in the body) means the same as the query's.
  if (options.is_object() && options.contains("dryRun")) {
    const auto& modes = options["dryRun"];
    if (!modes.is_array() ||
        std::any_of(modes.begin(), modes.end(), [](const nlohmann::json& m) { return m != "All"; })) {
      r.fail(registry::bad_request("dryRun: Unsupported value: " + dump_json(modes) + ": supported values: \"All\""));
      return false;
    }
    if (!modes.empty()) write.options.dry_run = true;
  }
  return true;
}

}  // namespace

void remove(const ResourceRequest& r) {
  WriteContext write;
  nlohmann::json options;
  if (!begin_delete(r, write, options)) return;
  reply(r, write.format, 200, r.registry.remove(r.resource, r.info.namespace_, r.info.name, options, write.options),
        write.warnings);
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
    if (removed) items.push_back(std::move(*removed));
    else if (removed.error().code != 404) return r.fail(removed.error());
  }
  send_object(*r.stream, 200,
              {{"kind", r.resource.list_kind},
               {"apiVersion", r.resource.api_version()},
               {"metadata", {{"resourceVersion", listed->resource_version}}},
               {"items", std::move(items)}},
              write.format, write.warnings);
}

}  // namespace kw::http::handlers
