#include "server/http/handlers/handlers.hpp"

#include <algorithm>

namespace kw::http::handlers {
namespace {

// The DeleteOptions of the body (null without one) and the write options; answers the error
// itself and returns false.
bool delete_options(const ResourceRequest& r, std::vector<std::string>& warnings, nlohmann::json& options,
                    std::optional<registry::WriteOptions>& write) {
  write = write_options(r, warnings);
  if (!write) return false;
  if (!r.request.body.empty()) {
    auto body = read_body(r.request);
    if (!body) {
      r.fail(body.error());
      return false;
    }
    options = std::move(*body);
  }
  // DeleteOptions.dryRun (kubectl sends it in the body) means the same as the query's.
  if (options.is_object() && options.contains("dryRun")) {
    const auto& modes = options["dryRun"];
    if (!modes.is_array() ||
        std::any_of(modes.begin(), modes.end(), [](const nlohmann::json& m) { return m != "All"; })) {
      r.fail(registry::bad_request("dryRun: Unsupported value: " + dump_json(modes) + ": supported values: \"All\""));
      return false;
    }
    if (!modes.empty()) write->dry_run = true;
  }
  return true;
}

}  // namespace

void remove(const ResourceRequest& r) {
  auto format = negotiate(r, {.protobuf = !r.resource.proto_message.empty()});
  if (!format) return;
  std::vector<std::string> warnings;
  nlohmann::json options;
  std::optional<registry::WriteOptions> write;
  if (!delete_options(r, warnings, options, write)) return;
  reply(r, *format, 200, r.registry.remove(r.resource, r.info.namespace_, r.info.name, options, *write), warnings);
}

void remove_collection(const ResourceRequest& r) {
  auto format = negotiate(r, {.protobuf = !r.resource.proto_message.empty()});
  if (!format) return;
  std::vector<std::string> warnings;
  nlohmann::json options;
  std::optional<registry::WriteOptions> write;
  if (!delete_options(r, warnings, options, write)) return;
  registry::ListRequest request;
  request.namespace_ = r.info.namespace_;
  request.label_selector = r.param("labelSelector");
  request.field_selector = r.param("fieldSelector");
  auto listed = r.registry.list(r.resource, request);
  if (!listed) return r.fail(listed.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : listed->items) {
    auto removed = r.registry.remove(r.resource, item->namespace_, item->name, options, *write);
    if (removed) items.push_back(std::move(*removed));
    else if (removed.error().code != 404) return r.fail(removed.error());
  }
  send_object(*r.stream, 200,
              {{"kind", r.resource.list_kind},
               {"apiVersion", r.resource.api_version()},
               {"metadata", {{"resourceVersion", listed->resource_version}}},
               {"items", std::move(items)}},
              *format, warnings);
}

}  // namespace kw::http::handlers
