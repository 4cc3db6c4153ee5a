#include "server/http/watch_stream.hpp"

#include <algorithm>
#include <cstdint>

#include "core/codec/watch_event.hpp"

namespace kw::http {

WatchStream::WatchStream(std::shared_ptr<net::ResponseStream> stream, const api::ResourceInfo& info,
                         Negotiated format, std::size_t max_queued_bytes, bool message_framed)
    : m_stream(std::move(stream)),
      m_max_queued(static_cast<std::uint32_t>(std::min<std::size_t>(max_queued_bytes, UINT32_MAX))),
      m_format(format.format),
      m_message_framed(message_framed),
      m_metadata_only(format.metadata_only) {
  if (m_format == Format::table) {
    m_table_info = std::make_unique<const api::ResourceInfo>(info);
    m_table_format = std::make_unique<const Negotiated>(std::move(format));
  }
}

std::string WatchStream::error_frame(const nlohmann::json& status) const {
  switch (m_format) {
    case Format::protobuf: return codec::watch_event_protobuf("ERROR", status, m_message_framed);
    case Format::yaml: return codec::watch_event_yaml("ERROR", status);
    default: return codec::watch_event_json("ERROR", status);
  }
}

std::shared_ptr<const std::string> WatchStream::frame(const cache::WatchEvent& event) {
  const char* type = cache::to_string(event.type());
  const nlohmann::json& object = event.object()->object;
  if (m_metadata_only) {
    const bool protobuf = m_format == Format::protobuf;
    return event.encoded(!protobuf ? "metadata-json" : m_message_framed ? "metadata-protobuf-message" : "metadata-protobuf",
                         [&] {
                           const auto partial = partial_object_metadata(object);
                           return protobuf ? codec::watch_event_protobuf(type, partial, m_message_framed)
                                           : codec::watch_event_json(type, partial);
                         });
  }
  switch (m_format) {
    case Format::json:
      return event.encoded("json", [&] { return codec::watch_event_json_encoded(type, event.object()->json()); });
    case Format::yaml:
      return event.encoded("yaml", [&] { return codec::watch_event_yaml(type, object); });
    case Format::protobuf:
      return event.encoded(m_message_framed ? "protobuf-message" : "protobuf",
                           [&] { return codec::watch_event_protobuf(type, object, m_message_framed); });
    case Format::table: {
      auto make = [&](bool with_columns) {
        nlohmann::json rows = nlohmann::json::array();
        if (event.type() != cache::EventType::bookmark)
          rows.push_back(table_row(*m_table_info, object, m_table_format->include_object, std::chrono::system_clock::now()));
        return codec::watch_event_json(
            type, table_document(*m_table_info, {{"resourceVersion", std::to_string(event.revision())}}, std::move(rows),
                                 with_columns));
      };
      if (m_first && event.type() != cache::EventType::bookmark) {
        m_first = false;
        return std::make_shared<const std::string>(make(true));
      }
      return event.encoded("table:" + m_table_format->include_object, [&] { return make(false); });
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
