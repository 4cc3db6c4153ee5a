#include "core/util/backoff.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;

TEST_CASE("backoff: doubles up to its cap and starts over after reset") {
  kw::util::Backoff backoff(100ms, 500ms);
  CHECK(backoff.peek() == 100ms);
  CHECK(backoff.next() == 100ms);
  CHECK(backoff.next() == 200ms);
  CHECK(backoff.next() == 400ms);
  CHECK(backoff.peek() == 500ms);
  CHECK(backoff.next() == 500ms);
  CHECK(backoff.next() == 500ms);
  backoff.reset();
  CHECK(backoff.next() == 100ms);
}
