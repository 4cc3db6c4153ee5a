#include <doctest/doctest.h>

#include "core/codec/media_type.hpp"

using kw::codec::MediaType;
using kw::codec::negotiate;
using kw::codec::parse_accept;
using kw::codec::parse_media_type;

namespace {

std::vector<MediaType> offers(std::initializer_list<std::string_view> texts) {
  std::vector<MediaType> out;
  for (auto t : texts) {
    auto mt = parse_media_type(t);
    REQUIRE(mt);
    out.push_back(*mt);
  }
  return out;
}

std::optional<std::size_t> pick(std::string_view accept, const std::vector<MediaType>& offered) {
  auto accepted = parse_accept(accept);
  REQUIRE_MESSAGE(accepted, (accepted ? "" : accepted.error().message));
  return negotiate(*accepted, offered);
}

}  // namespace

TEST_CASE("media type: Content-Type with parameters") {
  auto mt = parse_media_type("Application/JSON; charset=\"utf-8\" ;stream=watch");
  REQUIRE(mt);
  CHECK(mt->essence() == "application/json");
  REQUIRE(mt->param("charset"));
  CHECK(*mt->param("CHARSET") == "utf-8");
  CHECK(*mt->param("stream") == "watch");
  CHECK(mt->param("as") == nullptr);
  CHECK(mt->to_string() == "application/json;charset=utf-8;stream=watch");
  auto quoted = parse_media_type(R"(text/plain; x="a \"b\", c")");
  REQUIRE(quoted);
  CHECK(*quoted->param("x") == R"(a "b", c)");
  CHECK(quoted->to_string() == R"(text/plain;x="a \"b\", c")");
}

TEST_CASE("media type: errors") {
  CHECK_FALSE(parse_media_type(""));
  CHECK_FALSE(parse_media_type("json"));
  CHECK_FALSE(parse_media_type("application/"));
  CHECK_FALSE(parse_media_type("*/json"));
  CHECK_FALSE(parse_media_type("a/b; x"));
  CHECK_FALSE(parse_media_type("a/b; x=\"open"));
  CHECK_FALSE(parse_media_type("a/b c"));
  auto e = parse_accept("application/json;q=2");
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("invalid q value \"2\"") != std::string::npos);
  CHECK_FALSE(parse_accept("application/json;q=0.12345"));
  CHECK_FALSE(parse_accept("application/json;q=abc"));
}

TEST_CASE("accept: kubectl's Table request") {
  auto list = parse_accept(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json");
  REQUIRE(list);
  REQUIRE(list->size() == 3);
  CHECK(*(*list)[0].param("as") == "Table");
  CHECK(*(*list)[1].param("v") == "v1beta1");
  CHECK((*list)[2].params.empty());

  auto server = offers({"application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
                        "application/json;as=Table;v=v1;g=meta.k8s.io"});
  CHECK(pick("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
             server) == 3u);
  // A server without Table support falls back to plain JSON.
  auto plain = offers({"application/json", "application/yaml"});
  CHECK(pick("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
             plain) == 0u);
  // Only v1beta1 tables offered: the second entry matches it.
  auto beta = offers({"application/json;as=Table;v=v1beta1;g=meta.k8s.io", "application/json"});
  CHECK(pick("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
             beta) == 0u);
  // Asking for JSON without as=Table never gets a Table.
  CHECK(pick("application/json", offers({"application/json;as=Table;v=v1;g=meta.k8s.io"})) == std::nullopt);
  CHECK(pick("*/*", offers({"application/json;as=Table;v=v1;g=meta.k8s.io", "application/json"})) == 1u);
}

TEST_CASE("accept: client-go's default and protobuf watch") {
  auto server = offers({"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"});
  CHECK(pick("application/vnd.kubernetes.protobuf, */*", server) == 2u);
  CHECK(pick("application/vnd.kubernetes.protobuf,application/json", server) == 2u);
  CHECK(pick("application/json, */*", server) == 0u);
  CHECK(pick("application/yaml", server) == 1u);
  CHECK(pick("text/html", server) == std::nullopt);

  auto stream = offers({"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"});
  CHECK(pick("application/vnd.kubernetes.protobuf;stream=watch", stream) == 1u);
  CHECK(pick("application/vnd.kubernetes.protobuf", stream) == 1u);
  CHECK(pick("application/json", stream) == 0u);
  CHECK(pick("application/json;stream=other", stream) == std::nullopt);
}

TEST_CASE("accept: q-values and specificity") {
  auto server = offers({"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"});
  CHECK(pick("application/json;q=0.5, application/yaml", server) == 1u);
  CHECK(pick("application/*;q=0.9, application/yaml;q=0.1", server) == 0u);
  CHECK(pick("*/*;q=0.1, application/yaml;q=0.8", server) == 1u);
  CHECK(pick("application/json;q=0, */*", server) == 1u);
  CHECK(pick("*/*", server) == 0u);
  CHECK(pick("", server) == 0u);
  CHECK(pick(" , ,application/yaml,", server) == 1u);
  auto list = parse_accept("text/*; q=0.300, application/json;q=1.000");
  REQUIRE(list);
  CHECK((*list)[0].q == doctest::Approx(0.3));
  CHECK((*list)[0].params.empty());
  CHECK(negotiate({}, {}) == std::nullopt);
}
