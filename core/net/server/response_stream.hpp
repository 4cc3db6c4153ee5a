#pragma once
// Internal to core/net/server: the ResponseStream handed to handlers. Calls from any thread
// are posted to the connection's strand, where the protocol (a StreamSink) carries them out.
// The StreamCore is shared by the handler-facing object and the connection.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/net/server/chunk_writer.hpp"
#include "core/net/server/server_state.hpp"

namespace kw::net::detail {

// The protocol side of a response. Always called on the connection's strand. `id` tells
// which request of the connection the call belongs to (HTTP/2 stream id, h1 request number).
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual void sink_begin(std::int64_t id, ResponseHead head) = 0;
  virtual void sink_write(std::int64_t id, std::shared_ptr<const std::string> bytes) = 0;
  virtual void sink_flush(std::int64_t id) = 0;
  virtual void sink_finish(std::int64_t id) = 0;
  // Drops what is queued for the response and ends it at once (ResponseStream::abort).
  virtual void sink_abort(std::int64_t id) = 0;
  // A tunnel reads from its client again (ResponseStream::resume_receive). Only tunnels pause.
  virtual void sink_resume_receive(std::int64_t) {}
  // Direct writing (see Outbox::start_direct) left a backlog or failed: the connection takes
  // the writing back. Only connections that start direct writing get it.
  virtual void sink_takeover(std::int64_t) {}
  // The end of a batch of the calls above (one Outbox drain): a protocol that multiplexes
  // many responses writes them out together here.
  virtual void sink_drained() {}
  // The connection's strand, where the calls above run.
  virtual Strand sink_strand() = 0;
};

// The calls of one connection's responses waiting for its strand (begin, write, flush,
// finish). Producers on any thread add to it; one drain posted to the strand hands everything
// over in order, so a burst of events for many streams of one HTTP/2 connection costs one
// post, not one each, and every response's calls keep their order.
//
// Direct writing (HTTP/1.1 over plain TCP, while a chunked body streams): the strand lends
// the socket to the outbox, and a write made while no call waits for the strand is sent as
// one chunk from the producer's thread (ChunkWriter): no post, no wake-up of the I/O thread.
// A write the socket does not take whole starts a backlog; the producer then posts a
// takeover, and the strand stops direct writing and writes the backlog asynchronously.
// Any call queued for the strand also ends direct writing when it is drained, so the order
// of the bytes never changes.
class Outbox {
 public:
  enum class Kind : std::uint8_t { begin, write, flush, finish, abort };
  struct Item {
    std::int64_t id;
    Kind kind;
    std::shared_ptr<const std::string> bytes;  // write
    std::unique_ptr<ResponseHead> head;        // begin
  };
  // What the caller of add() does next.
  struct Added {
    bool post_drain = false;        // post drain(): nothing was pending
    bool post_takeover = false;     // post StreamSink::sink_takeover()
    std::size_t done_payload = 0;   // payload a direct write sent (or dropped after a failure)
  };
  Added add(Item item);
  // Queues a call only if a drain is already on its way (a call that is pointless once
  // everything before it reached the strand). False when it was not queued.
  bool join(Item item);
  // Caller side: sends what direct writing holds (see ChunkWriter::flush()).
  Added flush_direct();
  // Strand side: hands the queued calls to the protocol (after a sink_takeover() when direct
  // writing was on).
  void drain(StreamSink& sink);
  // The posting failed (connection gone): drop what was queued.
  void discard();

  // Strand side. Lends `send` (the socket) for writes of response `id`; refused (false)
  // while calls wait for the strand.
  bool start_direct(std::int64_t id, SendFn send);
  struct Stopped {
    std::vector<WirePiece> backlog;  // to write before anything queued after it
    bool failed = false;             // the socket broke during a direct write
  };
  // Ends direct writing. Once it returns no other thread touches the socket.
  Stopped stop_direct();

