#include <doctest/doctest.h>

#include <random>

#include "core/codec/frame.hpp"

using namespace kw::codec;

namespace {

struct Decoded {
  std::vector<std::string> frames;
  std::optional<std::string> error;
};

// Feeds `input` in chunks of `chunk` bytes (0: all at once), then finishes.
Decoded decode(FrameDecoder& d, std::string_view input, std::size_t chunk) {
  Decoded out;
  auto drain = [&] {
    while (auto f = d.next()) out.frames.push_back(std::move(*f));
  };
  std::size_t step = chunk == 0 ? std::max<std::size_t>(input.size(), 1) : chunk;
  for (std::size_t i = 0; i < input.size(); i += step) {
    auto ok = d.feed(input.substr(i, step));
    drain();
    if (!ok) {
      out.error = ok.error().message;
      return out;
    }
  }
  auto ok = d.finish();
  drain();
  if (!ok) out.error = ok.error().message;
  return out;
}

using Factory = std::unique_ptr<FrameDecoder> (*)(std::size_t);

// Every split of the input gives the same frames as feeding it whole.
void check_all_splits(Factory make, const std::string& input, const std::vector<std::string>& expected) {
  for (std::size_t chunk : {0, 1, 2, 3, 5, 7, 64}) {
    auto d = make(k_default_max_frame);
    auto got = decode(*d, input, chunk);
    CAPTURE(chunk);
    CHECK_FALSE(got.error.has_value());
    CHECK(got.frames == expected);
  }
  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    auto d = make(k_default_max_frame);
    std::vector<std::string> frames;
    std::size_t i = 0;
    while (i < input.size()) {
      std::size_t n = std::uniform_int_distribution<std::size_t>(1, 9)(rng);
      REQUIRE(d->feed(std::string_view(input).substr(i, n)));
      while (auto f = d->next()) frames.push_back(*f);
      i += n;
    }
    REQUIRE(d->finish());
    while (auto f = d->next()) frames.push_back(*f);
    CHECK(frames == expected);
  }
}

}  // namespace

TEST_CASE("frame encoders") {
  CHECK(frame_json(R"({"type":"ADDED"})") == "{\"type\":\"ADDED\"}\n");
  CHECK(frame_length_prefixed("abc") == std::string("\0\0\0\3abc", 7));
  CHECK(frame_length_prefixed(std::string(258, 'x')).substr(0, 4) == std::string("\0\0\1\2", 4));
  CHECK(frame_yaml("a: 1\n", true) == "a: 1\n");
  CHECK(frame_yaml("a: 1", false) == "---\na: 1\n");
}

TEST_CASE("json decoder: objects, not lines") {
  std::string a = R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a}\"{["}}})";
  std::string b = R"({"type":"MODIFIED","object":{"list":[1,[2,{"x":"\\"}]],"s":"\u00e9\n"}})";
  std::string input = frame_json(a) + "  \r\n" + b + b + "\n\n\t";
  check_all_splits(make_json_frame_decoder, input, {a, b, b});
  check_all_splits(make_json_frame_decoder, "{\n\"multi\":\n  \"line\"\n}\n", {"{\n\"multi\":\n  \"line\"\n}"});
  check_all_splits(make_json_frame_decoder, "", {});
}

TEST_CASE("json decoder: garbage and truncation are errors with messages") {
  auto d = make_json_frame_decoder();
  auto got = decode(*d, "{\"a\":1}\nxyz{\"b\":2}", 1);
  CHECK(got.frames == std::vector<std::string>{"{\"a\":1}"});
  REQUIRE(got.error);
  CHECK(got.error->find("expected '{' to start an event, found 'x'") != std::string::npos);
  CHECK(got.error->find("byte 8") != std::string::npos);
  // The error is sticky.
  CHECK_FALSE(d->feed("{}"));
  // Offsets are the same when the bytes come in one piece (scanned in spans).
  auto whole = make_json_frame_decoder();
  got = decode(*whole, "{\"a\":\"x{\"} \n{\"b\":[1}", 0);
  REQUIRE(got.error);
  CHECK(got.error->find("byte 19") != std::string::npos);

  auto truncated = make_json_frame_decoder();
  got = decode(*truncated, "{\"a\":{\"b\":1}", 0);
  REQUIRE(got.error);
  CHECK(got.error->find("ended inside an object") != std::string::npos);

  auto mismatched = make_json_frame_decoder();
  got = decode(*mismatched, "{\"a\":[1}", 0);
  REQUIRE(got.error);
  CHECK(got.error->find("does not match") != std::string::npos);

  auto array = make_json_frame_decoder();
  CHECK_FALSE(array->feed("[1]"));
}

