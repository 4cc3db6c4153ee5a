#include "bench/cluster_watch.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_wire.hpp"

namespace kw::bench::cluster {

using codec::WireField;
using codec::WireReader;
using nlohmann::json;

namespace {

// The few fields read from protobuf objects, by Kubernetes' field numbers.
constexpr std::uint32_t k_object_metadata = 1, k_pod_spec = 2, k_pod_status = 3;  // Pod, Node, Lease...
constexpr std::uint32_t k_meta_name = 1, k_meta_resource_version = 6, k_meta_deletion_timestamp = 9;  // ObjectMeta
constexpr std::uint32_t k_spec_node_name = 10;                                                    // PodSpec
constexpr std::uint32_t k_status_phase = 1;                                                       // PodStatus
constexpr std::uint32_t k_list_items = 2;                                            // any List
constexpr std::uint32_t k_list_meta_resource_version = 2, k_list_meta_continue = 3;  // ListMeta
constexpr std::uint32_t k_status_code = 6;                                           // meta/v1 Status

std::uint64_t to_u64(std::string_view text) {
  std::uint64_t out = 0;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

// The one string field `number` of a message, or "".
std::string_view string_field(std::string_view message, std::uint32_t number) {
  WireReader reader(message);
  std::string_view out;
  for (WireField field; reader.next(field);)
    if (field.number == number) out = field.bytes;
  return out;
}

bool read_object_meta(std::string_view meta, ObjectView& view) {
  WireReader reader(meta);
  for (WireField field; reader.next(field);) {
    if (field.number == k_meta_name) view.name = field.bytes;
    else if (field.number == k_meta_resource_version) view.resource_version = to_u64(field.bytes);
    else if (field.number == k_meta_deletion_timestamp) view.deleting = true;
  }
  return !reader.bad();
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
  view.resource_version = to_u64(text_at(object, "metadata", "resourceVersion"));
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
  ObjectView view;
  const bool status = envelope->kind == "Status";
  const bool pod = full_pod && envelope->kind == "Pod";
  WireReader reader(envelope->raw);
  for (WireField field; reader.next(field);) {
    if (status) {
      if (field.number == k_status_code) view.status_code = static_cast<int>(field.varint);
    } else if (list) {
      if (field.number == k_object_metadata) {
        view.resource_version = to_u64(string_field(field.bytes, k_list_meta_resource_version));
        view.list_continue = string_field(field.bytes, k_list_meta_continue);
      } else if (field.number == k_list_items) {
        ++view.items;
      }
    } else if (field.number == k_object_metadata) {
      if (!read_object_meta(field.bytes, view)) return std::nullopt;
    } else if (pod && field.number == k_pod_spec) {
      view.node_name = string_field(field.bytes, k_spec_node_name);
    } else if (pod && field.number == k_pod_status) {
      view.phase = string_field(field.bytes, k_status_phase);
    }
  }
  if (reader.bad()) return std::nullopt;
  return view;
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
