// Conformance: many writers mixing creates, guarded updates and guarded deletes on a few
// shared keys. Whatever the backend batches, every acknowledged write has its own revision,
// the revisions have no holes, and a watch delivers them in revision order.
#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "unit/storage/conformance.hpp"

namespace kw::storage::testing {
namespace {

const std::string k_mix_prefix = "/registry/conformance/mix/";

struct Acked {
  std::string key;
  EventType type = EventType::put;
  std::string value;
};

struct Outcomes {
  std::mutex mutex;  // guards everything below
  std::map<Revision, Acked> acked;
  std::map<ErrorCode, int> refused;
  std::vector<std::string> unexpected;

  void record(const Result<WriteResult>& result, const std::string& key, EventType type, const std::string& value) {
    std::lock_guard lock(mutex);
    if (result) {
      const bool fresh = acked.emplace(result->revision, Acked{key, type, value}).second;
      if (!fresh) unexpected.push_back("revision " + std::to_string(result->revision) + " acknowledged twice");
      return;
    }
    const ErrorCode code = result.error().code;
    if (code == ErrorCode::exists || code == ErrorCode::conflict || code == ErrorCode::not_found) {
      ++refused[code];
    } else {
      unexpected.push_back(result.error().message);
    }
  }
};

// One writer: creates, updates with the revision it just read (often stale by then) and
// deletes guarded the same way, over 6 keys shared by every writer.
void write_mix(Backend& backend, int writer, int ops, Outcomes& outcomes) {
  for (int i = 0; i < ops; ++i) {
    const std::string key = k_mix_prefix + "k" + std::to_string((writer * 5 + i) % 6);
    const std::string value = "w" + std::to_string(writer) + "-" + std::to_string(i);
    switch (i % 3) {
      case 0:
        outcomes.record(backend.create(key, value), key, EventType::put, value);
        break;
      case 1:
        if (auto seen = backend.get(key)) {
          outcomes.record(backend.update(key, value, seen->mod_revision), key, EventType::put, value);
        } else {
          outcomes.record(backend.update(key, value, 1), key, EventType::put, value);
        }
        break;
      default:
        if (auto seen = backend.get(key)) {
          outcomes.record(backend.remove(key, seen->mod_revision), key, EventType::del, "");
        } else {
          outcomes.record(backend.remove(key), key, EventType::del, "");
        }
        break;
    }
  }
}

}  // namespace

void check_mixed_concurrent_writes(Backend& backend) {
  constexpr int k_writers = 16;
  constexpr int k_ops = 30;
  auto start_revision = backend.current_revision();
  REQUIRE(start_revision.has_value());
  const Revision start = *start_revision;
  WatchRecorder recorder;
  auto handle = backend.watch(k_mix_prefix, start, recorder.callbacks());
  REQUIRE(handle.has_value());

  Outcomes outcomes;
  std::vector<std::thread> writers;
  for (int w = 0; w < k_writers; ++w) writers.emplace_back([&, w] { write_mix(backend, w, k_ops, outcomes); });
  for (auto& writer : writers) writer.join();

  CHECK_MESSAGE(outcomes.unexpected.empty(), (outcomes.unexpected.empty() ? "" : outcomes.unexpected.front()));
  REQUIRE_FALSE(outcomes.acked.empty());
  const auto total = static_cast<Revision>(outcomes.acked.size());
  // Gap-free: the acknowledged revisions are exactly start+1 .. start+total.
  CHECK(outcomes.acked.begin()->first == start + 1);
  CHECK(outcomes.acked.rbegin()->first == start + total);
  auto now = backend.current_revision();
  REQUIRE(now.has_value());
  CHECK(*now == start + total);

  // The watch sees every acknowledged write once, in revision order, as acknowledged.
  REQUIRE(recorder.wait_events(outcomes.acked.size()));
  const std::vector<Event> events = recorder.events();
  REQUIRE(events.size() == outcomes.acked.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& event = events[i];
    REQUIRE(event.kv.mod_revision == start + 1 + static_cast<Revision>(i));
    const Acked& acked = outcomes.acked.at(event.kv.mod_revision);
    CHECK(event.kv.key == acked.key);
    CHECK(event.type == acked.type);
    if (event.type == EventType::put) CHECK(event.kv.value == acked.value);
  }

  // The store agrees with the last event of every key.
  std::map<std::string, const Event*> last;
  for (const Event& event : events) last[event.kv.key] = &event;
  for (const auto& [key, event] : last) {
    auto got = backend.get(key);
    if (event->type == EventType::del) {
      CHECK_FALSE(got.has_value());
    } else {
      REQUIRE(got.has_value());
      CHECK(got->mod_revision == event->kv.mod_revision);
      CHECK(got->value == event->kv.value);
    }
  }
}

}  // namespace kw::storage::testing
