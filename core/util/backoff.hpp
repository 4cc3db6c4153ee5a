#pragma once
// A retry delay that doubles after each failure, up to a cap, and starts over after a success.
#include <algorithm>
#include <chrono>

namespace kw::util {

class Backoff {
 public:
  constexpr Backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap) : m_first(first), m_cap(cap), m_next(first) {}

  // The delay to wait now; the one after it is twice as long (at most the cap).
  std::chrono::milliseconds next() {
    const auto now = m_next;
    m_next = std::min(m_next * 2, m_cap);
    return now;
  }
  // What next() would give, without moving on.
  std::chrono::milliseconds peek() const { return m_next; }
  void reset() { m_next = m_first; }

 private:
  std::chrono::milliseconds m_first;
  std::chrono::milliseconds m_cap;
  std::chrono::milliseconds m_next;
};

}  // namespace kw::util
