#include "server/storage/etcd3/etcd3_watch.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace kw::storage::etcd3 {

std::string prefix_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

KeyValue to_key_value(const mvccpb::KeyValue& kv) {
  return KeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision()};
}

namespace {

using Stream = grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;

Event to_event(const mvccpb::Event& event) {
  Event out{event.type() == mvccpb::Event::DELETE ? EventType::del : EventType::put, to_key_value(event.kv()),
            std::nullopt};
  if (event.has_prev_kv() && event.prev_kv().mod_revision() != 0) out.previous = to_key_value(event.prev_kv());
  if (out.type == EventType::del) {
    out.kv.value.clear();
    out.kv.create_revision = 0;
  }
  return out;
}

// State shared by the handle and the watch thread.
struct WatchState {
  std::shared_ptr<Client> client;
  std::string prefix;
  Revision last_revision = 0;  // watch thread only: everything up to it was delivered
  WatchCallbacks callbacks;

  std::mutex mutex;  // guards the fields below
  std::condition_variable wake;
  bool stopped = false;
  grpc::ClientContext* context = nullptr;  // of the open stream, for cancellation
  Stream* stream = nullptr;                // of the open stream, for progress requests

  bool is_stopped() {
    std::lock_guard lock(mutex);
    return stopped;
  }
  void run();
  // One stream's life; returns true when the watch is over (terminal error or stopped).
  bool run_stream(Endpoint& endpoint, bool& delivered_anything);
  bool handle_response(const etcdserverpb::WatchResponse& response);
  void fail(Error error) {
    if (!is_stopped() && callbacks.on_error) callbacks.on_error(std::move(error));
  }
};

bool WatchState::handle_response(const etcdserverpb::WatchResponse& response) {
  if (response.canceled()) {
    if (response.compact_revision() > 0) {
      fail(Error{ErrorCode::compacted, "", response.compact_revision(),
                 "watch from revision " + std::to_string(last_revision + 1) +
                     " is too old: etcd compacted history up to " + std::to_string(response.compact_revision()) +
                     "; list again and watch from the list's revision"});
    } else {
      fail(Error{ErrorCode::unavailable, "", 0, "etcd canceled the watch: " + response.cancel_reason()});
    }
    return true;
  }
  if (response.events_size() > 0) {
    std::vector<Event> events;
    events.reserve(response.events_size());
    for (const auto& event : response.events()) {
      if (event.kv().mod_revision() <= last_revision) continue;  // already delivered before a reconnect
      events.push_back(to_event(event));
    }
    if (events.empty()) return false;
    last_revision = events.back().kv.mod_revision;
    if (!is_stopped() && callbacks.on_events) callbacks.on_events(std::move(events));
    return false;
  }
  if (!response.created() && response.header().revision() > 0) {
    // A progress notification: nothing at or below this revision is still to come.
    last_revision = std::max(last_revision, response.header().revision());
    if (!is_stopped() && callbacks.on_progress) callbacks.on_progress(response.header().revision());
  }
  return false;
}

bool WatchState::run_stream(Endpoint& endpoint, bool& delivered_anything) {
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;
  {
    std::lock_guard lock(mutex);
    if (stopped) return true;
    stream = endpoint.watch->Watch(&context);
    this->context = &context;
    this->stream = stream.get();
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(prefix.empty() ? std::string(1, '\0') : prefix);
    create->set_range_end(prefix_end(prefix));
    create->set_start_revision(last_revision + 1);
    create->set_prev_kv(true);
    create->set_progress_notify(true);
    stream->Write(request);
  }
  bool over = false;
  etcdserverpb::WatchResponse response;
  while (!over && stream->Read(&response)) {
    delivered_anything = true;
    over = handle_response(response);
  }
  {
    std::lock_guard lock(mutex);
    this->context = nullptr;
    this->stream = nullptr;
  }
  if (over) context.TryCancel();
  stream->Finish();
  return over || is_stopped();
}

void WatchState::run() {
  std::size_t index = client->pick_endpoint(client->preferred());
  auto failing_since = std::chrono::steady_clock::now();
  for (;;) {
    bool delivered = false;
    if (run_stream(client->endpoint(index), delivered)) return;
    if (delivered) failing_since = std::chrono::steady_clock::now();
    if (std::chrono::steady_clock::now() - failing_since > client->options().watch_retry_limit) {
      fail(Error{ErrorCode::unavailable, "", last_revision,
                 "lost the etcd watch on " + prefix + " and could not resume it; check the etcd cluster"});
      return;
    }
    std::unique_lock lock(mutex);
    wake.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopped; });
    if (stopped) return;
    lock.unlock();
    index = client->pick_endpoint(index + 1);  // the next endpoint, a connected one if any
  }
}

class EtcdWatchHandle final : public WatchHandle {
 public:
  explicit EtcdWatchHandle(std::shared_ptr<WatchState> state) : m_state(std::move(state)) {
    m_thread = std::thread([state = m_state] { state->run(); });
  }
  ~EtcdWatchHandle() override {
    {
      std::lock_guard lock(m_state->mutex);
      m_state->stopped = true;
      if (m_state->context != nullptr) m_state->context->TryCancel();
      m_state->wake.notify_all();
    }
    // From inside a callback the thread cannot be joined; it sees `stopped` and ends by itself.
    if (m_thread.get_id() == std::this_thread::get_id()) {
      m_thread.detach();
    } else {
      m_thread.join();
    }
  }
  void request_progress() override {
    std::lock_guard lock(m_state->mutex);
    if (m_state->stream == nullptr) return;
    etcdserverpb::WatchRequest request;
    request.mutable_progress_request();
    m_state->stream->Write(request);
  }

 private:
  std::shared_ptr<WatchState> m_state;
  std::thread m_thread;
};

}  // namespace

std::unique_ptr<WatchHandle> start_watch(std::shared_ptr<Client> client, const std::string& prefix,
                                         Revision after_revision, WatchCallbacks callbacks) {
  auto state = std::make_shared<WatchState>();
  state->client = std::move(client);
  state->prefix = prefix;
  state->last_revision = after_revision;
  state->callbacks = std::move(callbacks);
  return std::make_unique<EtcdWatchHandle>(std::move(state));
}

}  // namespace kw::storage::etcd3
