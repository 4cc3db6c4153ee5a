#include "server/http/watch_stream.hpp"

#include <algorithm>
#include <cstdint>

#include "core/codec/watch_event.hpp"
#include "server/cache/list_json.hpp"

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
  const cache::StoredObject& stored = *event.object();
  // Each encoding is made once per event. A lean object (the cache's history, or the current
  // state sent to a new watcher) gets a tree for the encoding only, and protobuf needs none.
  auto encode_tree = [&](auto&& encode) {
    std::string out;
    stored.with_tree([&](const nlohmann::json& object) { out = encode(object); });
    return out;
  };
  if (m_metadata_only) {
    const bool protobuf = m_format == Format::protobuf;
    return event.encoded(!protobuf ? "metadata-json" : m_message_framed ? "metadata-protobuf-message" : "metadata-protobuf",
                         [&] {
                           return encode_tree([&](const nlohmann::json& object) {
                             const auto partial = partial_object_metadata(object);
                             return protobuf ? codec::watch_event_protobuf(type, partial, m_message_framed)
                                             : codec::watch_event_json(type, partial);
                           });
                         });
  }
  switch (m_format) {
    case Format::json:
      return event.encoded("json", [&] {
        std::string object_json;
        stored.append_json(object_json);
        return codec::watch_event_json_encoded(type, object_json);
      });
    case Format::yaml:
      return event.encoded("yaml", [&] {
        return encode_tree([&](const nlohmann::json& object) { return codec::watch_event_yaml(type, object); });
      });
    case Format::protobuf:
      return event.encoded(m_message_framed ? "protobuf-message" : "protobuf", [&] {
        if (stored.protobuf.empty()) return codec::watch_event_protobuf(type, stored.object(), m_message_framed);
        return codec::watch_event_protobuf_encoded(type, cache::enveloped_protobuf(stored), m_message_framed);
      });
    case Format::table: {
      // Every event's object becomes a one-row Table, bookmarks too (as kube-apiserver converts
      // them): the row's object carries the bookmark's annotations (initial-events-end). The
      // first event, whatever its type, carries the column definitions.
      auto make = [&](bool with_columns) {
        nlohmann::json rows = nlohmann::json::array();
        stored.with_tree([&](const nlohmann::json& object) {
          rows.push_back(
              table_row(*m_table_info, object, m_table_format->include_object, std::chrono::system_clock::now()));
        });
        return codec::watch_event_json(
            type, table_document(*m_table_info, {{"resourceVersion", std::to_string(event.revision())}}, std::move(rows),
                                 with_columns));
      };
      if (m_first) {
        m_first = false;
        return std::make_shared<const std::string>(make(true));
      }
      return event.encoded("table:" + m_table_format->include_object, [&] { return make(false); });
    }
  }
  return nullptr;
}

bool WatchStream::try_send(const cache::EventPtr& event) {
  if (m_closed.load()) return true;  // dropped; the cache reaps closed sinks
  // A closed transport takes nothing and reports nothing queued: the event is dropped there.
  if (!writable()) return m_stream->closed();
  write(frame(*event), true);
  return true;
}

void WatchStream::send(const cache::EventPtr& event) {
  if (!closed()) write(frame(*event), false);
}

void WatchStream::write(std::shared_ptr<const std::string> bytes, bool live) {
  m_written += bytes->size();
  m_stream->write(std::move(bytes));
  if (!live) {
    m_initial_end = m_written;
    m_live_from = {};
    return;
  }
  // The newest mark is kept here, the older ones in m_marks: a write within 100 ms of the
  // newest mark (most writes) touches this object only.
  constexpr auto k_mark_span = std::chrono::milliseconds(100);
  const auto now = std::chrono::steady_clock::now();
  if (m_open.end > 0 && now - m_open.at < k_mark_span) {
    m_open.end = m_written;
    return;
  }
  if (m_open.end > 0) m_marks.push_back(m_open);
  m_open = {m_written, now};
}

std::chrono::steady_clock::duration WatchStream::lag() {
  const std::size_t queued = m_stream->queued_bytes();
  const std::uint64_t passed = m_written > queued ? m_written - queued : 0;
  while (m_marks_head < m_marks.size() && m_marks[m_marks_head].end <= passed) ++m_marks_head;
  if (m_marks_head == m_marks.size()) {
    m_marks.clear();
    if (m_marks.capacity() > 64) m_marks.shrink_to_fit();
    m_marks_head = 0;
  } else if (m_marks_head >= 64 && m_marks_head * 2 >= m_marks.size()) {
    m_marks.erase(m_marks.begin(), m_marks.begin() + static_cast<std::ptrdiff_t>(m_marks_head));
    m_marks_head = 0;
  }
  if (m_marks.empty() && m_open.end <= passed) m_open = {};
  if (passed < m_initial_end || m_open.end == 0) return {};
  const auto oldest = m_marks.empty() ? m_open.at : m_marks[m_marks_head].at;
  const auto now = std::chrono::steady_clock::now();
  // Live events queued behind the initial ones wait from when those were out, not before.
  if (m_initial_end > 0 && m_live_from == std::chrono::steady_clock::time_point{}) m_live_from = now;
  return now - std::max(oldest, m_live_from);
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

void WatchStream::abort(const std::string& reason) {
  (void)reason;
  if (m_closed.exchange(true)) return;
  m_stream->abort();
}

bool WatchStream::closed() const { return m_closed.load() || m_stream->closed(); }

}  // namespace kw::http
