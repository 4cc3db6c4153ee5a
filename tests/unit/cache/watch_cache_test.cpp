// The watch cache against the real embedded store, with an injected clock.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "core/api/selector.hpp"
#include "server/cache/watch_cache.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace kw;
using namespace std::chrono_literals;

struct Received {
  std::string type;
  std::string name;
  cache::Revision revision;
};

// A sink that records what it gets; `full` makes try_send refuse (a slow client).
class RecordingSink : public cache::WatchSink {
 public:
  bool try_send(const cache::EventPtr& event) override {
    if (m_full) return false;
    send(event);
    return true;
  }
  void send(const cache::EventPtr& event) override {
    std::lock_guard lock(m_mutex);
    m_events.push_back({cache::to_string(event->type()), event->object()->name, event->revision()});
    if (event->type() == cache::EventType::bookmark) m_bookmark_object = event->object()->object();
  }
  bool writable() const override { return !m_full; }
  void flush() override {}
  void close(const std::string& reason) override {
    std::lock_guard lock(m_mutex);
    m_closed = true;
    m_reason = reason;
  }
  void abort(const std::string& reason) override {
    close(reason);
    m_aborted = true;
  }
  std::chrono::steady_clock::duration lag() override { return m_lag.load(); }
  bool closed() const override {
    std::lock_guard lock(m_mutex);
    return m_closed;
  }
  std::vector<Received> events() const {
    std::lock_guard lock(m_mutex);
    return m_events;
  }
  std::string reason() const {
    std::lock_guard lock(m_mutex);
    return m_reason;
  }
  nlohmann::json bookmark_object() const {
    std::lock_guard lock(m_mutex);
    return m_bookmark_object;
  }
  // Waits (bounded) until `count` events arrived.
  std::vector<Received> wait_for(std::size_t count) const {
    for (int i = 0; i < 500 && events().size() < count; ++i) std::this_thread::sleep_for(10ms);
    return events();
  }
  std::atomic<bool> m_full{false};
  std::atomic<bool> m_aborted{false};
  std::atomic<std::chrono::steady_clock::duration> m_lag{};  // what lag() reports

 private:
  mutable std::mutex m_mutex;
  std::vector<Received> m_events;
  bool m_closed = false;
  std::string m_reason;
  nlohmann::json m_bookmark_object;
};

struct Fixture {
  kw::testing::TempDir dir;
  std::unique_ptr<storage::Backend> backend;
  std::atomic<std::int64_t> clock_ms{0};
  std::atomic<int> rebuilt{0};  // trees rebuilt from lean objects
  std::unique_ptr<cache::WatchCache> cache;

  // parallel_min: dispatch rounds reaching that many watchers are split over 3 threads.
  // lean: each object gets a TreeSource, its "protobuf" being its tree as JSON text, so the
  // cache may keep it lean.
  explicit Fixture(std::size_t min_history = 100, std::string index_field = "", std::size_t parallel_min = 1000,
                   std::size_t max_history_bytes = 64 * 1024 * 1024, bool lean = false) {
    storage::SqliteOptions store;
    store.data_dir = dir.path();
    backend = std::move(*storage::open_sqlite_backend(store));
    cache::CacheOptions options;
    options.prefix = "/registry/pods/";
    options.api_version = "v1";
    options.kind = "Pod";
    options.min_history = min_history;
    options.max_history_bytes = max_history_bytes;
    options.start_ticker = false;
    options.index_field = index_field;
    options.dispatch_threads = 3;
    options.parallel_dispatch_min = parallel_min;
    options.clock = [this] { return std::chrono::steady_clock::time_point(std::chrono::milliseconds(clock_ms.load())); };
    auto source = std::make_shared<cache::TreeSource>();
    source->api_version = "v1";
    source->kind = "Pod";
    source->decode = [this](std::string_view text) -> kw::Result<nlohmann::json> {
      ++rebuilt;
      return nlohmann::json::parse(text);
    };
    options.decode = [lean, source](const storage::KeyValue& kv) -> storage::Result<cache::ObjectPtr> {
      auto object = std::make_shared<cache::StoredObject>();
      object->key = kv.key;
      object->revision = kv.mod_revision;
      auto tree = nlohmann::json::parse(kv.value);
      tree["metadata"]["resourceVersion"] = std::to_string(kv.mod_revision);
      object->name = tree["metadata"]["name"];
      object->set_object(std::move(tree));
      object->namespace_ = object->object()["metadata"]["namespace"];
      object->labels = api::labels_of(object->object());
      object->fields["spec.nodeName"] = object->object()["metadata"]["labels"].value("app", "");
      if (lean) {
        object->protobuf = object->object().dump();
        object->source = source;
      }
      return object;
    };
    cache = std::make_unique<cache::WatchCache>(*backend, std::move(options));
    REQUIRE(cache->start());
  }
  ~Fixture() {
    cache.reset();
    backend.reset();
  }

