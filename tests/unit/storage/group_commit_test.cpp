// The embedded store's group commit: the queue (GroupCommitter) with a recording apply
// function, and one batch applied to a real SQLite file (apply_batch).
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "server/storage/sqlite/batch_apply.hpp"
#include "server/storage/sqlite/group_commit.hpp"
#include "server/storage/sqlite/schema.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace kw::storage;
using namespace kw::storage::sqlite;
using kw::testing::TempDir;

WriteRequest create_of(const std::string& key, const std::string& value = "v") {
  return WriteRequest{WriteKind::create, key, value, 0, std::nullopt};
}
WriteRequest update_of(const std::string& key, Revision expected, const std::string& value = "v2") {
  return WriteRequest{WriteKind::update, key, value, 0, expected};
}
WriteRequest remove_of(const std::string& key, std::optional<Revision> expected = std::nullopt) {
  return WriteRequest{WriteKind::remove, key, "", 0, expected};
}

// An apply function that numbers writes in the order it sees them and records each batch.
// While `hold` is set it blocks before applying, so a test can queue writes behind a batch.
class Recorder {
 public:
  GroupCommitter::ApplyFn apply() {
    return [this](std::span<PendingWrite*> batch) {
      std::unique_lock lock(m_mutex);
      ++m_entered;
      m_changed.notify_all();
      m_changed.wait(lock, [&] { return !m_hold; });
      std::vector<std::string> keys;
      for (PendingWrite* write : batch) {
        keys.push_back(write->request.key);
        write->result = WriteResult{++m_next};
      }
      m_batches.push_back(std::move(keys));
    };
  }
  void hold() {
    std::lock_guard lock(m_mutex);
    m_hold = true;
  }
  void release() {
    std::lock_guard lock(m_mutex);
    m_hold = false;
    m_changed.notify_all();
  }
  bool wait_entered(int n) {
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, std::chrono::seconds(10), [&] { return m_entered >= n; });
  }
  std::vector<std::vector<std::string>> batches() {
    std::lock_guard lock(m_mutex);
    return m_batches;
  }

 private:
  std::mutex m_mutex;  // guards everything below
  std::condition_variable m_changed;
  bool m_hold = false;
  int m_entered = 0;
  Revision m_next = 0;
  std::vector<std::vector<std::string>> m_batches;
};

}  // namespace

