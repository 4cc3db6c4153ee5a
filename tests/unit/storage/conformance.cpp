#include "unit/storage/conformance.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

namespace kw::storage::testing {
namespace {

const std::string k_prefix = "/registry/conformance/";

std::string key(const std::string& name) { return k_prefix + name; }

Revision current(Backend& backend) {
  auto rev = backend.current_revision();
  REQUIRE(rev.has_value());
  return *rev;
}

Revision must_create(Backend& backend, const std::string& k, const std::string& v,
                     std::chrono::seconds ttl = std::chrono::seconds{0}) {
  auto created = backend.create(k, v, ttl);
  REQUIRE_MESSAGE(created.has_value(), (created ? "" : created.error().message));
  return created->revision;
}

std::vector<std::string> keys_of(const ListResult& list) {
  std::vector<std::string> keys;
  for (const auto& kv : list.items) keys.push_back(kv.key);
  return keys;
}

}  // namespace

WatchCallbacks WatchRecorder::callbacks() {
  WatchCallbacks cb;
  cb.on_events = [this](std::vector<Event> events) {
    std::lock_guard lock(m_mutex);
    for (auto& event : events) m_events.push_back(std::move(event));
    m_changed.notify_all();
  };
  cb.on_error = [this](Error error) {
    std::lock_guard lock(m_mutex);
    m_error = std::move(error);
    m_changed.notify_all();
  };
  cb.on_progress = [this](Revision revision) {
    std::lock_guard lock(m_mutex);
    m_progress.push_back(revision);
    m_changed.notify_all();
  };
  return cb;
}

bool WatchRecorder::wait_events(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  return m_changed.wait_for(lock, timeout, [&] { return m_events.size() >= n; });
}

bool WatchRecorder::wait_error(std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  return m_changed.wait_for(lock, timeout, [&] { return m_error.has_value(); });
}

bool WatchRecorder::wait_progress(std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  return m_changed.wait_for(lock, timeout, [&] { return !m_progress.empty(); });
}

std::vector<Event> WatchRecorder::events() const {
  std::lock_guard lock(m_mutex);
  return m_events;
}

std::optional<Error> WatchRecorder::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

std::vector<Revision> WatchRecorder::progress() const {
  std::lock_guard lock(m_mutex);
  return m_progress;
}

std::size_t WatchRecorder::event_count() const {
  std::lock_guard lock(m_mutex);
  return m_events.size();
}

void check_basic_crud(Backend& backend) {
  REQUIRE(backend.health().has_value());
  const Revision start = current(backend);
  const Revision r1 = must_create(backend, key("a"), "one");
  CHECK(r1 == start + 1);
  CHECK(current(backend) == r1);

  auto got = backend.get(key("a"));
  REQUIRE(got.has_value());
  CHECK(got->value == "one");
  CHECK(got->create_revision == r1);
  CHECK(got->mod_revision == r1);

  auto updated = backend.update(key("a"), "two", r1);
  REQUIRE(updated.has_value());
  CHECK(updated->revision == r1 + 1);
  got = backend.get(key("a"));
  REQUIRE(got.has_value());
  CHECK(got->value == "two");
  CHECK(got->create_revision == r1);
  CHECK(got->mod_revision == r1 + 1);

  auto removed = backend.remove(key("a"));
  REQUIRE(removed.has_value());
  CHECK(removed->revision == r1 + 2);
  auto missing = backend.get(key("a"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::not_found);

  // Old revisions stay readable until compaction.
  auto old = backend.get(key("a"), r1);
  REQUIRE(old.has_value());
  CHECK(old->value == "one");

  // A deleted key can be created again with a fresh create revision.
  const Revision again = must_create(backend, key("a"), "three");
  got = backend.get(key("a"));
  REQUIRE(got.has_value());
  CHECK(got->create_revision == again);
}

void check_cas_conflicts(Backend& backend) {
  const Revision r1 = must_create(backend, key("cas"), "v1");
  auto exists = backend.create(key("cas"), "again");
  REQUIRE_FALSE(exists.has_value());
  CHECK(exists.error().code == ErrorCode::exists);
  CHECK(exists.error().key == key("cas"));

  REQUIRE(backend.update(key("cas"), "v2", r1).has_value());
  auto stale = backend.update(key("cas"), "v3", r1);
  REQUIRE_FALSE(stale.has_value());
  CHECK(stale.error().code == ErrorCode::conflict);
  CHECK(stale.error().revision == r1 + 1);
  CHECK_FALSE(stale.error().message.empty());
  CHECK(backend.get(key("cas"))->value == "v2");

  auto absent = backend.update(key("nope"), "x", 1);
  REQUIRE_FALSE(absent.has_value());
  CHECK(absent.error().code == ErrorCode::not_found);
  // Failed writes make no revision.
  CHECK(current(backend) == r1 + 1);
}

void check_create_race(Backend& backend) {
  constexpr int k_threads = 8;
  std::atomic<int> wins{0};
  std::atomic<int> exists{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < k_threads; ++i) {
    threads.emplace_back([&, i] {
      auto created = backend.create(key("race"), "writer-" + std::to_string(i));
      if (created) {
        ++wins;
      } else if (created.error().code == ErrorCode::exists) {
        ++exists;
      } else {
        ++other;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wins == 1);
  CHECK(exists == k_threads - 1);
  CHECK(other == 0);
}

void check_concurrent_writes_have_no_holes(Backend& backend) {
  const Revision start = current(backend);
  constexpr int k_threads = 4;
  constexpr int k_writes = 10;
  std::mutex mutex;
  std::vector<Revision> revisions;
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_writes; ++i) {
        auto created = backend.create(key("w" + std::to_string(t) + "-" + std::to_string(i)), "v");
        if (!created) continue;
        std::lock_guard lock(mutex);
        revisions.push_back(created->revision);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  REQUIRE(revisions.size() == k_threads * k_writes);
  std::sort(revisions.begin(), revisions.end());
  for (std::size_t i = 0; i < revisions.size(); ++i) CHECK(revisions[i] == start + 1 + static_cast<Revision>(i));
}

void check_list_at_revision(Backend& backend) {
  must_create(backend, key("l/a"), "a1");
  const Revision rb = must_create(backend, key("l/b"), "b1");
  const Revision rc = must_create(backend, key("l/c"), "c1");
  must_create(backend, key("other"), "outside the prefix");
  const Revision snapshot = current(backend);
  REQUIRE(backend.update(key("l/b"), "b2", rb).has_value());
  REQUIRE(backend.remove(key("l/c"), rc).has_value());
  must_create(backend, key("l/d"), "d1");

  auto old = backend.list(key("l/"), ListOptions{snapshot, 0, ""});
  REQUIRE(old.has_value());
  CHECK(old->revision == snapshot);
  CHECK(keys_of(*old) == std::vector<std::string>{key("l/a"), key("l/b"), key("l/c")});
  CHECK(old->items[1].value == "b1");
  CHECK_FALSE(old->more);

  auto now = backend.list(key("l/"), ListOptions{});
  REQUIRE(now.has_value());
  CHECK(now->revision == current(backend));
  CHECK(keys_of(*now) == std::vector<std::string>{key("l/a"), key("l/b"), key("l/d")});
  CHECK(now->items[1].value == "b2");
  CHECK(now->items[1].create_revision == rb);
}

void check_pagination(Backend& backend) {
  std::vector<std::string> expected;
  for (int i = 0; i < 10; ++i) {
    const std::string k = key("p/" + std::to_string(i));
    expected.push_back(k);
    must_create(backend, k, "v" + std::to_string(i));
  }
  const Revision snapshot = current(backend);
  must_create(backend, key("p/99"), "added after the first page");

  std::vector<std::string> seen;
  ListOptions options{snapshot, 3, ""};
  int pages = 0;
  for (;;) {
    auto page = backend.list(key("p/"), options);
    REQUIRE(page.has_value());
    ++pages;
    CHECK(page->revision == snapshot);
    CHECK(page->items.size() <= 3);
    for (const auto& kv : page->items) seen.push_back(kv.key);
    CHECK(page->remaining == (page->more ? static_cast<std::int64_t>(expected.size() - seen.size()) : 0));
    if (!page->more) break;
    REQUIRE(pages < 10);
    options.continue_key = page->items.back().key + std::string(1, '\0');
  }
  CHECK(pages == 4);
  CHECK(seen == expected);

  auto negative = backend.list(key("p/"), ListOptions{0, -1, ""});
  REQUIRE_FALSE(negative.has_value());
  CHECK(negative.error().code == ErrorCode::invalid);
}

void check_watch_from_revision(Backend& backend) {
  const Revision r1 = must_create(backend, key("w/a"), "a1");
  const Revision r2 = backend.update(key("w/a"), "a2", r1)->revision;
  must_create(backend, key("unwatched"), "x");
  const Revision r4 = must_create(backend, key("w/b"), "b1");
  REQUIRE(backend.remove(key("w/a")).has_value());

  WatchRecorder recorder;
  auto handle = backend.watch(key("w/"), r1, recorder.callbacks());
  REQUIRE(handle.has_value());
  REQUIRE(recorder.wait_events(3));
  // Live events follow the replayed ones.
  REQUIRE(backend.update(key("w/b"), "b2", r4).has_value());
  for (int i = 0; i < 20; ++i) must_create(backend, key("w/n" + std::to_string(i)), "n");
  REQUIRE(recorder.wait_events(24));

  const auto events = recorder.events();
  REQUIRE(events.size() == 24);
  CHECK(events[0].type == EventType::put);
  CHECK(events[0].kv.mod_revision == r2);
  CHECK(events[0].kv.value == "a2");
  CHECK(events[1].kv.key == key("w/b"));
  CHECK(events[2].type == EventType::del);
  CHECK(events[2].kv.key == key("w/a"));
  CHECK(events[3].kv.value == "b2");
  // In order, no gap (every write after r4 is under the prefix), no duplicate.
  for (std::size_t i = 3; i < events.size(); ++i) {
    CHECK(events[i].kv.mod_revision == events[i - 1].kv.mod_revision + 1);
  }
  CHECK_FALSE(recorder.error().has_value());
}

void check_watch_after_compaction(Backend& backend) {
  Revision rev = must_create(backend, key("c/a"), "0");
  for (int i = 1; i <= 5; ++i) rev = backend.update(key("c/a"), std::to_string(i), rev)->revision;
  const Revision compact_at = rev - 1;
  REQUIRE(backend.compact(compact_at).has_value());
  auto compacted = backend.compacted_revision();
  REQUIRE(compacted.has_value());
  CHECK(*compacted == compact_at);

  auto old = backend.get(key("c/a"), compact_at - 2);
  REQUIRE_FALSE(old.has_value());
  CHECK(old.error().code == ErrorCode::compacted);
  CHECK(old.error().revision == compact_at);
  auto at = backend.get(key("c/a"), compact_at);
  REQUIRE(at.has_value());
  CHECK(at->value == "4");

  WatchRecorder gone;
  auto handle = backend.watch(key("c/"), compact_at - 3, gone.callbacks());
  REQUIRE(handle.has_value());
  REQUIRE(gone.wait_error());
  CHECK(gone.error()->code == ErrorCode::compacted);
  CHECK(gone.error()->revision == compact_at);
  CHECK(gone.event_count() == 0);

  WatchRecorder fine;
  auto ok = backend.watch(key("c/"), compact_at, fine.callbacks());
  REQUIRE(ok.has_value());
  REQUIRE(fine.wait_events(1));
  CHECK(fine.events()[0].kv.value == "5");
  CHECK_FALSE(fine.error().has_value());
}

void check_ttl_expiry(Backend& backend) {
  WatchRecorder recorder;
  auto handle = backend.watch(key("ttl/"), current(backend), recorder.callbacks());
  REQUIRE(handle.has_value());
  const Revision created = must_create(backend, key("ttl/short"), "expires", std::chrono::seconds(1));
  must_create(backend, key("ttl/forever"), "stays");
  REQUIRE(recorder.wait_events(3, std::chrono::seconds(10)));
  const auto events = recorder.events();
  CHECK(events[2].type == EventType::del);
  CHECK(events[2].kv.key == key("ttl/short"));
  CHECK(events[2].kv.mod_revision > created);
  CHECK(backend.get(key("ttl/short")).error().code == ErrorCode::not_found);
  CHECK(backend.get(key("ttl/forever")).has_value());
}

void check_large_values(Backend& backend) {
  const std::string big(1024 * 1024, 'x');
  must_create(backend, key("big"), big);
  auto got = backend.get(key("big"));
  REQUIRE(got.has_value());
  CHECK(got->value == big);

  const std::string too_big(backend.max_value_size() + 1, 'y');
  auto refused = backend.create(key("huge"), too_big);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::too_large);
  CHECK(refused.error().message.find("limit") != std::string::npos);
  auto refused_update = backend.update(key("big"), too_big, got->mod_revision);
  REQUIRE_FALSE(refused_update.has_value());
  CHECK(refused_update.error().code == ErrorCode::too_large);
}

void check_unicode_and_empty(Backend& backend) {
  const std::string unicode = key("ünïcødé/名前/🚀");
  must_create(backend, unicode, "");
  auto got = backend.get(unicode);
  REQUIRE(got.has_value());
  CHECK(got->value.empty());
  auto list = backend.list(key("ünïcødé/"), ListOptions{});
  REQUIRE(list.has_value());
  REQUIRE(list->items.size() == 1);
  CHECK(list->items[0].key == unicode);
  const std::string binary("\x01\x00\xff value", 9);
  REQUIRE(backend.update(unicode, binary, got->mod_revision).has_value());
  CHECK(backend.get(unicode)->value == binary);
}

void check_bad_revision(Backend& backend) {
  must_create(backend, key("r"), "v");
  const Revision now = current(backend);
  auto future = backend.get(key("r"), now + 100);
  REQUIRE_FALSE(future.has_value());
  CHECK(future.error().code == ErrorCode::invalid);
  auto future_list = backend.list(k_prefix, ListOptions{now + 100, 0, ""});
  REQUIRE_FALSE(future_list.has_value());
  CHECK(future_list.error().code == ErrorCode::invalid);
  auto bad_compact = backend.compact(now + 100);
  REQUIRE_FALSE(bad_compact.has_value());
}

void check_guarded_delete(Backend& backend) {
  const Revision r1 = must_create(backend, key("d"), "v1");
  REQUIRE(backend.update(key("d"), "v2", r1).has_value());
  auto stale = backend.remove(key("d"), r1);
  REQUIRE_FALSE(stale.has_value());
  CHECK(stale.error().code == ErrorCode::conflict);
  CHECK(backend.get(key("d")).has_value());
  auto removed = backend.remove(key("d"), r1 + 1);
  REQUIRE(removed.has_value());
  auto again = backend.remove(key("d"));
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().code == ErrorCode::not_found);
}

void check_watch_cancel_and_progress(Backend& backend) {
  WatchRecorder recorder;
  auto handle = backend.watch(key("x/"), current(backend), recorder.callbacks());
  REQUIRE(handle.has_value());
  const Revision r = must_create(backend, key("x/1"), "v");
  REQUIRE(recorder.wait_events(1));
  (*handle)->request_progress();
  REQUIRE(recorder.wait_progress(std::chrono::seconds(5)));
  CHECK(recorder.progress().back() >= r);

  handle->reset();
  const std::size_t seen = recorder.event_count();
  for (int i = 2; i < 6; ++i) must_create(backend, key("x/" + std::to_string(i)), "v");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(recorder.event_count() == seen);
}

}  // namespace kw::storage::testing
