#include "core/net/server/inflight.hpp"

namespace kw::net::detail {

InflightSlot& InflightSlot::operator=(InflightSlot&& other) noexcept {
  if (this != &other) {
    release();
    m_counter = other.m_counter;
    other.m_counter = nullptr;
  }
  return *this;
}

void InflightSlot::release() {
  if (m_counter != nullptr) m_counter->fetch_sub(1, std::memory_order_acq_rel);
  m_counter = nullptr;
}

std::optional<InflightSlot> InflightLimiter::take(std::atomic<std::size_t>& counter, std::size_t limit) {
  if (limit == 0) {
    counter.fetch_add(1, std::memory_order_acq_rel);
    return InflightSlot(&counter);
  }
  std::size_t current = counter.load(std::memory_order_acquire);
  do {
    if (current >= limit) return std::nullopt;
  } while (!counter.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel));
  return InflightSlot(&counter);
}

std::optional<InflightSlot> InflightLimiter::try_acquire(RequestClass kind) {
  switch (kind) {
    case RequestClass::long_running:
    case RequestClass::exempt: return InflightSlot();
    case RequestClass::read_only: return take(m_read_only, m_max_read_only);
    case RequestClass::mutating: return take(m_mutating, m_max_mutating);
  }
  return InflightSlot();
}

std::size_t InflightLimiter::in_flight(RequestClass kind) const {
  switch (kind) {
    case RequestClass::read_only: return m_read_only.load();
    case RequestClass::mutating: return m_mutating.load();
    case RequestClass::long_running:
    case RequestClass::exempt: break;
  }
  return 0;
}

RequestClass default_request_class(const Request& request) {
  if (request.protocol == Protocol::websocket) return RequestClass::long_running;
  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD" || m == "OPTIONS") return RequestClass::read_only;
  return RequestClass::mutating;
}

}  // namespace kw::net::detail
