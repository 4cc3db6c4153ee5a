#pragma once
// Work the registry does after answering, like kube-apiserver's controllers: each task runs
// once on one background thread when its time comes. Destroying the runner stops it; tasks
// not yet due are dropped (they are re-derived from storage on the next start).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace kw::registry {

class DelayedTasks {
 public:
  using Clock = std::chrono::steady_clock;

  DelayedTasks();
  ~DelayedTasks();
  DelayedTasks(const DelayedTasks&) = delete;
  DelayedTasks& operator=(const DelayedTasks&) = delete;

  void run_after(std::chrono::milliseconds delay, std::function<void()> task);

 private:
  void loop();

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::multimap<Clock::time_point, std::function<void()>> m_due;
  bool m_stopping = false;
  std::thread m_thread;  // last: started once the rest exists
};

}  // namespace kw::registry