  static std::string pod(const std::string& name, const std::string& app) {
    return nlohmann::json{{"metadata", {{"name", name}, {"namespace", "ns"}, {"labels", {{"app", app}}}}}}.dump();
  }
  cache::Revision put(const std::string& name, const std::string& app) {
    const std::string key = "/registry/pods/ns/" + name;
    auto current = backend->get(key);
    auto written = current ? backend->update(key, pod(name, app), current->mod_revision) : backend->create(key, pod(name, app));
    REQUIRE(written);
    return written->revision;
  }
  cache::Revision remove(const std::string& name) {
    auto removed = backend->remove("/registry/pods/ns/" + name);
    REQUIRE(removed);
    return removed->revision;
  }
  cache::WatchRequest request(cache::StartMode mode, cache::Revision revision = 0) {
    cache::WatchRequest r;
    r.mode = mode;
    r.revision = revision;
    r.deadline = cache_now() + 3600s;
    return r;
  }
  std::chrono::steady_clock::time_point cache_now() const {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(clock_ms.load()));
  }
  void wait_revision(cache::Revision revision) {
    for (int i = 0; i < 500 && cache->revision() < revision; ++i) std::this_thread::sleep_for(10ms);
    REQUIRE(cache->revision() >= revision);
  }
};

cache::WatchFilter app_filter(const std::string& app) {
  cache::WatchFilter filter;
  filter.matches = [app](const cache::StoredObject& o) {
    auto found = o.labels.find("app");
    return found != o.labels.end() && found->second == app;
  };
  return filter;
}

}  // namespace

TEST_CASE("a watch from the current state gets ADDED for what exists, then the changes in order") {
  Fixture f;
  f.put("a", "web");
  f.put("b", "web");
  f.wait_revision(2);
  auto sink = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), sink));
  const auto r3 = f.put("a", "db");
  const auto r4 = f.remove("b");
  auto got = sink->wait_for(4);
  REQUIRE(got.size() == 4);
  CHECK(got[0].type == "ADDED");
  CHECK(got[0].name == "a");
  CHECK(got[1].type == "ADDED");
  CHECK(got[1].name == "b");
  CHECK(got[2].type == "MODIFIED");
  CHECK(got[2].revision == r3);
  CHECK(got[3].type == "DELETED");
  CHECK(got[3].name == "b");
  CHECK(got[3].revision == r4);  // a deletion carries the deletion's revision
}

TEST_CASE("a watch from an exact revision replays only what came after it") {
  Fixture f;
  const auto r1 = f.put("a", "web");
  f.put("b", "web");
  f.put("a", "db");
  f.wait_revision(3);
  auto sink = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, r1), sink));
  auto got = sink->events();
  REQUIRE(got.size() == 2);
  CHECK(got[0].name == "b");
  CHECK(got[0].type == "ADDED");
  CHECK(got[1].type == "MODIFIED");
  f.put("c", "web");
  CHECK(sink->wait_for(3).size() == 3);
}