TEST_CASE("json decoder: oversize frame") {
  auto d = make_json_frame_decoder(16);
  auto got = decode(*d, R"({"a":"0123456789"})", 1);
  CHECK(got.frames.empty());
  REQUIRE(got.error);
  CHECK(got.error->find("limit of 16 bytes") != std::string::npos);
  auto exact = make_json_frame_decoder(8);
  got = decode(*exact, R"({"a":12})", 0);
  CHECK_FALSE(got.error);
  CHECK(got.frames.size() == 1);
}

TEST_CASE("length-prefixed decoder") {
  std::string body1 = std::string("k8s\0\x0a\x02", 6) + "v1";
  std::string body2(300, '\xff');
  std::string input = frame_length_prefixed(body1) + frame_length_prefixed("") + frame_length_prefixed(body2);
  check_all_splits(make_length_prefixed_frame_decoder, input, {body1, "", body2});
}

TEST_CASE("length-prefixed decoder: limits and truncation") {
  auto d = make_length_prefixed_frame_decoder(1024);
  // Declares 4 GiB - 1: rejected from the header alone, without allocating.
  auto got = decode(*d, std::string("\xff\xff\xff\xff", 4), 0);
  REQUIRE(got.error);
  CHECK(got.error->find("declares 4294967295 bytes, over the limit of 1024 bytes") != std::string::npos);

  auto short_header = make_length_prefixed_frame_decoder();
  got = decode(*short_header, std::string("\0\0", 2), 0);
  REQUIRE(got.error);
  CHECK(got.error->find("frame header (2 of 4 bytes)") != std::string::npos);

  auto short_body = make_length_prefixed_frame_decoder();
  got = decode(*short_body, std::string("\0\0\0\x0a", 4) + "abc", 1);
  REQUIRE(got.error);
  CHECK(got.error->find("got 3 bytes of 10 bytes") != std::string::npos);
}

TEST_CASE("yaml decoder: separators") {
  std::string input = "a: 1\n---\nb: 2\n--- # second\nc: |\n  ---x\n  text\n...\n---\n\n---\r\nd: 4";
  check_all_splits(make_yaml_frame_decoder, input,
                   {"a: 1\n", "b: 2\n", "c: |\n  ---x\n  text\n", "d: 4"});
  check_all_splits(make_yaml_frame_decoder, "---\nkind: Pod\n", {"kind: Pod\n"});
  check_all_splits(make_yaml_frame_decoder, "a: ----\nb: '---'\n", {"a: ----\nb: '---'\n"});
  check_all_splits(make_yaml_frame_decoder, "", {});
}

TEST_CASE("yaml watch decoder: an event ends at its top-level type line") {
  const std::string events = "---\nobject:\n  type: x\n  b: |\n    type: y\ntype: ADDED\n---\nobject:\n  a: 1\ntype: DELETED\n";
  check_all_splits(make_yaml_watch_frame_decoder, events,
                   {"object:\n  type: x\n  b: |\n    type: y\ntype: ADDED\n", "object:\n  a: 1\ntype: DELETED\n"});
  // Without a preceding object line, `type:` is an ordinary line.
  check_all_splits(make_yaml_watch_frame_decoder, "type: ADDED\nobject:\n  a: 1\n---\ntype: DELETED\nobject: {}\n",
                   {"type: ADDED\nobject:\n  a: 1\n", "type: DELETED\nobject: {}\n"});
  // The last event is out before the stream ends.
  auto d = make_yaml_watch_frame_decoder();
  REQUIRE(d->feed("---\nobject: {}\ntype: BOOKMARK\n").has_value());
  auto frame = d->next();
  REQUIRE(frame.has_value());
  CHECK(*frame == "object: {}\ntype: BOOKMARK\n");
}

TEST_CASE("yaml decoder: oversize document") {
  auto d = make_yaml_frame_decoder(10);
  auto got = decode(*d, "a: 1\nb: 2\nc: 3\n", 1);
  REQUIRE(got.error);
  CHECK(got.error->find("YAML document frame exceeds the limit of 10 bytes") != std::string::npos);
  auto ok = make_yaml_frame_decoder(10);
  got = decode(*ok, "a: 1\n---\nb: 2\n", 0);
  CHECK_FALSE(got.error);
  CHECK(got.frames.size() == 2);
}
