#include "core/net/server/server_state.hpp"

#include <algorithm>
#include <exception>

namespace kw::net::detail {

WorkerPool::WorkerPool(int threads, int max_threads, std::chrono::milliseconds linger)
    : m_linger(linger), m_max_threads(std::max(threads > 0 ? threads : 1, max_threads)) {
  const int count = threads > 0 ? threads : 1;
  std::lock_guard lock(m_tasks_mutex);
  m_threads.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) spawn(false);
}

WorkerPool::~WorkerPool() { stop_and_join(); }

void WorkerPool::spawn(bool extra) {
  // Threads that left are joined here (they hold no lock once they have said so).
  if (!m_exited.empty()) {
    std::erase_if(m_threads, [&](std::thread& thread) {
      if (std::ranges::find(m_exited, thread.get_id()) == m_exited.end()) return false;
      thread.join();
      return true;
    });
    m_exited.clear();
  }
  ++m_running;
  m_threads.emplace_back([this, extra] { run(extra); });
}

int WorkerPool::threads() const {
  std::lock_guard lock(m_tasks_mutex);
  return m_running;
}

void WorkerPool::submit(std::move_only_function<void()> task) {
  {
    std::lock_guard lock(m_tasks_mutex);
    m_tasks.push_back(std::move(task));
    if (!m_stopping && m_tasks.size() > static_cast<std::size_t>(m_idle) && m_running < m_max_threads) spawn(true);
  }
  m_tasks_ready.notify_one();
}

void WorkerPool::stop_and_join() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(m_tasks_mutex);
    m_stopping = true;
    threads.swap(m_threads);
  }
  m_tasks_ready.notify_all();
  for (auto& thread : threads) {
    if (thread.joinable()) thread.join();
  }
  // Tasks submitted after the threads left still run, so no response is left dangling.
  std::deque<std::move_only_function<void()>> rest;
  {
    std::lock_guard lock(m_tasks_mutex);
    rest.swap(m_tasks);
  }
  for (auto& task : rest) task();
}

void WorkerPool::run(bool extra) {
  for (;;) {
    std::move_only_function<void()> task;
    {
      std::unique_lock lock(m_tasks_mutex);
      ++m_idle;
      auto ready = [this] { return m_stopping || !m_tasks.empty(); };
      if (extra) m_tasks_ready.wait_for(lock, m_linger, ready);
      else m_tasks_ready.wait(lock, ready);
      --m_idle;
      if (m_tasks.empty()) {  // stopping, or an extra thread that had no work for m_linger
        --m_running;
        if (!m_stopping) m_exited.push_back(std::this_thread::get_id());
        return;
      }
      task = std::move(m_tasks.front());
      m_tasks.pop_front();
    }
    task();
  }
}

void ConnectionRegistry::add(const std::shared_ptr<Connection>& connection, const Strand& strand) {
  std::lock_guard lock(m_entries_mutex);
  m_entries.insert_or_assign(connection.get(), Entry{connection, strand});
}

void ConnectionRegistry::remove(const Connection* connection) {
  std::lock_guard lock(m_entries_mutex);
  m_entries.erase(connection);
}

std::size_t ConnectionRegistry::size() const {
  std::lock_guard lock(m_entries_mutex);
  return m_entries.size();
}

void ConnectionRegistry::post_to_all(std::function<void(Connection&)> fn) {
  std::lock_guard lock(m_entries_mutex);
  for (auto& [key, entry] : m_entries) {
    asio::post(entry.strand, [weak = entry.connection, fn] {
      if (auto connection = weak.lock()) fn(*connection);
    });
  }
}

namespace {

void refuse_plain(ResponseStream& stream) {
  std::string body = "Too many requests, please try again later.\n";
  stream.begin(ResponseHead{.status = 429,
                            .headers = {{"content-type", "text/plain; charset=utf-8"},
                                        {"retry-after", "1"},
                                        {"content-length", std::to_string(body.size())}},
                            .binary_messages = false});
  stream.write(std::move(body));
  stream.finish();
}

}  // namespace

void ServerState::dispatch(Request request, std::shared_ptr<ResponseStream> stream) {
  const auto& admission = config.admission;
  if (admission.gate) {
    // The gate sees the request before it moves into the start: the start owns it from here.
    auto shared = std::make_shared<Request>(std::move(request));
    admission.gate(*shared, std::move(stream),
                   [this, shared](std::shared_ptr<ResponseStream> admitted, Seat seat) mutable {
                     submit(std::move(*shared), std::move(admitted), std::move(seat));
                   });
    return;
  }
  const RequestClass kind = admission.classify ? admission.classify(request) : default_request_class(request);
  auto slot = inflight.try_acquire(kind);
  if (!slot) {
    if (admission.refuse) admission.refuse(request, kind, *stream);
    else refuse_plain(*stream);
    return;
  }
  workers.submit([this, slot = std::move(*slot), request = std::move(request), stream = std::move(stream)]() mutable {
    run_handler(std::move(request), std::move(stream));
  });
}

void ServerState::submit(Request request, std::shared_ptr<ResponseStream> stream, Seat seat) {
  workers.submit([this, seat = std::move(seat), request = std::move(request), stream = std::move(stream)]() mutable {
    run_handler(std::move(request), std::move(stream));
    seat.reset();  // given back once the handler returned, before the next task of this worker
  });
}

void ServerState::run_handler(Request request, std::shared_ptr<ResponseStream> stream) {
  try {
    handler(std::move(request), std::move(stream));
  } catch (const std::exception&) {
    // The dropped stream answers 500; a handler must not take the worker down.
  }
}

}  // namespace kw::net::detail
