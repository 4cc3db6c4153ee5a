// util::for_each_parallel (core/util/parallel.hpp).
#include <doctest/doctest.h>

#include <atomic>
#include <expected>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/util/parallel.hpp"

TEST_CASE("for_each_parallel calls every item once, from at most the workers asked for") {
  std::vector<int> items(1000);
  for (int i = 0; i < 1000; ++i) items[static_cast<std::size_t>(i)] = i;
  std::vector<std::atomic<int>> calls(items.size());
  std::mutex mutex;
  std::set<std::thread::id> threads;
  kw::util::for_each_parallel(items, 4, [&](int item) {
    ++calls[static_cast<std::size_t>(item)];
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (const auto& count : calls) CHECK(count == 1);
  CHECK(threads.size() <= 4);
  threads.clear();
  kw::util::for_each_parallel(items, 1, [&](int) {
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});  // one worker: the caller
}

TEST_CASE("for_each_parallel with no items or more workers than items") {
  std::vector<int> none;
  int called = 0;
  kw::util::for_each_parallel(none, 8, [&](int) { ++called; });
  CHECK(called == 0);
  std::vector<int> two{1, 2};
  std::atomic<int> sum{0};
  kw::util::for_each_parallel(two, 8, [&](int item) { sum += item; });
  CHECK(sum == 3);
  kw::util::for_each_parallel(two, 0, [&](int item) { sum += item; });  // the caller alone
  CHECK(sum == 6);
}

TEST_CASE("try_each_parallel returns the first failure and starts nothing after it") {
  std::vector<int> items(200);
  for (int i = 0; i < 200; ++i) items[static_cast<std::size_t>(i)] = i;
  std::atomic<int> called{0};
  auto all_fine = kw::util::try_each_parallel(items, 4, [&](int) -> std::expected<void, std::string> {
    ++called;
    return {};
  });
  CHECK(all_fine);
  CHECK(called == 200);

  // One worker: the calls run in order, so the failure is item 10's and nothing after it runs.
  called = 0;
  auto stopped = kw::util::try_each_parallel(items, 1, [&](int item) -> std::expected<void, std::string> {
    ++called;
    if (item >= 10) return std::unexpected("item " + std::to_string(item));
    return {};
  });
  REQUIRE_FALSE(stopped);
  CHECK(stopped.error() == "item 10");
  CHECK(called == 11);

  // Several workers: one of the failures comes back, and most items are never started.
  called = 0;
  auto some = kw::util::try_each_parallel(items, 4, [&](int item) -> std::expected<void, std::string> {
    ++called;
    if (item % 2 == 1) return std::unexpected("odd " + std::to_string(item));
    return {};
  });
  REQUIRE_FALSE(some);
  CHECK(some.error().starts_with("odd "));
  CHECK(called < 200);
}
