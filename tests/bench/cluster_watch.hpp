#pragma once
// Reading what the server sends the cluster load generator: enveloped protobuf objects (or
// JSON, when the server answered so) reduced to the few fields the simulation acts on, and
// one watch stream on a multiplexed HTTP/2 connection, decoded frame by frame.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/h2_mux.hpp"
#include "core/codec/frame.hpp"

namespace kw::bench::cluster {

// The Accept header client-go sends for built-in kinds.
inline constexpr std::string_view k_accept = "application/vnd.kubernetes.protobuf, application/json";

struct ObjectView {
  std::string name;
  std::uint64_t resource_version = 0;
  bool deleting = false;       // metadata.deletionTimestamp set
  std::string node_name;       // pods, when decoded in full
  std::string phase;           // pods, when decoded in full
  std::string list_continue;   // lists
  long items = 0;              // lists
  int status_code = 0;         // a Status object's code
};

// What a response or event object says. `full_pod` decodes a whole Pod (spec.nodeName,
// status.phase); otherwise only metadata is read. Handles "k8s\0" protobuf and JSON.
std::optional<ObjectView> read_object(std::string_view bytes, bool full_pod);
// A list response: ListMeta's resourceVersion and continue token, and the item count.
std::optional<ObjectView> read_list(std::string_view bytes);

struct WatchEvent {
  std::string_view type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  ObjectView object;
};

// One watch request on a connection. `path` is the collection path with its query (without
// resourceVersion); the stream starts at `resource_version` ("" = now) and resumes from the
// last event it saw when restarted.
class WatchStream {
 public:
  struct Callbacks {
    std::function<void(const WatchEvent&)> on_event;
    std::function<void(int status)> on_head;
    // The stream ended (status 0 when it never got a response head).
    std::function<void(int status)> on_end;
  };
  WatchStream(std::string path, bool full_pod, Callbacks callbacks)
      : m_path(std::move(path)), m_full_pod(full_pod), m_callbacks(std::move(callbacks)) {}

  // Opens the stream; false when the connection is gone.
  bool start(H2Connection& connection, std::string resource_version);
  // Reopens from the last resourceVersion seen (after a 410 Gone: from now).
  bool restart(H2Connection& connection);
  const std::string& resource_version() const { return m_resource_version; }
  bool gone() const { return m_gone; }

 private:
  void on_bytes(std::string_view bytes);
  void on_frame(std::string_view frame);

  std::string m_path;
  bool m_full_pod;
  Callbacks m_callbacks;
  std::string m_resource_version;
  std::unique_ptr<codec::FrameDecoder> m_decoder;
  bool m_json = false;
  bool m_gone = false;
  std::uint64_t m_generation = 0;  // streams before a restart leave their bytes unread
};

}  // namespace kw::bench::cluster
