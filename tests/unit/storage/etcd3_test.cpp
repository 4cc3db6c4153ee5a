#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "server/storage/etcd3/etcd3_backend.hpp"
#include "support/etcd_process.hpp"
#include "unit/storage/conformance.hpp"

namespace {

using namespace kw::storage;
using kw::storage::testing::BackendUnderTest;
using kw::storage::testing::WatchRecorder;
using kw::testing::EtcdCluster;

std::unique_ptr<Backend> connect(const std::vector<std::string>& endpoints,
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
  Etcd3Options options;
  options.endpoints = endpoints;
  options.request_timeout = timeout;
  auto backend = open_etcd3_backend(options);
  REQUIRE_MESSAGE(backend.has_value(), (backend ? "" : backend.error().message));
  return std::move(*backend);
}

BackendUnderTest make_etcd3() {
  auto etcd = std::make_shared<EtcdCluster>(1);
  auto backend = connect(etcd->client_urls());
  return BackendUnderTest{etcd, std::move(backend)};
}

template <class Fn>
double seconds_taken(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

KW_BACKEND_CONFORMANCE("etcd3", make_etcd3)

TEST_CASE("etcd3: an unreachable etcd fails fast with unavailable or timeout") {
  auto backend =
      connect({"http://127.0.0.1:" + std::to_string(kw::testing::free_port())}, std::chrono::milliseconds(1000));
  Result<KeyValue> got;
  const double took = seconds_taken([&] { got = backend->get("/registry/x"); });
  REQUIRE_FALSE(got.has_value());
  CHECK((got.error().code == ErrorCode::unavailable || got.error().code == ErrorCode::timeout));
  CHECK(took < 2.0);
  CHECK_FALSE(backend->health().has_value());
}

TEST_CASE("etcd3: empty endpoint list is refused") {
  auto backend = open_etcd3_backend(Etcd3Options{});
  REQUIRE_FALSE(backend.has_value());
  CHECK(backend.error().code == ErrorCode::invalid);
}

TEST_CASE("etcd3: a three member cluster survives a member loss, fails fast without quorum, and watches resume") {
  EtcdCluster cluster(3);
  auto backend = connect(cluster.client_urls(), std::chrono::milliseconds(1500));
  REQUIRE(backend->health().has_value());
  const Revision start = *backend->current_revision();

  WatchRecorder recorder;
  auto handle = backend->watch("/registry/ha/", start, recorder.callbacks());
  REQUIRE(handle.has_value());
  int written = 0;
  // During a leader election a write may time out and still be applied: retry, and count
  // `exists` after a failed attempt as the earlier attempt having landed.
  auto write_some = [&](int n) {
    for (int i = 0; i < n; ++i, ++written) {
      const std::string key = "/registry/ha/" + std::to_string(written);
      bool done = false;
      for (int attempt = 0; attempt < 20 && !done; ++attempt) {
        auto created = backend->create(key, "v");
        done = created.has_value() || (attempt > 0 && created.error().code == ErrorCode::exists);
      }
      REQUIRE_MESSAGE(done, "could not write " << key);
    }
  };
  write_some(5);
  REQUIRE(recorder.wait_events(5));

  // The first endpoint (the one in use) dies: writes move to the others, the watch resumes.
  cluster.kill(0);
  write_some(5);
  REQUIRE(recorder.wait_events(10));

  // Without quorum every call fails within its deadline.
  cluster.kill(1);
  Result<WriteResult> refused;
  const double took = seconds_taken([&] { refused = backend->create("/registry/ha/refused", "v"); });
  REQUIRE_FALSE(refused.has_value());
  CHECK((refused.error().code == ErrorCode::unavailable || refused.error().code == ErrorCode::timeout));
  CHECK(took < 3.0);
  CHECK_FALSE(backend->health().has_value());

  // Members come back: writes succeed again and the watch has every event exactly once.
  cluster.restart(0);
  cluster.restart(1);
  REQUIRE(cluster.wait_healthy());
  write_some(5);
  // The refused create may still have been committed once quorum came back (a timeout is
  // indeterminate), so it may show up in the stream; everything else shows up exactly once.
  REQUIRE(recorder.wait_events(static_cast<std::size_t>(written), std::chrono::seconds(15)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto events = recorder.events();
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kv.key != "/registry/ha/refused") keys.push_back(events[i].kv.key);
    if (i > 0) CHECK(events[i].kv.mod_revision == events[i - 1].kv.mod_revision + 1);
  }
  REQUIRE(keys.size() == static_cast<std::size_t>(written));
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(keys[i] == "/registry/ha/" + std::to_string(i));
  CHECK_FALSE(recorder.error().has_value());
}

TEST_CASE("etcd3: progress notifications arrive on request") {
  EtcdCluster etcd(1);
  auto backend = connect(etcd.client_urls());
  const Revision r = backend->create("/registry/p/a", "v")->revision;
  WatchRecorder recorder;
  auto handle = backend->watch("/registry/p/", r, recorder.callbacks());
  REQUIRE(handle.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  (*handle)->request_progress();
  REQUIRE(recorder.wait_progress(std::chrono::seconds(5)));
  CHECK(recorder.progress().back() >= r);
}

// Regression: with one endpoint, fail-fast calls never polled the channel's reconnect attempts,
// so a restarted etcd stayed "unreachable" for minutes and the watch gave up.
TEST_CASE("etcd3: a single etcd killed and restarted on its ports is reached again, and the watch resumes") {
  EtcdCluster etcd(1);
  auto backend = connect(etcd.client_urls(), std::chrono::milliseconds(1000));
  const Revision start = *backend->current_revision();
  WatchRecorder recorder;
  auto handle = backend->watch("/registry/restart/", start, recorder.callbacks());
  REQUIRE(handle.has_value());
  // Creates the key, retrying until `bound`; `exists` after a failed attempt means it landed.
  auto create_within = [&](const std::string& key, std::chrono::milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    Result<WriteResult> created;
    for (bool failed_before = false;; failed_before = true) {
      created = backend->create(key, "v");
      if (created || (failed_before && created.error().code == ErrorCode::exists)) return true;
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    MESSAGE("last error writing " << key << ": " << created.error().message);
    return false;
  };
  for (int i = 0; i < 3; ++i)
    REQUIRE(create_within("/registry/restart/before" + std::to_string(i), std::chrono::seconds(2)));
  REQUIRE(recorder.wait_events(3));

  etcd.kill(0);
  // Calls while etcd is down fail within their deadline (and leave the channel backing off).
  for (int i = 0; i < 5; ++i) {
    Result<WriteResult> refused;
    const double took = seconds_taken([&] { refused = backend->create("/registry/restart/refused", "v"); });
    REQUIRE_FALSE(refused.has_value());
    CHECK((refused.error().code == ErrorCode::unavailable || refused.error().code == ErrorCode::timeout));
    CHECK(took < 2.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  etcd.restart(0);
  REQUIRE(etcd.wait_healthy());

  // Back within a bound, not after minutes of failing reconnects.
  bool back = false;
  const double took = seconds_taken([&] { back = create_within("/registry/restart/after0", std::chrono::seconds(5)); });
  REQUIRE(back);
  CHECK(took < 5.0);
  for (int i = 1; i < 3; ++i)
    REQUIRE(create_within("/registry/restart/after" + std::to_string(i), std::chrono::seconds(2)));

  // The watch opened before the kill has every event exactly once, in revision order.
  REQUIRE(recorder.wait_events(6, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto events = recorder.events();
  REQUIRE(events.size() == 6);
  const std::vector<std::string> expected = {"before0", "before1", "before2", "after0", "after1", "after2"};
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(events[i].kv.key == "/registry/restart/" + expected[i]);
    CHECK(events[i].type == EventType::put);
    if (i > 0) CHECK(events[i].kv.mod_revision == events[i - 1].kv.mod_revision + 1);
  }
  CHECK(events.front().kv.mod_revision == start + 1);
  CHECK_FALSE(recorder.error().has_value());
}

namespace {

// A 127.0.0.1 port that never answers. With `drop_connects` its accept queue is full, so the
// kernel drops new SYNs (a host that silently drops packets); without, TCP connects complete
// in the backlog but nothing is ever read or sent (a hung server).
class Blackhole {
 public:
  explicit Blackhole(bool drop_connects) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(m_fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    REQUIRE(::listen(m_fd, drop_connects ? 0 : 64) == 0);
    socklen_t length = sizeof(address);
    REQUIRE(::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    m_port = ntohs(address.sin_port);
    // Fill the accept queue (backlog 0 holds one) so that later SYNs get no answer.
    for (int i = 0; drop_connects && i < 2; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      REQUIRE(fd >= 0);
      (void)::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
      m_fillers.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Blackhole(const Blackhole&) = delete;
  Blackhole& operator=(const Blackhole&) = delete;
  ~Blackhole() {
    for (int fd : m_fillers) ::close(fd);
    ::close(m_fd);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

 private:
  int m_fd = -1;
  int m_port = 0;
  std::vector<int> m_fillers;
};

void check_blackhole_first(bool drop_connects) {
  EtcdCluster etcd(1);
  Blackhole hole(drop_connects);
  const auto timeout = std::chrono::milliseconds(1500);
  auto backend = connect({hole.url(), etcd.client_url(0)}, timeout);

  // The first call finds the silent endpoint and moves on, within its one deadline.
  Result<WriteResult> created;
  const double first = seconds_taken([&] { created = backend->create("/registry/hole/0", "v"); });
  REQUIRE_MESSAGE(created.has_value(), (created ? "" : created.error().message));
  CHECK(first < 1.6);

  // Later calls go straight to the endpoint that answers.
  const double rest = seconds_taken([&] {
    for (int i = 1; i <= 20; ++i) REQUIRE(backend->create("/registry/hole/" + std::to_string(i), "v").has_value());
  });
  CHECK(rest < 2.0);
  CHECK(backend->health().has_value());

  // A watch also lands on the endpoint that answers.
  WatchRecorder recorder;
  auto handle = backend->watch("/registry/hole/", created->revision, recorder.callbacks());
  REQUIRE(handle.has_value());
  REQUIRE(recorder.wait_events(20, std::chrono::seconds(10)));
  CHECK(recorder.events().front().kv.key == "/registry/hole/1");

  // A fresh backend whose only endpoint is silent fails within its deadline.
  auto lonely = connect({hole.url()}, std::chrono::milliseconds(800));
  Result<KeyValue> got;
  const double took = seconds_taken([&] { got = lonely->get("/registry/hole/0"); });
  REQUIRE_FALSE(got.has_value());
  CHECK((got.error().code == ErrorCode::unavailable || got.error().code == ErrorCode::timeout));
  CHECK(took < 1.2);
}

}  // namespace

TEST_CASE("etcd3: an endpoint that accepts connections but never answers, listed first, is failed over") {
  check_blackhole_first(false);
}

TEST_CASE("etcd3: an endpoint that silently drops connection attempts, listed first, is failed over") {
  check_blackhole_first(true);
}
