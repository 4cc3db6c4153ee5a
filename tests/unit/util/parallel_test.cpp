// util::for_each_parallel (core/util/parallel.hpp).
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <set>
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
