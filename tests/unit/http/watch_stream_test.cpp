// A watch stream's lag: how long the oldest live event it handed to the transport has waited
// there, read from the transport's queued bytes.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "server/http/watch_stream.hpp"

namespace {

using namespace std::chrono_literals;

// A transport stream whose queue the test drains by hand.
class QueueStream : public kw::net::ResponseStream {
 public:
  void add_header(kw::net::Header) override {}
  void begin(kw::net::ResponseHead) override {}
  bool write(std::shared_ptr<const std::string> bytes) override {
    queued += bytes->size();
    last = *bytes;
    return true;
  }
  void flush() override {}
  void finish() override { finished = true; }
  void abort() override { aborted = true; }
  std::size_t queued_bytes() const override { return queued.load(); }
  bool closed() const override { return finished || aborted; }
  void on_close(std::function<void()>) override {}
  void on_sent(std::function<void(std::size_t)>) override {}
  void on_receive(std::function<bool(std::string_view)>) override {}
  void resume_receive() override {}
  kw::net::Protocol protocol() const override { return kw::net::Protocol::http1; }

  std::atomic<std::size_t> queued{0};
  std::atomic<bool> finished{false};
  std::atomic<bool> aborted{false};
  std::string last;  // the last bytes written
};

kw::cache::EventPtr config_map_event(const std::string& name) {
  auto object = std::make_shared<kw::cache::StoredObject>();
  object->name = name;
  object->set_object({{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}});
  return std::make_shared<kw::cache::WatchEvent>(kw::cache::EventType::added, object, 1);
}

struct Fixture {
  std::shared_ptr<QueueStream> transport = std::make_shared<QueueStream>();
  kw::api::ResourceInfo info;
  kw::http::WatchStream stream{transport, info, kw::http::Negotiated{}, 1 << 20};
};

}  // namespace

TEST_CASE("watch stream lag: zero while nothing waits, the oldest waiting event's age otherwise") {
  Fixture f;
  CHECK(f.stream.lag() == std::chrono::steady_clock::duration::zero());
  REQUIRE(f.stream.try_send(config_map_event("a")));
  const std::size_t first = f.transport->queued.load();
  std::this_thread::sleep_for(150ms);  // past the 100 ms a mark spans
  REQUIRE(f.stream.try_send(config_map_event("b")));
  CHECK(f.stream.lag() >= 150ms);
  // The transport passes the first event on: the second one's age is the lag now.
  f.transport->queued -= first;
  CHECK(f.stream.lag() < 150ms);
  f.transport->queued = 0;
  CHECK(f.stream.lag() == std::chrono::steady_clock::duration::zero());
}

TEST_CASE("watch stream lag: the initial events never count, and live ones wait only from when they are out") {
  Fixture f;
  f.stream.send(config_map_event("initial"));
  const std::size_t initial = f.transport->queued.load();
  std::this_thread::sleep_for(30ms);
  REQUIRE(f.stream.try_send(config_map_event("live")));
  CHECK(f.stream.lag() == std::chrono::steady_clock::duration::zero());  // the initial event still waits
  f.transport->queued -= initial;                                        // the initial event is out
  CHECK(f.stream.lag() < 30ms);  // not counted from when the live event was queued behind it
  std::this_thread::sleep_for(30ms);
  CHECK(f.stream.lag() >= 30ms);
}

TEST_CASE("watch stream abort drops the stream's queue through the transport") {
  Fixture f;
  REQUIRE(f.stream.try_send(config_map_event("a")));
  f.stream.abort("watcher too slow");
  CHECK(f.transport->aborted.load());
  CHECK_FALSE(f.transport->finished.load());
  CHECK(f.stream.closed());
}

TEST_CASE("watch stream: a lean object's event is encoded without the object keeping a tree") {
  auto rebuilt = std::make_shared<std::atomic<int>>(0);
  auto source = std::make_shared<kw::cache::TreeSource>();
  source->api_version = "v1";
  source->kind = "ConfigMap";
  source->decode = [rebuilt](std::string_view text) -> kw::Result<nlohmann::json> {
    ++*rebuilt;
    return nlohmann::json::parse(text);  // the test's "protobuf" is the object's JSON
  };
  const nlohmann::json tree = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "lean"}}}};
  auto lean = std::make_shared<kw::cache::StoredObject>();
  lean->name = "lean";
  lean->protobuf = tree.dump();
  lean->source = source;
  const auto event = std::make_shared<kw::cache::WatchEvent>(kw::cache::EventType::added, lean, 1);

  Fixture json_watch;  // JSON: the object's JSON made for the event, not kept
  REQUIRE(json_watch.stream.try_send(event));
  CHECK(nlohmann::json::parse(json_watch.transport->last)["object"] == tree);
  CHECK(rebuilt->load() == 1);
  CHECK_FALSE(lean->holds_tree());

  auto protobuf_transport = std::make_shared<QueueStream>();
  kw::http::Negotiated protobuf;
  protobuf.format = kw::http::Format::protobuf;
  kw::http::WatchStream protobuf_watch{protobuf_transport, kw::api::ResourceInfo{}, protobuf, 1 << 20};
  REQUIRE(protobuf_watch.try_send(event));  // protobuf: the stored bytes, no tree at all
  CHECK(protobuf_transport->last.find(tree.dump()) != std::string::npos);
  CHECK(rebuilt->load() == 1);
  CHECK_FALSE(lean->holds_tree());
}
