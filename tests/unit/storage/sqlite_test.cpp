#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/temp_dir.hpp"
#include "unit/storage/conformance.hpp"

namespace {

using namespace kw::storage;
using kw::storage::testing::BackendUnderTest;
using kw::storage::testing::WatchRecorder;
using kw::testing::TempDir;

SqliteOptions fast_options(const std::string& dir) {
  SqliteOptions options{dir};
  options.expiry_interval = std::chrono::milliseconds(100);
  options.progress_interval = std::chrono::milliseconds(1000);
  return options;
}

std::unique_ptr<Backend> open_or_fail(const std::string& dir) {
  auto backend = open_sqlite_backend(fast_options(dir));
  REQUIRE_MESSAGE(backend.has_value(), (backend ? "" : backend.error().message));
  return std::move(*backend);
}

BackendUnderTest make_sqlite() {
  auto dir = std::make_shared<TempDir>("kw-sqlite");
  auto backend = open_or_fail(dir->path() + "/data");
  return BackendUnderTest{dir, std::move(backend)};
}

}  // namespace

KW_BACKEND_CONFORMANCE("sqlite", make_sqlite)

TEST_CASE("sqlite: a second opener of the data dir is refused with the holder's pid") {
  TempDir dir("kw-sqlite");
  auto first = open_or_fail(dir.path());
  auto second = open_sqlite_backend(SqliteOptions{dir.path()});
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error().code == ErrorCode::unavailable);
  const std::string expected =
      "data dir " + dir.path() + " is in use by another kw serve (pid " + std::to_string(::getpid()) + ")";
  CHECK_MESSAGE(second.error().message.find(expected) != std::string::npos, second.error().message);
  first.reset();
  CHECK(open_sqlite_backend(SqliteOptions{dir.path()}).has_value());
}

TEST_CASE("sqlite: data, revisions and compaction survive a reopen") {
  TempDir dir("kw-sqlite");
  Revision last = 0;
  {
    auto backend = open_or_fail(dir.path());
    Revision rev = backend->create("/k", "v0")->revision;
    for (int i = 1; i < 5; ++i) rev = backend->update("/k", "v" + std::to_string(i), rev)->revision;
    REQUIRE(backend->remove("/k").has_value());
    last = backend->create("/k2", "x")->revision;
    REQUIRE(backend->compact(last - 1).has_value());
  }
  auto backend = open_or_fail(dir.path());
  CHECK(*backend->current_revision() == last);
  CHECK(*backend->compacted_revision() == last - 1);
  CHECK(backend->get("/k2")->value == "x");
  CHECK(backend->get("/k").error().code == ErrorCode::not_found);
  CHECK(backend->get("/k", last - 3).error().code == ErrorCode::compacted);
  CHECK(backend->create("/k3", "y")->revision == last + 1);
}

TEST_CASE("sqlite: a TTL deadline survives a restart") {
  TempDir dir("kw-sqlite");
  Revision created = 0;
  {
    auto backend = open_or_fail(dir.path());
    created = backend->create("/ttl/a", "v", std::chrono::seconds(1))->revision;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto backend = open_or_fail(dir.path());
  WatchRecorder recorder;
  auto handle = backend->watch("/ttl/", created, recorder.callbacks());
  REQUIRE(handle.has_value());
  REQUIRE(recorder.wait_events(1, std::chrono::seconds(5)));
  CHECK(recorder.events()[0].type == EventType::del);
  CHECK(recorder.events()[0].kv.key == "/ttl/a");
  CHECK(backend->get("/ttl/a").error().code == ErrorCode::not_found);
}

TEST_CASE("sqlite: a callback may destroy its own watch handle") {
  TempDir dir("kw-sqlite");
  auto backend = open_or_fail(dir.path());
  std::unique_ptr<WatchHandle> handle;
  std::atomic<int> calls{0};
  WatchCallbacks callbacks;
  callbacks.on_events = [&](std::vector<Event>) {
    ++calls;
    handle.reset();
  };
  auto watch = backend->watch("/", 0, callbacks);
  REQUIRE(watch.has_value());
  handle = std::move(*watch);
  REQUIRE(backend->create("/a", "1").has_value());
  for (int i = 0; i < 100 && calls == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(backend->create("/b", "2").has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(calls == 1);
}

namespace {

// Runs the crash writer with `threads` writers, reads `acks` acknowledged revisions, kills it
// with SIGKILL mid-stream, reopens the store and checks every acknowledged write is there and
// the revisions 1..current have no holes.
void check_kill_9_keeps_acknowledged_writes(int threads, std::size_t acks) {
  TempDir dir("kw-sqlite");
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const std::string thread_count = std::to_string(threads);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(KW_CRASH_WRITER, KW_CRASH_WRITER, dir.path().c_str(), thread_count.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  FILE* ack_stream = ::fdopen(out[0], "r");
  REQUIRE(ack_stream != nullptr);
  std::vector<Revision> acknowledged;
  long revision = 0;
  while (acknowledged.size() < acks && std::fscanf(ack_stream, "%ld", &revision) == 1) acknowledged.push_back(revision);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::fclose(ack_stream);
  REQUIRE(acknowledged.size() == acks);
  CHECK(WIFSIGNALED(status));

  auto backend = open_or_fail(dir.path());
  const Revision current = *backend->current_revision();
  CHECK(current >= *std::max_element(acknowledged.begin(), acknowledged.end()));
  auto all = backend->list("/registry/crash/", ListOptions{});
  REQUIRE(all.has_value());
  std::vector<Revision> stored;
  for (const auto& kv : all->items) stored.push_back(kv.mod_revision);
  std::sort(stored.begin(), stored.end());
  REQUIRE(static_cast<Revision>(stored.size()) == current);
  for (std::size_t i = 0; i < stored.size(); ++i) CHECK(stored[i] == static_cast<Revision>(i + 1));
  for (Revision acked : acknowledged) CHECK(std::binary_search(stored.begin(), stored.end(), acked));
}

}  // namespace

TEST_CASE("sqlite: every acknowledged write survives kill -9 and revisions have no holes") {
  check_kill_9_keeps_acknowledged_writes(1, 300);
}

TEST_CASE("sqlite: with 16 writers group-committing, every acknowledged write survives kill -9 with no holes") {
  check_kill_9_keeps_acknowledged_writes(16, 3000);
}
