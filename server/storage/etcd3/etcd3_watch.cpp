#include "server/storage/etcd3/etcd3_watch.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/storage/etcd3/progress_gate.hpp"

namespace kw::storage::etcd3 {

std::string range_end(const std::string& prefix) { return prefix_end(prefix).value_or(std::string(1, '\0')); }

KeyValue to_key_value(const mvccpb::KeyValue& kv) {
  return KeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision()};
}

KeyValue take_key_value(mvccpb::KeyValue& kv) {
  return KeyValue{std::move(*kv.mutable_key()), std::move(*kv.mutable_value()), kv.create_revision(),
                  kv.mod_revision()};
}

namespace {

using Stream = grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;
using SteadyClock = std::chrono::steady_clock;

// etcd's watch id of the answers to progress requests (not tied to one watcher).
constexpr std::int64_t k_broadcast_watch_id = -1;
// How long the etcd version query before each stream may take.
constexpr std::chrono::milliseconds k_version_timeout{1000};

Event take_event(mvccpb::Event& event) {
  Event out{event.type() == mvccpb::Event::DELETE ? EventType::del : EventType::put,
            take_key_value(*event.mutable_kv())};
  if (out.type == EventType::del) {
    out.kv.value.clear();
    out.kv.create_revision = 0;
  }
  return out;
}

// Whether the etcd behind `endpoint` answers progress requests in order with events; false
// when it cannot be asked (the stream then treats its answers with care).
bool endpoint_orders_progress(Endpoint& endpoint) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + k_version_timeout);
  etcdserverpb::StatusResponse status;
  if (!endpoint.maintenance->Status(&context, etcdserverpb::StatusRequest{}, &status).ok()) return false;
  return orders_requested_progress(status.version());
}

// State shared by the handle, its liveness thread and the watch thread.
struct WatchState {
  std::shared_ptr<Client> client;
  std::string prefix;
  Revision last_revision = 0;  // watch thread only: everything up to it was delivered
  WatchCallbacks callbacks;
  std::chrono::milliseconds liveness_timeout{0};

  std::mutex mutex;  // guards the fields below
  std::condition_variable wake;
  bool stopped = false;
  grpc::ClientContext* context = nullptr;             // of the open stream, for cancellation
  Stream* stream = nullptr;                           // of the open stream, for progress requests
  SteadyClock::time_point last_heard;                 // when the open stream last delivered anything
  bool probe_sent = false;                            // a liveness probe is waiting for its answer
  std::optional<SteadyClock::time_point> confirm_at;  // when to ask again to prove a pending progress

  bool is_stopped() {
    std::lock_guard lock(mutex);
    return stopped;
  }
  void run();
  // One stream's life; returns true when the watch is over (terminal error or stopped).
  bool run_stream(Endpoint& endpoint, bool& delivered_anything);
  bool handle_response(etcdserverpb::WatchResponse& response, ProgressGate& gate);
  void report_progress(Revision revision);
  void fail(Error error) {
    if (!is_stopped() && callbacks.on_error) callbacks.on_error(std::move(error));
  }
  // Sends a progress request on the open stream, if any.
  void request_progress_locked();
  // The liveness thread: probes a quiet stream, and cancels one that stays silent.
  void watch_liveness();
};

void WatchState::request_progress_locked() {
  if (stream == nullptr) return;
  etcdserverpb::WatchRequest request;
  request.mutable_progress_request();
  stream->Write(request);
}

void WatchState::report_progress(Revision revision) {
  last_revision = std::max(last_revision, revision);
  if (!is_stopped() && callbacks.on_progress) callbacks.on_progress(revision);
}

bool WatchState::handle_response(etcdserverpb::WatchResponse& response, ProgressGate& gate) {
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
    for (auto& event : *response.mutable_events()) {
      if (event.kv().mod_revision() <= last_revision) continue;  // already delivered before a reconnect
      events.push_back(take_event(event));
    }
    if (events.empty()) return false;
    last_revision = events.back().kv.mod_revision;
    gate.on_events(last_revision, SteadyClock::now());
    if (!is_stopped() && callbacks.on_events) callbacks.on_events(std::move(events));
    return false;
  }
  if (!response.created() && response.header().revision() > 0) {
    // A progress notification: once proven, nothing at or below its revision is still to come.
    const bool requested = response.watch_id() == k_broadcast_watch_id;
    if (auto proven = gate.on_progress(response.header().revision(), requested, SteadyClock::now()))
      report_progress(*proven);
  }
  return false;
}