TEST_CASE("a revision older than the window is refused as compacted (410), a future one waits") {
  Fixture f(2);
  cache::Revision sixth = 0;
  for (int i = 0; i < 6; ++i) sixth = f.put("p" + std::to_string(i), "web");
  // The cache stamps an event when it applies it: let it apply these before the clock moves.
  f.wait_revision(sixth);
  f.clock_ms += 120'000;  // older than the 75 s history window
  const auto last = f.put("late", "web");
  f.wait_revision(last);
  auto sink = std::make_shared<RecordingSink>();
  auto old = f.cache->watch(f.request(cache::StartMode::exact, 1), sink);
  REQUIRE_FALSE(old);
  CHECK(old.error().code == storage::ErrorCode::compacted);
  CHECK(old.error().message.find("too old resource version: 1") != std::string::npos);

  auto future = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, last + 1), future));
  f.put("x", "web");                     // revision last+1: not after the asked one
  const auto after = f.put("y", "web");  // last+2: delivered
  auto got = future->wait_for(1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].revision == after);
}

TEST_CASE("history ages out on a tick with no new event, and is capped by bytes") {
  {
    Fixture f(2);
    cache::Revision last = 0;
    for (int i = 0; i < 6; ++i) last = f.put("p" + std::to_string(i), "web");
    f.wait_revision(last);
    auto sink = std::make_shared<RecordingSink>();
    REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, 1), sink));  // still in the window
    f.clock_ms += 120'000;
    f.cache->tick();  // no event since: the tick trims
    auto old = f.cache->watch(f.request(cache::StartMode::exact, 1), std::make_shared<RecordingSink>());
    REQUIRE_FALSE(old);
    CHECK(old.error().code == storage::ErrorCode::compacted);
    CHECK(f.cache->watch(f.request(cache::StartMode::exact, last - 2), std::make_shared<RecordingSink>()));
  }
  {
    // Each stored pod is 66 bytes: 140 bytes of history hold the newest two events only,
    // however young and however few (min_history 100).
    Fixture f(100, "", 1000, 140);
    cache::Revision last = 0;
    for (int i = 0; i < 6; ++i) last = f.put("p" + std::to_string(i), "web");
    f.wait_revision(last);
    auto old = f.cache->watch(f.request(cache::StartMode::exact, last - 3), std::make_shared<RecordingSink>());
    REQUIRE_FALSE(old);
    CHECK(old.error().code == storage::ErrorCode::compacted);
    auto recent = std::make_shared<RecordingSink>();
    REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, last - 2), recent));
    CHECK(recent->wait_for(2).size() == 2);
  }
}

TEST_CASE("objects entering a selector arrive as ADDED, leaving it as DELETED") {
  Fixture f;
  f.put("a", "db");
  f.wait_revision(1);
  auto sink = std::make_shared<RecordingSink>();
  auto request = f.request(cache::StartMode::current_state);
  request.filter = app_filter("web");
  REQUIRE(f.cache->watch(request, sink));
  CHECK(sink->events().empty());
  f.put("a", "web");    // enters
  f.put("a", "web");    // stays
  const auto left = f.put("a", "cache");  // leaves
  f.put("a", "db");     // stays out
  auto got = sink->wait_for(3);
  f.wait_revision(left + 1);
  got = sink->events();
  REQUIRE(got.size() == 3);
  CHECK(got[0].type == "ADDED");
  CHECK(got[1].type == "MODIFIED");
  CHECK(got[2].type == "DELETED");
  CHECK(got[2].revision == left);
}

