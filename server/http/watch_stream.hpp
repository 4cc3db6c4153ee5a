#pragma once
// A watch served over a transport stream: the cache's WatchSink writing framed events to a
// ResponseStream (HTTP/1.1 chunks, HTTP/2 DATA, WebSocket messages). Each event is encoded
// once per format through the event's memo; only a Table watch's first event is its own.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/api/resource.hpp"
#include "core/net/server/http_server.hpp"
#include "server/cache/watcher.hpp"
#include "server/http/respond.hpp"

namespace kw::http {

class WatchStream : public cache::WatchSink {
 public:
  // message_framed: the transport delimits events itself (WebSocket: one message per event),
  // so protobuf events carry no length prefix.
  WatchStream(std::shared_ptr<net::ResponseStream> stream, const api::ResourceInfo& info, Negotiated format,
              std::size_t max_queued_bytes, bool message_framed = false);

  bool try_send(const cache::EventPtr& event) override;
  void send(const cache::EventPtr& event) override;
  bool writable() const override;
  void flush() override;
  void close(const std::string& reason) override;
  void abort(const std::string& reason) override;
  std::chrono::steady_clock::duration lag() override;
  bool closed() const override;

  // The bytes of an event for this stream's format (framing included).
  std::shared_ptr<const std::string> frame(const cache::WatchEvent& event);
  // The single ERROR event a watch gets when it cannot start (410 Expired etc.).
  std::string error_frame(const nlohmann::json& status) const;

 private:
  // Hands `bytes` to the transport and notes when (live: an event of the watch's stream).
  void write(std::shared_ptr<const std::string> bytes, bool live);

  // The bytes handed to the transport so far, and when: marks of the live events, one per
  // 100 ms at most (the oldest event in a mark gives its time). m_written - queued_bytes() is what
  // the transport passed on, so the first mark past it is the oldest event still waiting.
  struct Mark {
    std::uint64_t end;  // m_written after the mark's last event
    std::chrono::steady_clock::time_point at;
  };
  std::uint64_t m_written = 0;
  std::uint64_t m_initial_end = 0;  // m_written after the last send() (initial state, replay)
  std::chrono::steady_clock::time_point m_live_from{};  // when the initial bytes were seen out
  Mark m_open{0, {}};         // the newest mark (end 0: none)
  std::vector<Mark> m_marks;  // the older ones, from m_marks_head
  std::size_t m_marks_head = 0;

  std::shared_ptr<net::ResponseStream> m_stream;
  // Kept small: thousands of idle watches each hold one.
  std::unique_ptr<const api::ResourceInfo> m_table_info;  // Table watches only (columns, rows)
  std::unique_ptr<const Negotiated> m_table_format;       // Table watches only (includeObject)
  std::uint32_t m_max_queued;
  Format m_format;
  bool m_message_framed;
  bool m_metadata_only;          // as=PartialObjectMetadata: metadata of each object only
  bool m_first = true;           // a Table watch sends column definitions once
  std::atomic<bool> m_closed{false};
};

}  // namespace kw::http
