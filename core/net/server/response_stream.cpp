#include "core/net/server/response_stream.hpp"

#include <utility>

namespace kw::net::detail {

StreamCore::StreamCore(std::shared_ptr<ServerLink> link, std::weak_ptr<StreamSink> sink, std::int64_t id,
                       std::shared_ptr<Outbox> outbox)
    : m_link(std::move(link)),
      m_sink(std::move(sink)),
      m_id(id),
      m_outbox(outbox ? std::move(outbox) : std::make_shared<Outbox>()) {
  m_link->stream_started();
}

StreamCore::~StreamCore() { transport_done(); }

void StreamCore::set_on_close(std::function<void()> callback) {
  std::unique_lock lock(m_callback_mutex);
  if (m_peer_gone && !m_finished_by_handler) {
    // The peer left before the callback was set: deliver it on the transport thread.
    lock.unlock();
    auto shared = std::make_shared<std::function<void()>>(std::move(callback));
    if (!post([shared](StreamSink&, std::int64_t) { (*shared)(); })) (*shared)();
    return;
  }
  m_on_close = std::move(callback);
}

void StreamCore::set_on_receive(std::function<bool(std::string_view)> callback) {
  std::lock_guard lock(m_callback_mutex);
  m_on_receive = std::move(callback);
}

std::function<bool(std::string_view)> StreamCore::take_on_receive() {
  std::lock_guard lock(m_callback_mutex);
  return std::move(m_on_receive);
}

Outbox::Added Outbox::direct_outcome(const ChunkWriter::Outcome& outcome) {
  return Added{.post_drain = false, .post_takeover = outcome.needs_takeover, .done_payload = outcome.done_payload};
}

Outbox::Added Outbox::add(Item item) {
  std::lock_guard lock(m_mutex);
  Added added;
  if (m_direct && m_items.empty() && item.kind == Kind::write && item.id == m_direct_id) {
    if (item.bytes->empty()) return added;  // a zero-size chunk would end the body
    // Held for the flush that ends the producer's round of writes (or for the connection,
    // if it takes the writing back first).
    return direct_outcome(m_direct->hold(WirePiece::chunk(std::move(item.bytes))));
  }
  m_items.push_back(std::move(item));
  if (m_drain_posted) return added;
  m_drain_posted = true;
  added.post_drain = true;
  return added;
}

bool Outbox::start_direct(std::int64_t id, SendFn send) {
  std::lock_guard lock(m_mutex);
  if (!m_items.empty() || m_drain_posted || m_stopped) return false;
  m_direct = std::make_unique<ChunkWriter>(std::move(send));
  m_direct_id = id;
  return true;
}

Outbox::Stopped Outbox::stop_direct() {
  std::unique_ptr<ChunkWriter> writer;
  {
    std::lock_guard lock(m_mutex);
    writer = m_direct ? std::move(m_direct) : std::move(m_stopped);
  }
  Stopped stopped;
  if (!writer) return stopped;
  stopped.failed = writer->failed();
  stopped.backlog = writer->take_backlog();
  return stopped;
}

Outbox::Added Outbox::flush_direct() {
  std::lock_guard lock(m_mutex);
  if (!m_direct || !m_direct->holding()) return {};
  return direct_outcome(m_direct->flush());
}

bool Outbox::join(Item item) {
  std::lock_guard lock(m_mutex);
  if (!m_drain_posted) return false;
  m_items.push_back(std::move(item));
  return true;
}

void Outbox::drain(StreamSink& sink) {
  std::vector<Item> batch;
  bool took_direct = false;
  std::int64_t direct_id = 0;
  {
    std::lock_guard lock(m_mutex);
    batch.swap(m_items);
    m_drain_posted = false;
    // From here on writes queue behind the batch: the backlog goes first.
    if (m_direct && !batch.empty()) {
      m_stopped = std::move(m_direct);
      took_direct = true;
      direct_id = m_direct_id;
    }
  }
  if (took_direct) sink.sink_takeover(direct_id);
  for (auto& item : batch) {
    switch (item.kind) {
      case Kind::begin: sink.sink_begin(item.id, std::move(*item.head)); break;
      case Kind::write: sink.sink_write(item.id, std::move(item.bytes)); break;
      case Kind::flush: sink.sink_flush(item.id); break;
      case Kind::finish: sink.sink_finish(item.id); break;
      case Kind::abort: sink.sink_abort(item.id); break;
    }
  }
  sink.sink_drained();
}

void Outbox::discard() {
  std::lock_guard lock(m_mutex);
  m_items.clear();
  m_drain_posted = false;
}

void StreamCore::after_direct(const Outbox::Added& added) {
  if (added.done_payload > 0) sent(added.done_payload);
  if (added.post_takeover) post([](StreamSink& sink, std::int64_t id) { sink.sink_takeover(id); });
}

bool StreamCore::add_to_outbox(Outbox::Item item) {
  const Outbox::Added added = m_outbox->add(std::move(item));
  after_direct(added);
  if (!added.post_drain) return true;
  if (post([outbox = m_outbox](StreamSink& sink, std::int64_t) { outbox->drain(sink); })) return true;
  m_outbox->discard();
  return false;
}

void StreamCore::enqueue_begin(ResponseHead head) {
  add_to_outbox({m_id, Outbox::Kind::begin, nullptr, std::make_unique<ResponseHead>(std::move(head))});
}

bool StreamCore::enqueue_write(std::shared_ptr<const std::string> bytes) {
  const std::size_t size = bytes->size();
  add_queued(size);
  if (add_to_outbox({m_id, Outbox::Kind::write, std::move(bytes), nullptr})) return true;
  sent(size);
  return false;
}

// Every transport pushes its bytes out as soon as a write reaches the strand, so a flush only
// matters while earlier calls still wait there (with nothing waiting it costs no post), or
// while HTTP/1.1 direct writing holds the chunks of the producer's round.
void StreamCore::enqueue_flush() {
  after_direct(m_outbox->flush_direct());
  m_outbox->join({m_id, Outbox::Kind::flush, nullptr, nullptr});
}

void StreamCore::enqueue_finish() { add_to_outbox({m_id, Outbox::Kind::finish, nullptr, nullptr}); }

void StreamCore::enqueue_abort() { add_to_outbox({m_id, Outbox::Kind::abort, nullptr, nullptr}); }

void StreamCore::mark_finished_by_handler() {
  std::lock_guard lock(m_callback_mutex);
  m_finished_by_handler = true;
  m_closed = true;
  m_on_close = nullptr;
}

void StreamCore::peer_gone() {
  std::function<void()> callback;
  {
    std::lock_guard lock(m_callback_mutex);
    m_closed = true;
    if (m_peer_gone || m_finished_by_handler) return;
    m_peer_gone = true;
    callback = std::move(m_on_close);
    m_on_close = nullptr;
  }
  if (callback) callback();
}

void StreamCore::transport_done() {
  if (!m_transport_done.exchange(true)) m_link->stream_done();
}

namespace {

class ResponseStreamImpl final : public ResponseStream {
 public:
  ResponseStreamImpl(std::shared_ptr<StreamCore> core, Protocol protocol)
      : m_core(std::move(core)), m_protocol(protocol) {}

