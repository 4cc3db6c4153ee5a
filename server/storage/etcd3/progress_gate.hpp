#pragma once
// Decides when an etcd watch progress notification proves that every event up to its revision
// was delivered (private to this folder).
//
// etcd sends two kinds: periodic ones (progress_notify, sent for one watcher through the same
// queue as its events, so ordered with them) and requested ones (answers to a progress request,
// watch id -1). Before 3.4.25 and 3.5.8 a requested one bypasses the event queue (etcd issue
// 15220): it can carry a revision whose events are still on their way. Trusting it would make
// the watch drop those events as already seen, and the watch cache skip them for good. From
// such a server a requested revision is only reported once it has settled: an answer to a
// later request came at least k_settle after it with no event at or below it in between
// (etcd's own catch-up loops run every 10 and 100 ms). An event above it makes it moot (events
// come in revision order, so the watch is past it anyway).
#include <chrono>
#include <optional>
#include <string_view>

#include "server/storage/backend.hpp"

namespace kw::storage::etcd3 {

// Whether an etcd of this version ("3.4.23") sends requested progress in order with events.
bool orders_requested_progress(std::string_view version);

class ProgressGate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds k_settle{300};

  explicit ProgressGate(bool requested_is_ordered) : m_requested_is_ordered(requested_is_ordered) {}

  // A progress notification at `revision`; returns the revision now proven delivered, if any.
  std::optional<Revision> on_progress(Revision revision, bool requested, Clock::time_point now);
  // Events up to `last_revision` were delivered.
  void on_events(Revision last_revision, Clock::time_point now);
  bool has_pending() const { return m_pending.has_value(); }

 private:
  bool m_requested_is_ordered;
  std::optional<Revision> m_pending;  // the oldest requested revision not yet proven
  Clock::time_point m_pending_since;  // when it came, or when the last event below it did
};

}  // namespace kw::storage::etcd3
