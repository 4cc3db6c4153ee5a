#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli/client/event_pipeline.hpp"

using namespace kw::cli;

namespace {

std::vector<RawEvent> numbered(int from, int count) {
  std::vector<RawEvent> events;
  for (int i = from; i < from + count; ++i) events.push_back(RawEvent{"ADDED", {{"n", i}}});
  return events;
}

}  // namespace

TEST_CASE("event pipeline: every event reaches the consumer once, in push order, on another thread") {
  std::vector<int> seen;
  std::atomic<bool> on_caller{false};
  const auto caller = std::this_thread::get_id();
  {
    EventPipeline pipeline([&](std::vector<RawEvent>& batch) {
      if (std::this_thread::get_id() == caller) on_caller = true;
      for (const auto& event : batch) seen.push_back(event.object["n"].get<int>());
      return true;
    }, 8);
    for (int i = 0; i < 1000; i += 7) {
      auto events = numbered(i, 7);
      CHECK(pipeline.push(events));
      CHECK(events.empty());
    }
    std::vector<RawEvent> none;
    CHECK(pipeline.push(none));
    pipeline.finish();
    CHECK_FALSE(pipeline.stopped());
    REQUIRE(seen.size() == 1001);
  }
  CHECK_FALSE(on_caller);
  for (int i = 0; i < 1001; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("event pipeline: a consumer that returns false stops it, later pushes are refused") {
  std::vector<int> seen;
  EventPipeline pipeline([&](std::vector<RawEvent>& batch) {
    for (const auto& event : batch) {
      seen.push_back(event.object["n"].get<int>());
      if (event.object["n"] == 3) return false;
    }
    return true;
  });
  auto first = numbered(0, 5);
  pipeline.push(first);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!pipeline.stopped() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(pipeline.stopped());
  auto later = numbered(5, 3);
  CHECK_FALSE(pipeline.push(later));
  pipeline.finish();
  CHECK(seen == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("event pipeline: a slow consumer holds the producer back (bounded queue)") {
  std::atomic<int> consumed{0};
  std::atomic<bool> release{false};
  EventPipeline pipeline([&](std::vector<RawEvent>& batch) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    consumed += static_cast<int>(batch.size());
    return true;
  }, 4);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 20; ++i) {
      auto events = numbered(i, 1);
      pipeline.push(events);
      ++pushed;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The blocked consumer holds one batch (at most four events), at most four more wait:
  // the producer is stuck well before its twentieth push.
  CHECK(pushed.load() <= 8);
  release = true;
  producer.join();
  pipeline.finish();
  CHECK(consumed.load() == 20);
}
