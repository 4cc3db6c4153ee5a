#include "core/net/server/server_state.hpp"

#include <exception>

namespace kw::net::detail {

WorkerPool::WorkerPool(int threads) {
  const int count = threads > 0 ? threads : 1;
  m_threads.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) m_threads.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() { stop_and_join(); }

void WorkerPool::submit(std::move_only_function<void()> task) {
  {
    std::lock_guard lock(m_tasks_mutex);
    m_tasks.push_back(std::move(task));
  }
  m_tasks_ready.notify_one();
}

void WorkerPool::stop_and_join() {
  {
    std::lock_guard lock(m_tasks_mutex);
    m_stopping = true;
  }
  m_tasks_ready.notify_all();
  for (auto& thread : m_threads) {
    if (thread.joinable()) thread.join();
  }
  m_threads.clear();
  // Tasks submitted after the threads left still run, so no response is left dangling.
  std::deque<std::move_only_function<void()>> rest;
  {
    std::lock_guard lock(m_tasks_mutex);
    rest.swap(m_tasks);
  }
  for (auto& task : rest) task();
}

void WorkerPool::run() {
  for (;;) {
    std::move_only_function<void()> task;
    {
      std::unique_lock lock(m_tasks_mutex);
      m_tasks_ready.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
      if (m_tasks.empty()) return;
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
  const RequestClass kind = admission.classify ? admission.classify(request) : default_request_class(request);
  auto slot = inflight.try_acquire(kind);
  if (!slot) {
    if (admission.refuse) admission.refuse(request, kind, *stream);
    else refuse_plain(*stream);
    return;
  }
  workers.submit([this, slot = std::move(*slot), request = std::move(request), stream = std::move(stream)]() mutable {
    try {
      handler(std::move(request), std::move(stream));
    } catch (const std::exception&) {
      // The dropped stream answers 500; a handler must not take the worker down.
    }
  });
}

}  // namespace kw::net::detail
