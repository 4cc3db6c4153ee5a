#pragma once
// Internal to core/net/server: the in-flight limit of kube-apiserver's max-in-flight filter.
// A request takes a slot of its class when it is handed to the worker pool and gives it back
// when its handler returns, so queued and running requests both count. Long-running requests
// (watches) and exempt ones never take one.
#include <atomic>
#include <cstddef>
#include <optional>

#include "core/net/server/http_server.hpp"

namespace kw::net::detail {

class InflightLimiter;

// A taken slot; gives it back when destroyed. Move-only.
class InflightSlot {
 public:
  InflightSlot() = default;
  InflightSlot(InflightSlot&& other) noexcept : m_counter(other.m_counter) { other.m_counter = nullptr; }
  InflightSlot& operator=(InflightSlot&& other) noexcept;
  InflightSlot(const InflightSlot&) = delete;
  InflightSlot& operator=(const InflightSlot&) = delete;
  ~InflightSlot() { release(); }

 private:
  friend class InflightLimiter;
  explicit InflightSlot(std::atomic<std::size_t>* counter) : m_counter(counter) {}
  void release();
  std::atomic<std::size_t>* m_counter = nullptr;  // null: holds nothing
};

class InflightLimiter {
 public:
  // 0 = no limit for that class.
  InflightLimiter(std::size_t max_read_only, std::size_t max_mutating)
      : m_max_read_only(max_read_only), m_max_mutating(max_mutating) {}
  // A slot of the request's class, or nullopt when that class is at its limit. Long-running
  // and exempt requests always get an empty slot. Thread-safe and lock-free.
  std::optional<InflightSlot> try_acquire(RequestClass kind);
  std::size_t in_flight(RequestClass kind) const;

 private:
  static std::optional<InflightSlot> take(std::atomic<std::size_t>& counter, std::size_t limit);

  std::size_t m_max_read_only;
  std::size_t m_max_mutating;
  std::atomic<std::size_t> m_read_only{0};
  std::atomic<std::size_t> m_mutating{0};
};

// The class of a request when the server was given no classifier: GET, HEAD and OPTIONS read,
// every other method mutates; a WebSocket upgrade is long-running.
RequestClass default_request_class(const Request& request);

}  // namespace kw::net::detail
