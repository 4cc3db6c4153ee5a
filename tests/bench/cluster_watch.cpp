#include "bench/cluster_watch.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "core/codec/protobuf.hpp"

namespace kw::bench::cluster {

using nlohmann::json;

namespace {

constexpr std::string_view k_partial_metadata = "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata";
constexpr std::string_view k_partial_metadata_list = "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList";
constexpr std::string_view k_status = "k8s.io.apimachinery.pkg.apis.meta.v1.Status";

std::uint64_t to_u64(const json& value) {
  std::uint64_t out = 0;
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    std::from_chars(text.data(), text.data() + text.size(), out);
  }
  return out;
}

std::string text_at(const json& object, const char* a, const char* b) {
  if (!object.is_object()) return {};
  const auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) return {};
  const auto inner = outer->find(b);
  return inner != outer->end() && inner->is_string() ? inner->get<std::string>() : std::string();
}

ObjectView view_of(const json& object) {
  ObjectView view;
  view.name = text_at(object, "metadata", "name");
  view.resource_version = to_u64(json(text_at(object, "metadata", "resourceVersion")));
  view.deleting = !text_at(object, "metadata", "deletionTimestamp").empty();
  view.node_name = text_at(object, "spec", "nodeName");
  view.phase = text_at(object, "status", "phase");
  view.list_continue = text_at(object, "metadata", "continue");
  if (const auto items = object.find("items"); items != object.end() && items->is_array())
    view.items = static_cast<long>(items->size());
  if (const auto code = object.find("code"); code != object.end() && code->is_number_integer())
    view.status_code = code->get<int>();
  return view;
}

std::optional<ObjectView> read_protobuf(std::string_view bytes, bool full_pod, bool list) {
  auto envelope = codec::decode_envelope(bytes);
  if (!envelope) return std::nullopt;
  std::string_view message = list ? k_partial_metadata_list : k_partial_metadata;
  if (envelope->kind == "Status") message = k_status;
  else if (full_pod && envelope->kind == "Pod") message = "k8s.io.api.core.v1.Pod";
  auto object = codec::protobuf_to_json(envelope->raw, message);
  if (!object) return std::nullopt;
  return view_of(*object);
}

}  // namespace

std::optional<ObjectView> read_object(std::string_view bytes, bool full_pod) {
  if (bytes.starts_with(codec::k_protobuf_magic)) return read_protobuf(bytes, full_pod, false);
  json object = json::parse(bytes, nullptr, false);
  if (object.is_discarded()) return std::nullopt;
  return view_of(object);
}

std::optional<ObjectView> read_list(std::string_view bytes) {
  if (bytes.starts_with(codec::k_protobuf_magic)) return read_protobuf(bytes, false, true);
  json object = json::parse(bytes, nullptr, false);
  if (object.is_discarded()) return std::nullopt;
  return view_of(object);
}

bool WatchStream::start(H2Connection& connection, std::string resource_version) {
  m_resource_version = std::move(resource_version);
  m_gone = false;
  m_decoder.reset();
  const std::uint64_t generation = ++m_generation;
  std::string path = m_path + (m_path.find('?') == std::string::npos ? "?" : "&") + "watch=1&allowWatchBookmarks=true";
  if (!m_resource_version.empty()) path += "&resourceVersion=" + m_resource_version;
  H2Handler handler;
  handler.on_head = [this, generation](int status) {
    if (generation == m_generation && m_callbacks.on_head) m_callbacks.on_head(status);
  };
  handler.on_data = [this, generation](std::string_view bytes) {
    if (generation == m_generation) on_bytes(bytes);
  };
  handler.on_close = [this, generation](int status, bool) {
    if (generation == m_generation && m_callbacks.on_end) m_callbacks.on_end(status);
  };
  return connection.submit(H2Request{"GET", std::move(path), std::string(k_accept), {}, {}}, std::move(handler));
}

bool WatchStream::restart(H2Connection& connection) {
  return start(connection, m_gone ? std::string() : m_resource_version);
}

void WatchStream::on_bytes(std::string_view bytes) {
  if (!m_decoder) {
    // The first byte tells the framing: a JSON event opens with '{', a protobuf frame with
    // the high byte of its length.
    m_json = !bytes.empty() && bytes.front() == '{';
    m_decoder = m_json ? codec::make_json_frame_decoder() : codec::make_length_prefixed_frame_decoder();
  }
  if (!m_decoder->feed(bytes)) return;
  while (auto frame = m_decoder->next()) on_frame(*frame);
}

void WatchStream::on_frame(std::string_view frame) {
  WatchEvent event;
  std::optional<ObjectView> object;
  std::string type;
  if (m_json) {
    json parsed = json::parse(frame, nullptr, false);
    if (parsed.is_discarded() || !parsed.contains("type") || !parsed["type"].is_string()) return;
    type = parsed["type"].get<std::string>();
    object = view_of(parsed["object"]);
  } else {
    auto decoded = codec::decode_watch_event_protobuf(frame);
    if (!decoded) return;
    type = std::move(decoded->type);
    object = read_object(decoded->object, m_full_pod);
  }
  if (!object) return;
  event.type = type;
  event.object = std::move(*object);
  if (type == "ERROR") {
    if (event.object.status_code == 410) m_gone = true;
  } else if (event.object.resource_version != 0) {
    m_resource_version = std::to_string(event.object.resource_version);
  }
  if (m_callbacks.on_event) m_callbacks.on_event(event);
}

}  // namespace kw::bench::cluster
