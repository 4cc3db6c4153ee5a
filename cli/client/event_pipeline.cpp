#include "cli/client/event_pipeline.hpp"

#include <iterator>
#include <utility>

namespace kw::cli {

EventPipeline::EventPipeline(Consumer consumer, std::size_t max_pending)
    : m_consumer(std::move(consumer)), m_max_pending(max_pending == 0 ? 1 : max_pending),
      m_thread([this] { run(); }) {}

EventPipeline::~EventPipeline() { finish(); }

bool EventPipeline::push(std::vector<RawEvent>& events) {
  if (events.empty()) return !stopped();
  std::unique_lock lock(m_mutex);
  m_space.wait(lock, [this] { return m_stopped || m_queue.size() < m_max_pending; });
  if (m_stopped) {
    events.clear();
    return false;
  }
  const bool was_empty = m_queue.empty();
  if (was_empty) {
    m_queue.swap(events);
  } else {
    m_queue.insert(m_queue.end(), std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));
    events.clear();
  }
  lock.unlock();
  if (was_empty) m_ready.notify_one();
  return true;
}

void EventPipeline::finish() {
  {
    std::lock_guard lock(m_mutex);
    m_closing = true;
  }
  m_ready.notify_one();
  if (m_thread.joinable()) m_thread.join();
}

bool EventPipeline::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

void EventPipeline::run() {
  std::vector<RawEvent> batch;
  for (;;) {
    {
      std::unique_lock lock(m_mutex);
      m_ready.wait(lock, [this] { return m_closing || !m_queue.empty(); });
      if (m_queue.empty()) return;  // closing, and everything was consumed
      batch.swap(m_queue);
    }
    m_space.notify_one();
    const bool go_on = m_consumer(batch);
    batch.clear();  // the events' memory is released here, off the reading thread
    if (!go_on) {
      std::lock_guard lock(m_mutex);
      m_stopped = true;
      m_queue.clear();
      m_space.notify_all();
      return;
    }
  }
}

}  // namespace kw::cli
