#include "server/control/work_queue.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using kw::control::WorkQueue;
using namespace std::chrono_literals;

namespace {

// What the worker saw, and a way to wait for it.
struct Seen {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> keys;

  void add(const std::string& key) {
    std::lock_guard lock(mutex);
    keys.push_back(key);
    changed.notify_all();
  }
  bool wait_for_count(std::size_t n, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return keys.size() >= n; });
  }
  std::vector<std::string> snapshot() {
    std::lock_guard lock(mutex);
    return keys;
  }
};

}  // namespace

TEST_CASE("work queue: a key added while it waits runs once, keys run in the order added") {
  Seen seen;
  std::mutex gate;
  std::unique_lock hold(gate);  // the first key blocks the worker until the others are queued
  WorkQueue queue([&](const std::string& key) {
    if (key == "first") std::lock_guard wait(gate);
    seen.add(key);
    return true;
  });
  queue.add("first");
  std::this_thread::sleep_for(20ms);  // the worker holds "first"
  for (const char* key : {"a", "b", "a", "a", "b", "c"}) queue.add(key);
  hold.unlock();
  REQUIRE(seen.wait_for_count(4));
  std::this_thread::sleep_for(50ms);
  CHECK(seen.snapshot() == std::vector<std::string>{"first", "a", "b", "c"});
}

TEST_CASE("work queue: failed work is tried again after the delay, other keys meanwhile") {
  Seen seen;
  std::atomic<int> failures_left = 2;
  WorkQueue queue(
      [&](const std::string& key) {
        seen.add(key);
        return key != "flaky" || failures_left.fetch_sub(1) <= 0;
      },
      30ms);
  const auto started = std::chrono::steady_clock::now();
  queue.add("flaky");
  queue.add("steady");
  REQUIRE(seen.wait_for_count(4));
  CHECK(std::chrono::steady_clock::now() - started >= 60ms);
  CHECK(seen.snapshot() == std::vector<std::string>{"flaky", "steady", "flaky", "flaky"});
  std::this_thread::sleep_for(100ms);
  CHECK(seen.snapshot().size() == 4);  // it succeeded the third time: no more tries
}

TEST_CASE("work queue: destroying it stops the worker, pending retries included") {
  std::atomic<int> runs = 0;
  {
    WorkQueue queue(
        [&](const std::string&) {
          ++runs;
          return false;
        },
        10s);
    queue.add("never done");
    for (int i = 0; i < 100 && runs == 0; ++i) std::this_thread::sleep_for(5ms);
  }
  CHECK(runs == 1);
}
