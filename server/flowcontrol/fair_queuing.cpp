#include "server/flowcontrol/fair_queuing.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

namespace kw::flowcontrol {

std::vector<int> deal_hand(std::uint64_t hash, int deck_size, int hand_size) {
  hand_size = std::clamp(hand_size, 0, deck_size);
  std::vector<int> remainders(static_cast<std::size_t>(hand_size));
  for (int i = 0; i < hand_size; ++i) {
    const auto divisor = static_cast<std::uint64_t>(deck_size - i);
    const std::uint64_t next = hash / divisor;
    remainders[static_cast<std::size_t>(i)] = static_cast<int>(hash - divisor * next);
    hash = next;
  }
  // Each remainder indexes the cards not dealt yet: step over the ones already taken.
  std::vector<int> hand;
  hand.reserve(remainders.size());
  for (std::size_t i = 0; i < remainders.size(); ++i) {
    int card = remainders[i];
    for (std::size_t j = i; j > 0; --j)
      if (card >= remainders[j - 1]) ++card;
    hand.push_back(card);
  }
  return hand;
}

std::uint64_t hash_flow(std::string_view schema, std::string_view distinguisher) {
  std::string bytes(schema);
  bytes.push_back('\0');
  bytes.append(distinguisher);
  std::array<unsigned char, SHA256_DIGEST_LENGTH> sum{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), sum.data());
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | sum[static_cast<std::size_t>(i)];
  return value;
}

bool QueueSet::has_seat() const {
  return m_config.concurrency_limit < 1 ? m_executing == 0 : m_executing < m_config.concurrency_limit;
}

// kube's shuffleShardLocked: the queue of the flow's hand with the least waiting work,
// looked at from a rotating start.
int QueueSet::choose_queue(std::uint64_t hash) {
  const auto hand = deal_hand(hash, static_cast<int>(m_queues.size()), m_config.hand_size);
  const std::size_t offset = m_enqueues++ % hand.size();
  int best = hand[offset];
  for (std::size_t i = 0; i < hand.size(); ++i) {
    const int index = hand[(offset + i) % hand.size()];
    if (m_queues[static_cast<std::size_t>(index)].requests.size() <
        m_queues[static_cast<std::size_t>(best)].requests.size())
      best = index;
  }
  return best;
}

QueueSet::Outcome QueueSet::arrive(Ticket ticket, std::uint64_t hash, Clock::time_point now) {
  if (m_queues.empty() || (m_waiting == 0 && has_seat())) {
    if (!has_seat()) return Outcome::reject;
    ++m_executing;
    return Outcome::execute;
  }
  auto& queue = m_queues[static_cast<std::size_t>(choose_queue(hash))];
  if (!has_seat() && static_cast<int>(queue.requests.size()) >= m_config.queue_length_limit) return Outcome::reject;
  if (queue.requests.empty()) queue.next_dispatch = std::max(queue.next_dispatch, m_virtual_time);
  queue.requests.push_back({ticket, now});
  ++m_waiting;
  return Outcome::queued;
}

void QueueSet::finish() {
  if (m_executing > 0) --m_executing;
}

std::vector<Ticket> QueueSet::dispatch() {
  std::vector<Ticket> out;
  while (m_waiting > 0 && has_seat()) {
    Queue* next = nullptr;
    for (auto& queue : m_queues)
      if (!queue.requests.empty() && (next == nullptr || queue.next_dispatch < next->next_dispatch)) next = &queue;
    if (next == nullptr) break;
    out.push_back(next->requests.front().ticket);
    next->requests.pop_front();
    m_virtual_time = std::max(m_virtual_time, next->next_dispatch);
    next->next_dispatch += 1;  // one seat for one unit of (virtual) time
    --m_waiting;
    ++m_executing;
  }
  return out;
}

std::vector<Ticket> QueueSet::expire(Clock::time_point limit) {
  std::vector<Ticket> out;
  for (auto& queue : m_queues)
    while (!queue.requests.empty() && queue.requests.front().arrival < limit) {
      out.push_back(queue.requests.front().ticket);
      queue.requests.pop_front();
      --m_waiting;
    }
  return out;
}

std::vector<Ticket> QueueSet::reconfigure(QueueSetConfig config) {
  std::vector<Ticket> dropped;
  const auto count = static_cast<std::size_t>(std::max(0, config.queues));
  if (count != m_queues.size()) {
    for (auto& queue : m_queues)
      for (const auto& waiting : queue.requests) dropped.push_back(waiting.ticket);
    m_queues.assign(count, Queue{});
    m_waiting = 0;
  }
  config.hand_size = std::clamp(config.hand_size, 1, std::max(1, config.queues));
  m_config = config;
  return dropped;
}

std::optional<Clock::time_point> QueueSet::oldest_arrival() const {
  std::optional<Clock::time_point> oldest;
  for (const auto& queue : m_queues)
    if (!queue.requests.empty() && (!oldest || queue.requests.front().arrival < *oldest))
      oldest = queue.requests.front().arrival;
  return oldest;
}

}  // namespace kw::flowcontrol