bool WatchState::run_stream(Endpoint& endpoint, bool& delivered_anything) {
  ProgressGate gate(endpoint_orders_progress(endpoint));
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;
  {
    std::lock_guard lock(mutex);
    if (stopped) return true;
    stream = endpoint.watch->Watch(&context);
    this->context = &context;
    this->stream = stream.get();
    last_heard = SteadyClock::now();
    probe_sent = false;
    confirm_at.reset();
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(prefix.empty() ? std::string(1, '\0') : prefix);
    create->set_range_end(range_end(prefix));
    create->set_start_revision(last_revision + 1);
    create->set_progress_notify(true);
    stream->Write(request);
  }
  bool over = false;
  etcdserverpb::WatchResponse response;
  while (!over && stream->Read(&response)) {
    delivered_anything = true;
    {
      std::lock_guard lock(mutex);
      last_heard = SteadyClock::now();
      probe_sent = false;
    }
    over = handle_response(response, gate);
    std::lock_guard lock(mutex);
    if (!gate.has_pending()) {
      confirm_at.reset();
    } else if (!confirm_at) {
      confirm_at = SteadyClock::now() + ProgressGate::k_settle;
    }
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

void WatchState::watch_liveness() {
  const bool check_liveness = liveness_timeout.count() > 0;
  auto tick = std::chrono::milliseconds(100);
  if (check_liveness)
    tick = std::clamp<std::chrono::milliseconds>(liveness_timeout / 4, std::chrono::milliseconds(1), tick);
  std::unique_lock lock(mutex);
  while (!stopped) {
    wake.wait_for(lock, tick, [&] { return stopped; });
    if (stopped || stream == nullptr) continue;
    const auto now = SteadyClock::now();
    if (check_liveness && now - last_heard >= liveness_timeout) {
      // Silent for too long (a frozen or partitioned endpoint): the watch thread resumes elsewhere.
      context->TryCancel();
      continue;
    }
    if (check_liveness && !probe_sent && now - last_heard >= liveness_timeout / 2) {
      probe_sent = true;
      request_progress_locked();  // any answer proves the stream alive
    }
    if (confirm_at && now >= *confirm_at) {
      confirm_at.reset();
      request_progress_locked();  // its answer proves the pending progress (see ProgressGate)
    }
  }
}

void WatchState::run() {
  std::size_t index = client->pick_endpoint(client->preferred());
  auto failing_since = SteadyClock::now();
  for (;;) {
    bool delivered = false;
    if (run_stream(client->endpoint(index), delivered)) return;
    if (delivered) failing_since = SteadyClock::now();
    if (SteadyClock::now() - failing_since > client->options().watch_retry_limit) {
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
    m_liveness = std::thread([state = m_state] { state->watch_liveness(); });
  }
  ~EtcdWatchHandle() override {
    {
      std::lock_guard lock(m_state->mutex);
      m_state->stopped = true;
      if (m_state->context != nullptr) m_state->context->TryCancel();
      m_state->wake.notify_all();
    }
    m_liveness.join();
    // From inside a callback the thread cannot be joined; it sees `stopped` and ends by itself.
    if (m_thread.get_id() == std::this_thread::get_id()) {
      m_thread.detach();
    } else {
      m_thread.join();
    }
  }
  void request_progress() override {
    std::lock_guard lock(m_state->mutex);
    m_state->request_progress_locked();
  }

 private:
  std::shared_ptr<WatchState> m_state;
  std::thread m_thread;
  std::thread m_liveness;
};

}  // namespace

std::unique_ptr<WatchHandle> start_watch(std::shared_ptr<Client> client, const std::string& prefix,
                                         Revision after_revision, WatchCallbacks callbacks) {
  auto state = std::make_shared<WatchState>();
  state->liveness_timeout = client->options().watch_liveness_timeout;
  state->client = std::move(client);
  state->prefix = prefix;
  state->last_revision = after_revision;
  state->callbacks = std::move(callbacks);
  return std::make_unique<EtcdWatchHandle>(std::move(state));
}

}  // namespace kw::storage::etcd3
