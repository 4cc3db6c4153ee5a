#include "server/storage/etcd3/progress_gate.hpp"

#include <doctest/doctest.h>

namespace {

using kw::storage::etcd3::orders_requested_progress;
using kw::storage::etcd3::ProgressGate;
using namespace std::chrono_literals;

}  // namespace

TEST_CASE("progress gate: etcd versions that answer progress requests in order") {
  CHECK_FALSE(orders_requested_progress("3.4.23"));
  CHECK_FALSE(orders_requested_progress("3.4.24"));
  CHECK(orders_requested_progress("3.4.25"));
  CHECK(orders_requested_progress("3.4.31"));
  CHECK_FALSE(orders_requested_progress("3.5.7"));
  CHECK(orders_requested_progress("3.5.8"));
  CHECK(orders_requested_progress("3.5.13"));
  CHECK(orders_requested_progress("3.6.0"));
  CHECK(orders_requested_progress("4.0.0"));
  CHECK_FALSE(orders_requested_progress("3.3.27"));
  CHECK_FALSE(orders_requested_progress(""));
  CHECK_FALSE(orders_requested_progress("3.5"));
  CHECK_FALSE(orders_requested_progress("garbage"));
}

TEST_CASE("progress gate: periodic notifications and an ordered server are trusted at once") {
  const auto t0 = ProgressGate::Clock::now();
  ProgressGate old_server(false);
  CHECK(old_server.on_progress(10, false, t0) == 10);
  ProgressGate new_server(true);
  CHECK(new_server.on_progress(10, true, t0) == 10);
  CHECK_FALSE(new_server.has_pending());
}

TEST_CASE("progress gate: an old server's answer is held until a later answer after it settled") {
  const auto t0 = ProgressGate::Clock::now();
  ProgressGate gate(false);
  CHECK_FALSE(gate.on_progress(10, true, t0).has_value());
  CHECK(gate.has_pending());
  // Too soon: not proven, and the pending revision stays the first one.
  CHECK_FALSE(gate.on_progress(12, true, t0 + 100ms).has_value());
  // Late enough: the first is proven; the newer answer is not kept.
  CHECK(gate.on_progress(12, true, t0 + ProgressGate::k_settle + 1ms) == 10);
  CHECK_FALSE(gate.has_pending());
}

TEST_CASE("progress gate: events at or below the pending revision restart its clock") {
  const auto t0 = ProgressGate::Clock::now();
  ProgressGate gate(false);
  CHECK_FALSE(gate.on_progress(10, true, t0).has_value());
  gate.on_events(9, t0 + 250ms);  // the backlog was still arriving
  CHECK_FALSE(gate.on_progress(11, true, t0 + 400ms).has_value());
  CHECK(gate.on_progress(11, true, t0 + 250ms + ProgressGate::k_settle) == 10);
}

TEST_CASE("progress gate: an event past the pending revision settles it, and a periodic one above it too") {
  const auto t0 = ProgressGate::Clock::now();
  ProgressGate gate(false);
  CHECK_FALSE(gate.on_progress(10, true, t0).has_value());
  gate.on_events(11, t0 + 1ms);
  CHECK_FALSE(gate.has_pending());
  CHECK_FALSE(gate.on_progress(20, true, t0 + 2ms).has_value());
  CHECK(gate.on_progress(20, false, t0 + 3ms) == 20);
  CHECK_FALSE(gate.has_pending());
}
