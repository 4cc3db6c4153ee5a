#pragma once
// A keyed work queue with one worker thread, as kube's controllers use: a key added while it
// waits is queued once; a key whose work failed is tried again after a delay. Informer
// handlers add keys (cheap, never blocking on the work); the worker does the writes.
//
//   WorkQueue queue([&](const std::string& ns) { return sync(ns); });   // false: retry later
//   queue.add("team");
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace kw::control {

class WorkQueue {
 public:
  using Work = std::function<bool(const std::string& key)>;
  explicit WorkQueue(Work work, std::chrono::milliseconds retry_delay = std::chrono::seconds(1));
  // Stops the worker (the key in hand finishes first); queued keys are dropped.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void add(const std::string& key);

 private:
  void run();

  Work m_work;
  std::chrono::milliseconds m_retry_delay;
  std::mutex m_mutex;  // guards the four below
  std::condition_variable m_wake;
  std::deque<std::string> m_ready;
  std::set<std::string> m_queued;  // the keys in m_ready
  std::multimap<std::chrono::steady_clock::time_point, std::string> m_retries;
  bool m_stopping = false;
  std::thread m_worker;  // declared last: started when the rest is ready
};

}  // namespace kw::control
