#include "server/storage/etcd3/progress_gate.hpp"

#include <charconv>
#include <tuple>

namespace kw::storage::etcd3 {

bool orders_requested_progress(std::string_view version) {
  int parts[3] = {0, 0, 0};
  const char* at = version.data();
  const char* end = version.data() + version.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, error] = std::from_chars(at, end, parts[i]);
    if (error != std::errc{}) return false;
    at = next;
    if (i < 2) {
      if (at == end || *at != '.') return false;
      ++at;
    }
  }
  const auto v = std::make_tuple(parts[0], parts[1], parts[2]);
  if (parts[0] == 3 && parts[1] == 4) return v >= std::make_tuple(3, 4, 25);
  if (parts[0] == 3 && parts[1] == 5) return v >= std::make_tuple(3, 5, 8);
  return v >= std::make_tuple(3, 6, 0);
}

std::optional<Revision> ProgressGate::on_progress(Revision revision, bool requested, Clock::time_point now) {
  if (!requested || m_requested_is_ordered) {
    if (m_pending && *m_pending <= revision) m_pending.reset();
    return revision;
  }
  if (!m_pending) {
    m_pending = revision;
    m_pending_since = now;
    return std::nullopt;
  }
  if (now - m_pending_since < k_settle) return std::nullopt;
  // This answer proves the pending revision; its own revision is dropped, not kept pending, so
  // that proving one takes one more request, not an endless chain of them.
  const Revision proven = *m_pending;
  m_pending.reset();
  return proven;
}

void ProgressGate::on_events(Revision last_revision, Clock::time_point now) {
  if (!m_pending) return;
  if (last_revision >= *m_pending) {
    m_pending.reset();
  } else {
    m_pending_since = now;  // events below it are still arriving
  }
}

}  // namespace kw::storage::etcd3
