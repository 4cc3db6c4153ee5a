#pragma once
// The fair queuing of one limited priority level (kube's fairqueuing/queueset): requests of a
// flow are shuffle-sharded onto a hand of queues, wait in the shortest of them, and are
// dispatched queue by queue in virtual-time order as seats free up, so that one busy flow
// cannot starve the others. Every request takes one seat. Not thread-safe: the owner locks.
// Requests are tickets; the owner keeps what they stand for.
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

namespace kw::flowcontrol {

// kube's shufflesharding.Dealer: the `hand_size` distinct queue indices below `deck_size` a
// hash value picks, in kube's order.
std::vector<int> deal_hand(std::uint64_t hash, int deck_size, int hand_size);

// kube's hashFlowID: the first 8 bytes (little-endian) of SHA-256(schema NUL distinguisher).
std::uint64_t hash_flow(std::string_view schema, std::string_view distinguisher);

using Clock = std::chrono::steady_clock;
using Ticket = std::uint64_t;

struct QueueSetConfig {
  int concurrency_limit = 0;  // seats; with fewer than one, one request at a time runs
  int queues = 0;             // 0: no queuing (limitResponse Reject)
  int hand_size = 1;
  int queue_length_limit = 0;
};

class QueueSet {
 public:
  explicit QueueSet(QueueSetConfig config) { reconfigure(config); }

  enum class Outcome { execute, queued, reject };
  // A request of the flow `hash` arrives: it runs at once, waits in a queue, or is refused
  // (no seat and no queuing, or its queue is full). Waiting requests that may now run are
  // returned by dispatch().
  Outcome arrive(Ticket ticket, std::uint64_t hash, Clock::time_point now);
  // A running request finished: its seat is free.
  void finish();
  // Waiting requests that get a seat now, in fair order; they count as running from here.
  std::vector<Ticket> dispatch();
  // Waiting requests that arrived before `limit`, removed: they are to be refused.
  std::vector<Ticket> expire(Clock::time_point limit);
  // New seats or queues (requests already waiting keep their place when their queue remains;
  // the others are returned, to be refused).
  std::vector<Ticket> reconfigure(QueueSetConfig config);

  std::optional<Clock::time_point> oldest_arrival() const;
  int executing() const { return m_executing; }
  int waiting() const { return m_waiting; }
  const QueueSetConfig& config() const { return m_config; }

 private:
  struct Waiting {
    Ticket ticket;
    Clock::time_point arrival;
  };
  struct Queue {
    std::deque<Waiting> requests;
    double next_dispatch = 0;  // virtual time at which its head may go
  };
  bool has_seat() const;
  int choose_queue(std::uint64_t hash);

  QueueSetConfig m_config;
  std::vector<Queue> m_queues;
  int m_executing = 0;
  int m_waiting = 0;
  std::uint64_t m_enqueues = 0;  // rotates where the look at a hand starts, as kube does
  double m_virtual_time = 0;     // kube's currentR, advanced one unit per dispatch
};

}  // namespace kw::flowcontrol