  ~ResponseStreamImpl() override {
    if (m_finished.load()) return;
    if (!m_begun.load()) begin(ResponseHead{.status = 500, .headers = {}, .binary_messages = false});
    finish();
  }

  void add_header(Header header) override { m_added.push_back(std::move(header)); }

  void begin(ResponseHead head) override {
    if (m_begun.exchange(true)) return;
    for (auto& header : m_added) head.headers.push_back(std::move(header));
    Headers().swap(m_added);
    m_core->enqueue_begin(std::move(head));
  }

  bool write(std::shared_ptr<const std::string> bytes) override {
    if (m_finished.load() || m_core->closed()) return false;
    if (!m_begun.load()) begin(ResponseHead{});
    return m_core->enqueue_write(std::move(bytes));
  }

  // HTTP/2 writes out each drain of the connection's outbox as a whole (sink_drained), so a
  // flush would only cost a queued call per stream per event.
  void flush() override {
    if (m_protocol != Protocol::http2) m_core->enqueue_flush();
  }

  void finish() override {
    if (m_finished.exchange(true)) return;
    if (!m_begun.load()) begin(ResponseHead{});
    m_core->mark_finished_by_handler();
    m_core->enqueue_finish();
  }

  void abort() override {
    if (m_finished.exchange(true)) return;
    m_core->mark_finished_by_handler();
    m_core->enqueue_abort();
  }

  std::size_t queued_bytes() const override { return m_core->queued(); }
  bool closed() const override { return m_finished.load() || m_core->closed(); }
  void on_close(std::function<void()> callback) override { m_core->set_on_close(std::move(callback)); }
  void on_sent(std::function<void(std::size_t)> callback) override { m_core->set_on_sent(std::move(callback)); }
  void on_receive(std::function<bool(std::string_view)> callback) override {
    m_core->set_on_receive(std::move(callback));
  }
  void resume_receive() override {
    m_core->post([](StreamSink& sink, std::int64_t id) { sink.sink_resume_receive(id); });
  }
  Protocol protocol() const override { return m_protocol; }

 private:
  std::shared_ptr<StreamCore> m_core;
  Protocol m_protocol;
  std::atomic<bool> m_begun{false};
  std::atomic<bool> m_finished{false};
  Headers m_added;  // add_header()'s, until begin()
};

}  // namespace

std::shared_ptr<ResponseStream> make_response_stream(std::shared_ptr<StreamCore> core, Protocol protocol) {
  return std::make_shared<ResponseStreamImpl>(std::move(core), protocol);
}

}  // namespace kw::net::detail
