// The request worker pool: blocked workers do not hold back other tasks (extra threads start, up
// to the cap), extra threads leave once idle, and tasks queued at stop still run.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

#include "core/net/server/server_state.hpp"

namespace kw::net::test {

using namespace std::chrono_literals;

namespace {

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace

TEST_CASE("worker pool: tasks run while every base worker is blocked, and extra workers leave when idle") {
  // (the pool is declared last, so its threads are joined before what they use goes)
  std::latch release(1);
  std::atomic<int> blocked{0};
  std::atomic<bool> ran{false};
  detail::WorkerPool pool(2, 8, 200ms);
  for (int i = 0; i < 4; ++i)
    pool.submit([&] {
      ++blocked;
      release.wait();
    });
  REQUIRE(eventually([&] { return blocked.load() == 4; }));
  pool.submit([&] { ran = true; });
  CHECK(eventually([&] { return ran.load(); }));
  CHECK(pool.threads() >= 5);
  release.count_down();
  CHECK(eventually([&] { return pool.threads() == 2; }));
}

TEST_CASE("worker pool: never more threads than the cap, the rest wait their turn") {
  // (the pool is declared last, so its threads are joined before what they use goes)
  std::latch release(1);
  std::atomic<int> started{0};
  detail::WorkerPool pool(1, 3, 200ms);
  for (int i = 0; i < 6; ++i)
    pool.submit([&] {
      ++started;
      release.wait();
    });
  REQUIRE(eventually([&] { return started.load() == 3; }));
  std::this_thread::sleep_for(50ms);
  CHECK(started.load() == 3);
  CHECK(pool.threads() == 3);
  release.count_down();
  CHECK(eventually([&] { return started.load() == 6; }));
}

TEST_CASE("worker pool: tasks queued when it stops still run") {
  std::atomic<int> ran{0};
  {
    detail::WorkerPool pool(1, 1);
    std::latch release(1);
    pool.submit([&] { release.wait(); });
    for (int i = 0; i < 3; ++i) pool.submit([&] { ++ran; });
    release.count_down();
    pool.stop_and_join();
  }
  CHECK(ran.load() == 3);
}

}  // namespace kw::net::test