 private:
  static Added direct_outcome(const ChunkWriter::Outcome& outcome);
  std::mutex m_mutex;  // guards the fields below; taken without any other lock
  std::vector<Item> m_items;
  bool m_drain_posted = false;
  std::unique_ptr<ChunkWriter> m_direct;   // set while direct writing is on
  std::unique_ptr<ChunkWriter> m_stopped;  // ended by drain(); its backlog not yet taken
  std::int64_t m_direct_id = 0;
};

class StreamCore {
 public:
  // `outbox`: shared by the responses of one connection (HTTP/2); null = one of its own.
  StreamCore(std::shared_ptr<ServerLink> link, std::weak_ptr<StreamSink> sink, std::int64_t id,
             std::shared_ptr<Outbox> outbox = nullptr);
  ~StreamCore();

  // Caller side (any thread).
  // The strand is taken from the live connection for each post and never stored: a handler
  // may keep its stream after the server and its io_context are gone, and a strand must not
  // outlive its io_context.
  template <class Fn>  // Fn(StreamSink&, std::int64_t id)
  bool post(Fn fn) {
    auto sink = m_sink.lock();
    if (!sink) return false;
    return m_link->post(sink->sink_strand(), [weak = m_sink, id = m_id, fn = std::move(fn)]() mutable {
      if (auto locked = weak.lock()) fn(*locked, id);
    });
  }
  void set_on_close(std::function<void()> callback);
  void set_on_receive(std::function<bool(std::string_view)> callback);
  // Transport side: the on_receive callback (empty when none was set).
  std::function<bool(std::string_view)> take_on_receive();
  // Before the response begins (ResponseStream::on_sent).
  void set_on_sent(std::function<void(std::size_t)> callback) { m_on_sent = std::move(callback); }
  // Queue the response's calls through the connection's outbox, in order: calls made while
  // an earlier batch has not reached the strand join it (a backlog goes out together).
  // enqueue_write is false when the connection is gone (the bytes are dropped, uncounted).
  void enqueue_begin(ResponseHead head);
  bool enqueue_write(std::shared_ptr<const std::string> bytes);
  void enqueue_flush();
  void enqueue_finish();
  void enqueue_abort();
  void add_queued(std::size_t n) { m_queued += n; }
  std::size_t queued() const { return m_queued.load(); }
  bool closed() const { return m_closed.load(); }
  // The handler called finish(): closed from now on, on_close will not fire.
  void mark_finished_by_handler();

  // Transport side (strand).
  void sent(std::size_t n) {
    const std::size_t left = m_queued -= n;
    if (m_on_sent) m_on_sent(left);
  }
  // Peer went away or the stream was reset before finish(): closes and fires on_close once.
  void peer_gone();
  // The transport is done with the response (its last byte handed over, or it was dropped).
  void transport_done();

 private:
  std::shared_ptr<ServerLink> m_link;
  std::weak_ptr<StreamSink> m_sink;
  std::int64_t m_id;
  std::atomic<std::size_t> m_queued{0};
  std::atomic<bool> m_closed{false};
  std::atomic<bool> m_transport_done{false};
  std::shared_ptr<Outbox> m_outbox;
  // Set before begin() and read only after it (the transport learns of the response through a
  // post, which orders the two).
  std::function<void(std::size_t)> m_on_sent;

  // Accounts the payload direct writing sent and asks for a takeover when it needs one.
  void after_direct(const Outbox::Added& added);
  bool add_to_outbox(Outbox::Item item);
  std::mutex m_callback_mutex;  // guards the four fields below
  std::function<void()> m_on_close;
  std::function<bool(std::string_view)> m_on_receive;
  bool m_finished_by_handler = false;
  bool m_peer_gone = false;
};

// The handler-facing object; its destructor finishes (or fails with 500) a forgotten response.
std::shared_ptr<ResponseStream> make_response_stream(std::shared_ptr<StreamCore> core, Protocol protocol);

}  // namespace kw::net::detail
