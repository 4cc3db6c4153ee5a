#pragma once
// Two-stage watch processing: the thread that reads the stream decodes events and push()es
// them; a consumer thread of the pipeline's own hands them, in order, to a callback (the
// seen-set, the printer, the resume file). Decoding and printing then overlap on two cores.
//
// Contract: push() and finish() are called from one producer thread. The callback runs on
// the consumer thread only; it gets every event pushed, in push order, in batches of
// whatever was queued, and returns false to stop: later pushes are dropped and push()
// returns false, so the producer ends the stream. finish() hands over the rest, waits
// until the callback has seen it and joins the thread; the destructor calls it.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/client/list.hpp"

namespace kw::cli {

class EventPipeline {
 public:
  using Consumer = std::function<bool(std::vector<RawEvent>& batch)>;

  // At most `max_pending` events wait in the queue; push() blocks past that (back-pressure
  // on the server instead of memory growth).
  explicit EventPipeline(Consumer consumer, std::size_t max_pending = 4096);
  ~EventPipeline();
  EventPipeline(const EventPipeline&) = delete;
  EventPipeline& operator=(const EventPipeline&) = delete;

  // Queues `events` (moved from; the vector is left empty). False once the consumer stopped.
  bool push(std::vector<RawEvent>& events);
  // Waits until every queued event was consumed and stops the consumer thread.
  void finish();
  // Whether the consumer returned false.
  bool stopped() const;

 private:
  void run();

  Consumer m_consumer;
  std::size_t m_max_pending;
  mutable std::mutex m_mutex;  // guards the fields below
  std::condition_variable m_ready;   // producer -> consumer: events queued or closing
  std::condition_variable m_space;   // consumer -> producer: room in the queue or stopped
  std::vector<RawEvent> m_queue;
  bool m_closing = false;
  bool m_stopped = false;
  std::thread m_thread;  // last: starts after the fields above exist
};

}  // namespace kw::cli
