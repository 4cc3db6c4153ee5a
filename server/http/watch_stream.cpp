#include "server/http/watch_stream.hpp"

#include "core/codec/frame.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"

namespace kw::http {

WatchStream::WatchStream(std::shared_ptr<net::ResponseStream> stream, const api::ResourceInfo& info,
                         Negotiated format, std::size_t max_queued_bytes)
    : m_stream(std::move(stream)), m_info(info), m_format(std::move(format)), m_max_queued(max_queued_bytes) {}

// {"type":...,"object":...} with type first, as kube-apiserver writes it.
std::string event_json(std::string_view type, const nlohmann::json& object) {
  std::string out = "{\"type\":\"";
  out += type;
  out += "\",\"object\":";
  out += object.dump();
  out += "}\n";
  return out;
}

// A length-prefixed protobuf WatchEvent; a Status ERROR event if the object has no protobuf form.
std::string event_protobuf(std::string_view type, const nlohmann::json& object) {
  auto enveloped = codec::encode_object_protobuf(object, codec::builtin_message_for);
  if (enveloped) return codec::frame_length_prefixed(codec::encode_watch_event_protobuf(type, *enveloped));
  const nlohmann::json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                                 {"status", "Failure"}, {"reason", "InternalError"}, {"code", 500},
                                 {"message", "cannot encode the event as protobuf: " + enveloped.error().message}};
  auto error = codec::encode_object_protobuf(status, codec::builtin_message_for);
  return codec::frame_length_prefixed(codec::encode_watch_event_protobuf("ERROR", error ? *error : std::string()));
}

std::string WatchStream::error_frame(const nlohmann::json& status) const {
  switch (m_format.format) {
    case Format::protobuf: return event_protobuf("ERROR", status);
    case Format::yaml: return "---\n" + codec::json_to_yaml(nlohmann::json{{"type", "ERROR"}, {"object", status}});
    default: return event_json("ERROR", status);
  }
}

std::shared_ptr<const std::string> WatchStream::frame(const cache::WatchEvent& event) {
  const char* type = cache::to_string(event.type());
  const nlohmann::json& object = event.object()->object;
  switch (m_format.format) {
    case Format::json:
      return event.encoded("json", [&] { return event_json(type, object); });
    case Format::yaml:
      return event.encoded("yaml", [&] {
        std::string out = "---\ntype: ";
        out += type;
        out += "\nobject:\n";
        const std::string body = codec::json_to_yaml(object);
        for (std::size_t start = 0; start < body.size();) {
          const auto end = body.find('\n', start);
          out += "  " + body.substr(start, end - start + 1);
          start = end == std::string::npos ? body.size() : end + 1;
        }
        return out;
      });
    case Format::protobuf:
      return event.encoded("protobuf", [&] { return event_protobuf(type, object); });
    case Format::table: {
      auto make = [&](bool with_columns) {
        nlohmann::json table = {{"kind", "Table"},
                                {"apiVersion", "meta.k8s.io/v1"},
                                {"metadata", {{"resourceVersion", std::to_string(event.revision())}}},
                                {"columnDefinitions", with_columns ? table_columns(m_info) : nlohmann::json()},
                                {"rows", nlohmann::json::array()}};
        if (event.type() != cache::EventType::bookmark)
          table["rows"].push_back(table_row(m_info, object, m_format.include_object, std::chrono::system_clock::now()));
        return event_json(type, table);
      };
      if (m_first && event.type() != cache::EventType::bookmark) {
        m_first = false;
        return std::make_shared<const std::string>(make(true));
      }
      return event.encoded("table:" + m_format.include_object, [&] { return make(false); });
    }
  }
  return nullptr;
}

bool WatchStream::try_send(const cache::EventPtr& event) {
  if (closed()) return true;  // dropped; the cache reaps closed sinks
  if (!writable()) return false;
  m_stream->write(frame(*event));
  return true;
}

void WatchStream::send(const cache::EventPtr& event) {
  if (!closed()) m_stream->write(frame(*event));
}

bool WatchStream::writable() const { return m_stream->queued_bytes() <= m_max_queued; }

void WatchStream::flush() {
  if (!closed()) m_stream->flush();
}

void WatchStream::close(const std::string& reason) {
  (void)reason;
  if (m_closed.exchange(true)) return;
  m_stream->finish();
}

bool WatchStream::closed() const { return m_closed.load() || m_stream->closed(); }

}  // namespace kw::http
