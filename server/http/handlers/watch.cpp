#include "server/http/handlers/handlers.hpp"

#include <algorithm>
#include <random>

#include "server/http/watch_stream.hpp"

namespace kw::http::handlers {
namespace {

// timeoutSeconds, or (when it is absent or 0) a random time between one and two minimum request
// timeouts (as kube-apiserver spreads watch ends so that reconnects do not come in waves). A
// negative timeoutSeconds ends the watch at once, as kube-apiserver's timer does.
std::optional<std::chrono::seconds> watch_timeout(const ResourceRequest& r, std::chrono::seconds minimum) {
  std::chrono::seconds timeout{0};
  if (const auto t = r.param("timeoutSeconds"); !t.empty()) {
    try {
      timeout = std::chrono::seconds(std::stoll(t));
    } catch (const std::exception&) {
      r.fail(registry::bad_request("timeoutSeconds: Invalid value: \"" + t + "\""));
      return std::nullopt;
    }
  }
  // A clock's time point holds some 292 years of nanoseconds: a longer timeout (INT64_MAX
  // seconds) would wrap around and end the watch at once. Fifty years is "no timeout".
  constexpr std::chrono::seconds k_longest{50LL * 365 * 24 * 3600};
  timeout = std::min(timeout, k_longest);
  if (timeout.count() == 0) {
    std::mt19937_64 engine{std::random_device{}()};
    const auto base = std::max<std::int64_t>(minimum.count(), 1);
    timeout = std::chrono::seconds(base + static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(base)));
  }
  return timeout;
}

}  // namespace

void watch(const ResourceRequest& r, const WatchSettings& settings) {
  auto format = negotiate(r, {.partial_metadata = "PartialObjectMetadata",
                                .watch = true,
                                .table = true,
                                .protobuf = !r.resource.proto_message.empty()});
  if (!format) return;
  const auto timeout = watch_timeout(r, settings.min_request_timeout);
  if (!timeout) return;
  registry::WatchRequest request;
  request.namespace_ = r.info.namespace_;
  request.name = r.info.name;
  request.label_selector = r.param("labelSelector");
  request.field_selector = r.param("fieldSelector");
  request.resource_version = r.param("resourceVersion");
  request.resource_version_match = r.param("resourceVersionMatch");
  if (r.query.contains("sendInitialEvents")) request.send_initial_events = query_bool(r.query, "sendInitialEvents");
  request.allow_bookmarks = query_bool(r.query, "allowWatchBookmarks");
  request.deadline = std::chrono::steady_clock::now() + *timeout;

  std::shared_ptr<WatchStream> sink;
  auto open = [&]() -> std::shared_ptr<cache::WatchSink> {
    // Over WebSocket, protobuf events travel as binary messages and JSON/YAML as text.
    const bool binary = format->format == Format::protobuf;
    r.stream->begin({200, {{"content-type", format->content_type}, {"cache-control", k_no_cache}}, binary});
    sink = std::make_shared<WatchStream>(r.stream, r.resource, *format, settings.max_queue_bytes,
                                         r.request.protocol == net::Protocol::websocket);
    if (settings.started) ++*settings.started;
    return sink;
  };
  auto started = r.registry.watch(r.resource, request, open);
  if (started) return r.stream->flush();
  if (!sink) return r.fail(started.error());
  // After the response began, errors travel inside the stream (HTTP 200 and one ERROR event).
  r.stream->write(sink->error_frame(started.error().status()));
  r.stream->finish();
}

}  // namespace kw::http::handlers