TEST_CASE("group commit: writes queued behind a running batch share the next one, in queue order") {
  Recorder recorder;
  GroupCommitter committer(recorder.apply());
  recorder.hold();
  std::thread first([&] {
    auto result = committer.submit(create_of("/first"));
    CHECK((result && result->revision == 1));
  });
  REQUIRE(recorder.wait_entered(1));
  std::vector<Result<WriteResult>> results;
  std::thread rest([&] {
    results = committer.submit_all({create_of("/a"), create_of("/b"), create_of("/c"), create_of("/d")});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the four queue behind /first
  recorder.release();
  first.join();
  rest.join();
  const auto batches = recorder.batches();
  REQUIRE(batches.size() == 2);
  CHECK(batches[0] == std::vector<std::string>{"/first"});
  CHECK(batches[1] == std::vector<std::string>{"/a", "/b", "/c", "/d"});
  REQUIRE(results.size() == 4);
  for (std::size_t i = 0; i < results.size(); ++i) CHECK(results[i]->revision == static_cast<Revision>(i + 2));
}

TEST_CASE("group commit: a batch holds at most max_writes writes") {
  Recorder recorder;
  GroupCommitLimits limits;
  limits.max_writes = 4;
  GroupCommitter committer(recorder.apply(), limits);
  std::vector<WriteRequest> requests;
  for (int i = 0; i < 10; ++i) requests.push_back(create_of("/k" + std::to_string(i)));
  const auto results = committer.submit_all(std::move(requests));
  REQUIRE(results.size() == 10);
  const auto batches = recorder.batches();
  REQUIRE(batches.size() == 3);
  CHECK(batches[0].size() == 4);
  CHECK(batches[1].size() == 4);
  CHECK(batches[2].size() == 2);
  CHECK(batches[0].front() == "/k0");
  CHECK(batches[2].back() == "/k9");
}

TEST_CASE("group commit: many concurrent writers each get their own result, in fewer batches than writes") {
  Recorder recorder;
  GroupCommitter committer(recorder.apply());
  constexpr int k_threads = 32;
  constexpr int k_writes = 40;
  std::mutex mutex;
  std::set<Revision> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_writes; ++i) {
        auto result = committer.submit(create_of("/t" + std::to_string(t) + "/" + std::to_string(i)));
        CHECK(result.has_value());
        if (!result) continue;
        std::lock_guard lock(mutex);
        CHECK(seen.insert(result->revision).second);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  REQUIRE(seen.size() == k_threads * k_writes);
  CHECK(*seen.begin() == 1);
  CHECK(*seen.rbegin() == k_threads * k_writes);
  CHECK(committer.batches() < static_cast<std::uint64_t>(k_threads * k_writes));
}

TEST_CASE("group commit: a write its apply function left without a result fails as unavailable") {
  GroupCommitter committer([](std::span<PendingWrite*>) {});
  auto result = committer.submit(create_of("/k"));
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ErrorCode::unavailable);
  CHECK(result.error().key == "/k");
}

namespace {

struct Store {
  TempDir dir{"kw-batch"};
  std::unique_ptr<Database> db;
  Revision revision = 0;

  Store() {
    auto opened = Database::open(dir.path() + "/kw.db", std::chrono::milliseconds(1000));
    REQUIRE(opened.has_value());
    db = std::move(*opened);
    REQUIRE(db->exec(sql::k_schema).has_value());
  }

  // Applies the requests as one batch; returns every write's result.
  std::vector<Result<WriteResult>> apply(std::vector<WriteRequest> requests, std::vector<Event>* events = nullptr) {
    std::vector<PendingWrite> writes;
    for (auto& request : requests) writes.push_back(PendingWrite{std::move(request), std::nullopt});
    std::vector<PendingWrite*> batch;
    for (auto& write : writes) batch.push_back(&write);
    AppliedBatch applied = apply_batch(*db, revision, batch);
    revision = applied.revision;
    if (events != nullptr) *events = std::move(applied.events);
    std::vector<Result<WriteResult>> results;
    for (auto& write : writes) {
      REQUIRE(write.result.has_value());
      results.push_back(std::move(*write.result));
    }
    return results;
  }

  std::int64_t rows() {
    auto stmt = db->prepare("SELECT COUNT(*) FROM kv");
    REQUIRE(stmt.has_value());
    REQUIRE(stmt->step() == SQLITE_ROW);
    return stmt->int_at(0);
  }
};

ErrorCode code_of(const Result<WriteResult>& result) {
  REQUIRE_FALSE(result.has_value());
  return result.error().code;
}

}  // namespace

TEST_CASE("batch apply: writes see the earlier ones of their batch, and refused ones take no revision") {
  Store store;
  REQUIRE(store.apply({create_of("/b", "b1")})[0].has_value());  // revision 1, committed before
  std::vector<Event> events;
  const auto results = store.apply(
      {
          create_of("/a", "a1"),     // 2
          create_of("/a", "again"),  // exists: /a was created just before, in this batch
          update_of("/a", 2, "a2"),  // 3: sees the create above
          update_of("/a", 2, "a3"),  // conflict: /a is at 3 now
          remove_of("/missing"),     // not found
          update_of("/b", 7, "b2"),  // conflict
          remove_of("/b", 1),        // 4
          create_of("/b", "b3"),     // 5: a deleted key can be created again
          remove_of("/a"),           // 6
          update_of("/a", 6, "a4"),  // not found: deleted above
      },
      &events);
  REQUIRE(results.size() == 10);
  CHECK(results[0]->revision == 2);
  CHECK(code_of(results[1]) == ErrorCode::exists);
  CHECK(results[2]->revision == 3);
  CHECK(code_of(results[3]) == ErrorCode::conflict);
  CHECK(results[3].error().revision == 3);
  CHECK(code_of(results[4]) == ErrorCode::not_found);
  CHECK(code_of(results[5]) == ErrorCode::conflict);
  CHECK(results[6]->revision == 4);
  CHECK(results[7]->revision == 5);
  CHECK(results[8]->revision == 6);
  CHECK(code_of(results[9]) == ErrorCode::not_found);
  CHECK(store.revision == 6);
  CHECK(store.rows() == 6);

  // One event per committed write, in revision order.
  REQUIRE(events.size() == 5);
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i].kv.mod_revision == static_cast<Revision>(i + 2));
  CHECK(events[0].type == EventType::put);
  CHECK(events[1].kv.value == "a2");
  CHECK(events[1].kv.create_revision == 2);
  CHECK(events[2].type == EventType::del);
  CHECK(events[2].kv.key == "/b");
  CHECK(events[3].kv.create_revision == 5);
  CHECK(events[4].type == EventType::del);
}

TEST_CASE("batch apply: a batch whose writes are all refused commits nothing") {
  Store store;
  REQUIRE(store.apply({create_of("/a")})[0].has_value());
  std::vector<Event> events;
  const auto results = store.apply({create_of("/a"), update_of("/a", 9), remove_of("/none")}, &events);
  CHECK(code_of(results[0]) == ErrorCode::exists);
  CHECK(code_of(results[1]) == ErrorCode::conflict);
  CHECK(code_of(results[2]) == ErrorCode::not_found);
  CHECK(events.empty());
  CHECK(store.revision == 1);
  CHECK(store.rows() == 1);
  CHECK(store.apply({create_of("/c")})[0]->revision == 2);
}

TEST_CASE("batch apply: when the transaction cannot start, every write fails and nothing moves") {
  Store store;
  // Another connection holds the write lock past the busy timeout.
  auto other = Database::open(store.dir.path() + "/kw.db", std::chrono::milliseconds(100));
  REQUIRE(other.has_value());
  REQUIRE((*other)->exec("BEGIN IMMEDIATE").has_value());
  auto blocked = Database::open(store.dir.path() + "/kw.db", std::chrono::milliseconds(50));
  REQUIRE(blocked.has_value());
  store.db = std::move(*blocked);
  const auto results = store.apply({create_of("/a"), create_of("/b")});
  CHECK(code_of(results[0]) == ErrorCode::timeout);
  CHECK(results[0].error().key == "/a");
  CHECK(code_of(results[1]) == ErrorCode::timeout);
  CHECK(results[1].error().key == "/b");
  CHECK(store.revision == 0);
  REQUIRE((*other)->exec("ROLLBACK").has_value());
  CHECK(store.apply({create_of("/a")})[0]->revision == 1);
}