TEST_CASE("bookmarks are sent when asked, at the interval and before the deadline") {
  Fixture f;
  f.put("a", "web");
  f.wait_revision(1);
  auto with = std::make_shared<RecordingSink>();
  auto without = std::make_shared<RecordingSink>();
  auto request = f.request(cache::StartMode::exact, 1);
  request.deadline = f.cache_now() + 100s;
  request.allow_bookmarks = true;
  REQUIRE(f.cache->watch(request, with));
  request.allow_bookmarks = false;
  REQUIRE(f.cache->watch(request, without));
  f.cache->tick();
  CHECK(with->events().empty());
  f.clock_ms += 61'000;
  f.cache->tick();
  auto got = with->events();
  REQUIRE(got.size() == 1);
  CHECK(got[0].type == "BOOKMARK");
  CHECK(with->bookmark_object()["metadata"]["resourceVersion"] == "1");
  CHECK(with->bookmark_object()["kind"] == "Pod");
  f.clock_ms += 37'000;  // 98 s: 2 s before the deadline
  f.cache->tick();
  CHECK(with->events().size() == 2);
  CHECK(without->events().empty());
  f.clock_ms += 3'000;  // past the deadline: the stream ends
  f.cache->tick();
  CHECK(with->closed());
  CHECK(without->closed());
  CHECK(with->reason().empty());
}

TEST_CASE("sendInitialEvents ends the initial state with the initial-events-end bookmark") {
  Fixture f;
  f.put("a", "web");
  f.wait_revision(1);
  auto sink = std::make_shared<RecordingSink>();
  auto request = f.request(cache::StartMode::current_state);
  request.allow_bookmarks = true;
  request.initial_events_end = true;
  REQUIRE(f.cache->watch(request, sink));
  auto got = sink->events();
  REQUIRE(got.size() == 2);
  CHECK(got[0].type == "ADDED");
  CHECK(got[1].type == "BOOKMARK");
  CHECK(sink->bookmark_object()["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true");
}

TEST_CASE("a watcher that stays full past the budget is closed while the others keep receiving") {
  Fixture f;
  auto slow = std::make_shared<RecordingSink>();
  auto fast = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), slow));
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), fast));
  slow->m_full = true;
  f.put("a", "web");
  f.put("b", "web");
  CHECK(fast->wait_for(2).size() == 2);
  f.cache->tick();
  CHECK_FALSE(slow->closed());  // within the budget: its events are held back
  f.clock_ms += 150;
  f.cache->tick();
  CHECK(slow->closed());
  CHECK(slow->reason().find("too slow") != std::string::npos);
  CHECK(f.cache->metrics().terminated_watchers == 1);
  CHECK(f.cache->metrics().watchers == 1);
}

TEST_CASE("a watcher whose oldest undelivered event is older than max_lag is aborted, however small its queue") {
  Fixture f;
  auto laggard = std::make_shared<RecordingSink>();
  auto fast = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), laggard));
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), fast));
  laggard->m_lag = 4900ms;  // still within max_lag (5 s): kept
  f.put("a", "web");
  CHECK(fast->wait_for(1).size() == 1);
  CHECK(laggard->wait_for(1).size() == 1);
  f.cache->tick();
  CHECK_FALSE(laggard->closed());
  laggard->m_lag = 5100ms;  // found by the tick even when no event comes
  f.cache->tick();
  CHECK(laggard->closed());
  CHECK(laggard->m_aborted.load());
  CHECK(laggard->reason().find("too slow") != std::string::npos);
  CHECK(f.cache->metrics().terminated_watchers == 1);
  CHECK(f.cache->metrics().watchers == 1);
  f.put("b", "web");
  CHECK(fast->wait_for(2).size() == 2);
  CHECK(laggard->events().size() == 1);
}

TEST_CASE("a full watcher that also lags is aborted at once, not after the budget") {
  Fixture f;
  auto laggard = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), laggard));
  laggard->m_full = true;
  laggard->m_lag = 6s;
  f.wait_revision(f.put("a", "web"));  // the clock stands still: the budget never runs out
  for (int i = 0; i < 500 && !laggard->closed(); ++i) std::this_thread::sleep_for(10ms);
  CHECK(laggard->closed());
  CHECK(laggard->m_aborted.load());
  CHECK(laggard->events().empty());
  CHECK(f.cache->metrics().terminated_watchers == 1);
}

