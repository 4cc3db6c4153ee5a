#pragma once
// Calls a function on every item of a range from a few threads at once, for independent writes
// that each wait on storage (the server's start-up objects): the store commits the writes that
// wait together in one transaction, so they cost about one commit per round, not one each.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <ranges>
#include <thread>
#include <type_traits>
#include <vector>

namespace kw::util {

// Calls `fn(item)` for each item of `items`, from up to `workers` threads (the caller's among
// them), and returns once every call has. Calls run in no particular order; `fn` must be safe to
// call from several threads at once and must not throw.
template <std::ranges::random_access_range Range, class Fn>
void for_each_parallel(Range&& items, std::size_t workers, Fn&& fn) {
  const auto count = static_cast<std::size_t>(std::ranges::size(items));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) fn(std::ranges::begin(items)[static_cast<std::ptrdiff_t>(i)]);
  };
  std::vector<std::jthread> helpers;
  const std::size_t extra = std::min(workers, count) > 0 ? std::min(workers, count) - 1 : 0;
  helpers.reserve(extra);
  for (std::size_t t = 0; t < extra; ++t) helpers.emplace_back(work);
  work();
  // The helpers join as they go.
}

// Like for_each_parallel, for calls that can fail: `fn(item)` returns a std::expected<void, E>.
// Returns the first failure reported (success when there was none). Once one call has failed, no
// item not yet taken is started; calls already running finish.
template <std::ranges::random_access_range Range, class Fn>
auto try_each_parallel(Range&& items, std::size_t workers, Fn&& fn)
    -> std::invoke_result_t<Fn&, std::ranges::range_reference_t<Range>> {
  using Outcome = std::invoke_result_t<Fn&, std::ranges::range_reference_t<Range>>;
  std::mutex mutex;
  Outcome first{};
  std::atomic<bool> failed{false};
  for_each_parallel(items, workers, [&](auto&& item) {
    if (failed) return;
    if (auto outcome = fn(item); !outcome) {
      std::lock_guard lock(mutex);
      if (!failed.exchange(true)) first = std::move(outcome);
    }
  });
  return first;
}

}  // namespace kw::util