TEST_CASE("a watcher full for less than the budget gets every held-back event, in order") {
  Fixture f;
  auto slow = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), slow));
  slow->m_full = true;
  const auto last = [&] {
    cache::Revision r = 0;
    for (int i = 0; i < 5; ++i) r = f.put("p" + std::to_string(i), "web");
    return r;
  }();
  f.wait_revision(last);
  f.clock_ms += 50;
  f.cache->tick();
  CHECK(slow->events().empty());
  slow->m_full = false;
  f.cache->tick();
  const auto got = slow->events();
  REQUIRE(got.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(got[static_cast<std::size_t>(i)].name == "p" + std::to_string(i));
  CHECK_FALSE(slow->closed());
  CHECK(f.cache->metrics().terminated_watchers == 0);
}

// A sink that, like HTTP/1.1 direct writing, keeps what it took until flush(): at most two
// unflushed events, then it is full until the next flush.
class HoldingSink : public RecordingSink {
 public:
  bool try_send(const cache::EventPtr& event) override {
    if (m_full || m_unflushed >= 2) return false;
    ++m_unflushed;
    send(event);
    return true;
  }
  bool writable() const override { return !m_full && m_unflushed < 2; }
  void flush() override { m_unflushed = 0; }

 private:
  std::atomic<int> m_unflushed{0};
};

TEST_CASE("a blocked watcher that takes part of its held-back events gets them flushed, so it drains") {
  Fixture f;
  auto slow = std::make_shared<HoldingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), slow));
  slow->m_full = true;
  cache::Revision last = 0;
  for (int i = 0; i < 5; ++i) last = f.put("p" + std::to_string(i), "web");
  f.wait_revision(last);
  slow->m_full = false;
  // Each retry sends what the sink takes and flushes it, which makes room for the next.
  for (int i = 0; i < 5; ++i) f.cache->tick();
  const auto got = slow->events();
  REQUIRE(got.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(got[static_cast<std::size_t>(i)].name == "p" + std::to_string(i));
  f.clock_ms += 150;
  f.cache->tick();
  CHECK_FALSE(slow->closed());
  CHECK(f.cache->metrics().terminated_watchers == 0);
}

TEST_CASE("dispatch never waits for a full watcher: others and reads go on at once") {
  Fixture f;
  auto slow = std::make_shared<RecordingSink>();
  auto fast = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), slow));
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), fast));
  slow->m_full = true;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) f.put("n" + std::to_string(i), "web");
  CHECK(fast->wait_for(10).size() == 10);
  const auto listed = f.cache->list(cache::WatchFilter{}, false);
  REQUIRE(listed);
  CHECK(listed->items.size() == 10);
  // The clock stands still, so the budget never ran out: nothing waited on the slow watcher.
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  CHECK_FALSE(slow->closed());
  CHECK(f.cache->metrics().terminated_watchers == 0);
}

TEST_CASE("a watcher holding back more than max_held_events is closed at once") {
  Fixture f;
  auto slow = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), slow));
  slow->m_full = true;
  cache::Revision last = 0;
  for (int i = 0; i < 1002; ++i) last = f.put("m" + std::to_string(i), "web");
  f.wait_revision(last);
  for (int i = 0; i < 500 && !slow->closed(); ++i) std::this_thread::sleep_for(10ms);
  CHECK(slow->closed());
  CHECK(f.cache->metrics().terminated_watchers == 1);
}

TEST_CASE("a consistent list catches up with the store's revision, even through unrelated writes") {
  Fixture f;
  f.put("a", "web");
  REQUIRE(f.backend->create("/registry/configmaps/ns/x", "{}"));  // outside the cache's prefix
  auto current = f.backend->current_revision();
  REQUIRE(current);
  auto listed = f.cache->list({}, true);
  REQUIRE(listed);
  CHECK(listed->revision >= *current);
  REQUIRE(listed->items.size() == 1);
  CHECK(listed->items[0]->name == "a");
}

TEST_CASE("an indexed field narrows lists and dispatch to the matching objects and watchers") {
  Fixture f(100, "spec.nodeName");  // the fixture indexes each pod's app label as its node
  f.put("a", "n1");
  f.put("b", "n2");
  f.wait_revision(2);
  cache::WatchFilter on_n1;
  on_n1.index_value = "n1";
  on_n1.matches = [](const cache::StoredObject& o) { return o.fields.at("spec.nodeName") == "n1"; };
  auto listed = f.cache->list(on_n1, false);
  REQUIRE(listed);
  REQUIRE(listed->items.size() == 1);
  CHECK(listed->items[0]->name == "a");

  auto n1 = std::make_shared<RecordingSink>();
  auto all = std::make_shared<RecordingSink>();
  auto request = f.request(cache::StartMode::exact, 2);
  request.filter = on_n1;
  REQUIRE(f.cache->watch(request, n1));
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, 2), all));
  f.put("b", "n2");                       // stays on n2: not for the n1 watcher
  f.put("c", "n1");                       // new on n1
  const auto moved = f.put("a", "n2");    // leaves n1: DELETED for the n1 watcher
  CHECK(all->wait_for(3).size() == 3);
  auto got = n1->wait_for(2);
  REQUIRE(got.size() == 2);
  CHECK(got[0].type == "ADDED");
  CHECK(got[0].name == "c");
  CHECK(got[1].type == "DELETED");
  CHECK(got[1].name == "a");
  CHECK(got[1].revision == moved);
  auto after = f.cache->list(on_n1, false);
  REQUIRE(after);
  REQUIRE(after->items.size() == 1);
  CHECK(after->items[0]->name == "c");
}

TEST_CASE("a watcher of one object by name is offered only that object's events") {
  Fixture f(100);
  f.put("a", "x");
  f.put("b", "x");
  f.wait_revision(2);
  auto offered = std::make_shared<std::atomic<int>>(0);
  auto request = f.request(cache::StartMode::exact, 2);
  request.filter.name = "a";
  request.filter.matches = [offered](const cache::StoredObject&) {
    ++*offered;
    return true;
  };
  auto on_a = std::make_shared<RecordingSink>();
  auto all = std::make_shared<RecordingSink>();
  const auto id = f.cache->watch(request, on_a);
  REQUIRE(id);
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, 2), all));
  for (int i = 0; i < 5; ++i) f.put("b", "y" + std::to_string(i));
  f.put("a", "y");
  CHECK(all->wait_for(6).size() == 6);
  auto got = on_a->wait_for(1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].type == "MODIFIED");
  CHECK(got[0].name == "a");
  CHECK(offered->load() == 2);  // the new and the previous state of "a"
  // Dispatch looked at the named watcher for its own object only: 6 events for `all`, 1 for it.
  CHECK(f.cache->metrics().dispatch_candidates == 7);
  f.cache->stop_watch(*id);
  f.put("a", "z");
  CHECK(all->wait_for(7).size() == 7);
  CHECK(on_a->events().size() == 1);
}

TEST_CASE("an object offered by its writer stands in for decoding its event, and only for that event") {
  Fixture f(100);
  f.put("a", "x");
  f.put("b", "x");
  f.wait_revision(2);
  auto sink = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, 2), sink));
  auto offered = [](const std::string& name, cache::Revision revision, const std::string& shown) {
    auto o = std::make_shared<cache::StoredObject>();
    o->key = "/registry/pods/ns/" + name;
    o->name = shown;  // what the watcher is told, to see which object it got
    o->namespace_ = "ns";
    o->revision = revision;
    o->set_object({{"metadata", {{"name", name}, {"namespace", "ns"}, {"resourceVersion", std::to_string(revision)}}}});
    return o;
  };
  f.cache->offer(offered("a", 3, "a-offered"));  // the next write's revision
  CHECK(f.put("a", "y") == 3);
  f.cache->offer(offered("a", 2, "a-stale"));  // its event is long applied: dropped
  f.cache->offer(offered("b", 9, "b-later"));  // a later write's: not this event's
  CHECK(f.put("a", "z") == 4);
  CHECK(f.put("b", "y") == 5);
  auto got = sink->wait_for(3);
  REQUIRE(got.size() == 3);
  CHECK(got[0].name == "a-offered");
  CHECK(got[1].name == "a");
  CHECK(got[2].name == "b");
}

TEST_CASE("a consistent watch's initial state holds a write acknowledged just before it") {
  Fixture f;
  for (int i = 0; i < 50; ++i) {
    const std::string name = "fresh" + std::to_string(i);
    f.put(name, "web");
    auto sink = std::make_shared<RecordingSink>();
    auto request = f.request(cache::StartMode::current_state);
    request.consistent = true;
    request.filter.name = name;
    REQUIRE(f.cache->watch(request, sink));
    auto got = sink->events();
    REQUIRE(got.size() == 1);
    CHECK(got[0].type == "ADDED");
    CHECK(got[0].name == name);
  }
}

TEST_CASE("a consistent changes-only watch never streams a write acknowledged just before it") {
  // sendInitialEvents=false without a resourceVersion: the watch starts after the store's
  // current revision, so a write made before it is neither initial state nor a change.
  Fixture f;
  for (int i = 0; i < 50; ++i) {
    const std::string before = "before" + std::to_string(i);
    const std::string after = "after" + std::to_string(i);
    // A revision from before the write stands in for a cache that has not seen it yet:
    // consistent, the watch must not start from it.
    const auto stale = f.cache->revision();
    f.put(before, "web");
    auto sink = std::make_shared<RecordingSink>();
    auto request = f.request(cache::StartMode::exact, stale);
    request.consistent = true;
    request.filter = app_filter("web");
    REQUIRE(f.cache->watch(request, sink));
    f.put(after, "web");
    auto got = sink->wait_for(1);
    REQUIRE(got.size() == 1);
    CHECK(got[0].type == "ADDED");
    CHECK(got[0].name == after);
    f.remove(before);
    f.wait_revision(f.remove(after));
  }
}

TEST_CASE("a round split over dispatch threads keeps every watcher's events whole and in order") {
  Fixture f(100, "", 1);
  std::vector<std::shared_ptr<RecordingSink>> all, web, slow;
  for (int i = 0; i < 192; ++i) {  // runs of 64 share a thread: all three get watchers
    auto sink = std::make_shared<RecordingSink>();
    auto request = f.request(cache::StartMode::current_state);
    if (i % 3 == 1) request.filter = app_filter("web");
    REQUIRE(f.cache->watch(request, sink));
    (i % 3 == 0 ? all : i % 3 == 1 ? web : slow).push_back(sink);
    if (i % 3 == 2) sink->m_full = true;
  }
  for (int i = 0; i < 20; ++i) f.put("p" + std::to_string(i), "web");
  f.put("p0", "db");   // leaves the selector
  const auto last = f.remove("p1");
  f.wait_revision(last);
  auto names = [](const std::vector<Received>& got) {
    std::string out;
    for (const auto& e : got) out += e.type.substr(0, 1) + e.name + " ";
    return out;
  };
  std::string added;
  for (int i = 0; i < 20; ++i) added += "Ap" + std::to_string(i) + " ";
  for (const auto& sink : all) {
    const auto got = sink->wait_for(22);
    CHECK(names(got) == added + "Mp0 Dp1 ");
    CHECK(std::is_sorted(got.begin(), got.end(), [](auto& a, auto& b) { return a.revision < b.revision; }));
  }
  for (const auto& sink : web) CHECK(names(sink->wait_for(22)) == added + "Dp0 Dp1 ");
  // The full ones were held back (and counted as blocked) by whichever thread served them.
  f.cache->tick();
  for (const auto& sink : slow) CHECK_FALSE(sink->closed());
  f.clock_ms += 150;
  f.cache->tick();
  for (const auto& sink : slow) CHECK(sink->closed());
  CHECK(f.cache->metrics().terminated_watchers == 64);
  CHECK(f.cache->metrics().watchers == 128);
}

TEST_CASE("watchers joining and leaving between rounds: each round reaches exactly the live ones") {
  Fixture f;
  f.put("a", "web");
  f.wait_revision(1);
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<cache::WatcherId> ids;
  for (int i = 0; i < 4; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    auto id = f.cache->watch(f.request(cache::StartMode::exact, 1), sinks.back());
    REQUIRE(id);
    ids.push_back(*id);
  }
  f.wait_revision(f.put("b", "web"));  // round 1: all four
  f.cache->stop_watch(ids[1]);
  auto late = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, 2), late));
  f.wait_revision(f.put("c", "web"));  // round 2: 0, 2, 3 and the late one
  f.cache->stop_watch(ids[3]);
  const auto last = f.put("d", "web");  // round 3: 0, 2 and the late one
  f.wait_revision(last);
  auto names = [](const std::vector<Received>& got) {
    std::string out;
    for (const auto& r : got) out += r.name;
    return out;
  };
  CHECK(names(sinks[0]->wait_for(3)) == "bcd");
  CHECK(names(sinks[2]->wait_for(3)) == "bcd");
  CHECK(names(late->wait_for(2)) == "cd");
  std::this_thread::sleep_for(50ms);  // a stray delivery to a stopped watcher would show by now
  CHECK(names(sinks[1]->events()) == "b");
  CHECK(names(sinks[3]->events()) == "bc");
}

TEST_CASE("objects nobody wrote for a while are kept lean, and serve the same trees and events") {
  Fixture f(100, "", 1000, 64 * 1024 * 1024, true);
  const auto r1 = f.put("a", "web");
  f.put("b", "web");
  f.wait_revision(f.put("a", "db"));
  const auto fresh = *f.cache->get("/registry/pods/ns/a", false);
  CHECK(fresh->holds_tree());  // as decoded for its event
  const nlohmann::json tree = fresh->object();

  f.clock_ms += 6000;  // past lean_after
  f.cache->tick();
  const auto lean = *f.cache->get("/registry/pods/ns/a", false);
  CHECK(lean != fresh);
  CHECK_FALSE(lean->holds_tree());
  CHECK(lean->revision == fresh->revision);
  CHECK(lean->labels == fresh->labels);
  std::string listed;
  lean->append_json(listed);  // a LIST's way: the JSON without keeping a tree
  CHECK(nlohmann::json::parse(listed) == tree);
  CHECK_FALSE(lean->holds_tree());
  CHECK(lean->object() == tree);  // rebuilt, then kept by this copy
  CHECK(lean->holds_tree());
  CHECK(f.rebuilt.load() == 2);

  // The window's events are lean too; a replay makes them again, in order.
  auto sink = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::exact, r1), sink));
  auto got = sink->events();
  REQUIRE(got.size() == 2);
  CHECK(got[0].name == "b");
  CHECK(got[1].type == "MODIFIED");
  CHECK(got[1].name == "a");

  // A tree a read made again goes on the store's second sweep after it (not written since).
  f.cache->tick();
  f.cache->tick();
  const auto swept = *f.cache->get("/registry/pods/ns/a", false);
  CHECK(swept != lean);
  CHECK_FALSE(swept->holds_tree());
  CHECK(swept->object() == tree);
}

TEST_CASE("a deletion of a lean object carries its last state at the deletion's revision") {
  Fixture f(100, "", 1000, 64 * 1024 * 1024, true);
  f.wait_revision(f.put("a", "web"));
  f.clock_ms += 6000;
  f.cache->tick();
  REQUIRE_FALSE((*f.cache->get("/registry/pods/ns/a", false))->holds_tree());
  auto sink = std::make_shared<RecordingSink>();
  REQUIRE(f.cache->watch(f.request(cache::StartMode::current_state), sink));
  const auto removed = f.remove("a");
  auto got = sink->wait_for(2);
  REQUIRE(got.size() == 2);
  CHECK(got[1].type == "DELETED");
  CHECK(got[1].revision == removed);
}
