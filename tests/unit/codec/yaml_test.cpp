#include <doctest/doctest.h>
#include <sys/resource.h>

#include <fstream>

#include "core/codec/yaml.hpp"

using kw::codec::json_to_yaml;
using kw::codec::yaml_to_json;
using nlohmann::json;

namespace {

json one(std::string_view yaml) {
  auto docs = yaml_to_json(yaml);
  REQUIRE_MESSAGE(docs, (docs ? "" : docs.error().message));
  REQUIRE(docs->size() == 1);
  return docs->front();
}

void check_round_trip(const json& value) {
  std::string yaml = json_to_yaml(value);
  CAPTURE(yaml);
  auto back = yaml_to_json(yaml);
  REQUIRE_MESSAGE(back, (back ? "" : back.error().message));
  REQUIRE(back->size() == 1);
  CHECK(back->front() == value);
}

}  // namespace

TEST_CASE("yaml_to_json: scalar typing like Kubernetes") {
  json j = one(R"(
t: true
f: False
yes_: yes
off_: off
n1: null
n2: ~
n3:
i: 42
neg: -7
hex: 0x1F
oct: 0644
oct2: 0o17
under: 1_000
big: 18446744073709551615
fl: 1.5
exp: 1e3
dot: .5
q1: "true"
q2: '0123'
q3: "null"
s: hello world
ver: 1.2.3
ts: 2024-01-02T03:04:05Z
lit: |
  line1
  line2
folded: >-
  a
  b
1: numeric key
true: bool key
)");
  CHECK(j["t"] == true);
  CHECK(j["f"] == false);
  CHECK(j["yes_"] == true);
  CHECK(j["off_"] == false);
  CHECK(j["n1"].is_null());
  CHECK(j["n2"].is_null());
  CHECK(j["n3"].is_null());
  CHECK(j["i"] == 42);
  CHECK(j["i"].is_number_integer());
  CHECK(j["neg"] == -7);
  CHECK(j["hex"] == 31);
  CHECK(j["oct"] == 420);
  CHECK(j["oct2"] == 15);
  CHECK(j["under"] == 1000);
  CHECK(j["big"].get<std::uint64_t>() == 18446744073709551615ULL);
  CHECK(j["fl"] == 1.5);
  CHECK(j["exp"].is_number_float());
  CHECK(j["exp"] == 1000.0);
  CHECK(j["dot"] == 0.5);
  CHECK(j["q1"] == "true");
  CHECK(j["q2"] == "0123");
  CHECK(j["q3"] == "null");
  CHECK(j["s"] == "hello world");
  CHECK(j["ver"] == "1.2.3");
  CHECK(j["ts"] == "2024-01-02T03:04:05Z");
  CHECK(j["lit"] == "line1\nline2\n");
  CHECK(j["folded"] == "a b");
  CHECK(j["1"] == "numeric key");
  CHECK(j["true"] == "bool key");
}

TEST_CASE("yaml_to_json: multiple documents, empty ones skipped") {
  auto docs = yaml_to_json("---\na: 1\n---\n---\n# only a comment\n---\n- x\n- 2\n...\n");
  REQUIRE(docs);
  REQUIRE(docs->size() == 2);
  CHECK((*docs)[0] == json{{"a", 1}});
  CHECK((*docs)[1] == json::array({"x", 2}));
  auto none = yaml_to_json("");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("yaml_to_json: errors are values with positions") {
  auto bad = yaml_to_json("a: [1, 2\nb: 3\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("invalid YAML at line") != std::string::npos);
  auto inf = yaml_to_json("x: .inf\n");
  REQUIRE_FALSE(inf);
  CHECK(inf.error().message.find("cannot be represented in JSON") != std::string::npos);
  CHECK_FALSE(yaml_to_json("? [a, b]\n: c\n"));
  std::string deep(2000, '[');
  CHECK_FALSE(yaml_to_json(deep));
  // Alias expansion is bounded.
  std::string laughs = "a: &a [x,x,x,x,x,x,x,x,x,x]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    laughs += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + ",*" +
              char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + "]\n";
  auto boom = yaml_to_json(laughs);
  REQUIRE_FALSE(boom);
  CHECK(boom.error().message == "yaml: document contains excessive aliasing");
}

namespace {

// The largest resident size this process has had, in KiB.
long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// "<name>: [*<alias>, *<alias>, ...]" with `uses` uses of the alias, the list anchored as
// &<name> when `anchored`.
std::string alias_list(std::string_view name, std::string_view alias, int uses, bool anchored = false) {
  std::string out = std::string(name) + ": " + (anchored ? "&" + std::string(name) + " [" : "[");
  for (int i = 0; i < uses; ++i) out += (i == 0 ? "*" : ", *") + std::string(alias);
  return out + "]\n";
}

std::string anchored_string(std::string_view name, std::size_t size) {
  return std::string(name) + ": &" + std::string(name) + " \"" + std::string(size, 'x') + "\"\n";
}

}  // namespace

TEST_CASE("yaml_to_json: a 1 MiB string aliased 1000 times is refused before it is copied") {
  const std::string yaml = anchored_string("a", 1 << 20) + alias_list("b", "a", 1000);
  const long before = peak_rss_kib();
  auto r = yaml_to_json(yaml);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "yaml: document contains excessive aliasing");
  // Expanded, the document takes a GiB; the refusal comes after a few times its size.
  CHECK(peak_rss_kib() - before < 64 * 1024);
}

TEST_CASE("yaml_to_json: nested aliases are refused by the bytes they would expand to") {
  // Nine levels of nine: 9^9 copies of "lol".
  std::string laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string name(1, c);
    laughs += alias_list(name, std::string(1, char(c - 1)), 9, true);
  }
  // Two levels over a large string: 100 x 100 copies of 1 MiB.
  const std::string wide = anchored_string("a", 1 << 20) + alias_list("b", "a", 100, true) + alias_list("c", "b", 100);
  // No alias at all, but each of 400 nested anchors keeps its own copy of 1 MiB.
  std::string anchors = "x: ";
  for (int i = 0; i < 400; ++i) anchors += "&a" + std::to_string(i) + " [";
  anchors += "\"" + std::string(1 << 20, 'x') + "\"" + std::string(400, ']') + "\n";
  for (const std::string& yaml : {laughs, wide, anchors}) {
    CAPTURE(yaml.substr(0, 80));
    const long before = peak_rss_kib();
    auto r = yaml_to_json(yaml);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "yaml: document contains excessive aliasing");
    CHECK(peak_rss_kib() - before < 64 * 1024);
  }
}

TEST_CASE("yaml_to_json: documents with aliases within the bound decode") {
  json decoded = one("defaults: &defaults {image: nginx, ports: [80, 443]}\n"
                     "first: *defaults\n"
                     "second: {spec: *defaults, name: &n web}\n"
                     "names: [*n, *n]\n");
  CHECK(decoded["first"] == json{{"image", "nginx"}, {"ports", {80, 443}}});
  CHECK(decoded["second"]["spec"] == decoded["first"]);
  CHECK(decoded["names"] == json{"web", "web"});
  // Eight copies of 1 MiB (8 MiB expanded) are within the bound.
  json large = one(anchored_string("a", 1 << 20) + alias_list("b", "a", 8));
  REQUIRE(large["b"].size() == 8);
  CHECK(large["b"][7].get_ref<const std::string&>().size() == std::size_t{1} << 20);
  // Anchors belong to their document: each one resolves its own.
  auto docs = yaml_to_json("a: &x 1\nb: *x\n---\nc: &y two\nd: *y\n");
  REQUIRE(docs);
  REQUIRE(docs->size() == 2);
  CHECK((*docs)[0] == json{{"a", 1}, {"b", 1}});
  CHECK((*docs)[1] == json{{"c", "two"}, {"d", "two"}});
}

TEST_CASE("json_to_yaml: kubectl-like block style") {
  json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
    "spec":{"containers":[{"name":"c","image":"nginx:1.25","args":["--port=80","-v"],"ports":[{"containerPort":80}]}],
    "tolerations":[],"nodeSelector":{}}})");
  CHECK(json_to_yaml(pod) ==
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  labels:\n"
        "    app: web\n"
        "  name: web\n"
        "spec:\n"
        "  containers:\n"
        "  - args:\n"
        "    - --port=80\n"
        "    - -v\n"
        "    image: nginx:1.25\n"
        "    name: c\n"
        "    ports:\n"
        "    - containerPort: 80\n"
        "  nodeSelector: {}\n"
        "  tolerations: []\n");
  CHECK(json_to_yaml(json::array({json::array({1, 2}), "x"})) == "- - 1\n  - 2\n- x\n");
  CHECK(json_to_yaml(json("text")) == "text\n");
  CHECK(json_to_yaml(json::object()) == "{}\n");
}

TEST_CASE("json_to_yaml: quoting of ambiguous strings") {
  json data = {{"a", "true"}, {"b", "0123"}, {"c", "1e3"}, {"d", "null"}, {"e", ""}, {"f", ": "},
               {"g", "- x"}, {"h", "yes"}, {"i", "~"}, {"j", "2024-01-02T03:04:05Z"}, {"k", "#x"},
               {"l", "a #b"}, {"m", " lead"}, {"n", "trail "}, {"o", "tab\there"}, {"p", "12"}};
  std::string yaml = json_to_yaml(data);
  CHECK(yaml.find("a: \"true\"\n") != std::string::npos);
  CHECK(yaml.find("b: \"0123\"\n") != std::string::npos);
  CHECK(yaml.find("e: \"\"\n") != std::string::npos);
  CHECK(yaml.find("j: \"2024-01-02T03:04:05Z\"\n") != std::string::npos);
  CHECK(yaml.find("o: \"tab\\there\"\n") != std::string::npos);
  check_round_trip(data);
}

TEST_CASE("json_to_yaml: multi-line strings as literal blocks") {
  json j = {{"script", "#!/bin/sh\necho hi\n"}, {"nochomp", "a\nb"}, {"keep", "a\n\n"},
            {"indented", "  x\ny\n"}, {"trailing", "a \nb\n"}, {"cr", "a\r\nb\n"}};
  std::string yaml = json_to_yaml(j);
  CHECK(yaml.find("script: |\n  #!/bin/sh\n  echo hi\n") != std::string::npos);
  CHECK(yaml.find("nochomp: |-\n  a\n  b\n") != std::string::npos);
  CHECK(yaml.find("indented: \"  x\\ny\\n\"\n") != std::string::npos);
  CHECK(yaml.find("trailing: \"a \\nb\\n\"\n") != std::string::npos);
  check_round_trip(j);
  check_round_trip(json::array({"x\ny", json{{"k", "multi\nline\n"}}}));
}

TEST_CASE("yaml_to_json: a top-level ',' is an error, not a hang (yaml-cpp 0.7 loops on it)") {
  for (const char* text : {",", ", a: 1\n", "--- ,", "!t ,", "\"a\" ,", "[a] ,", "a: 1\n...\n,",
                           ", maxUnavailable: 1=}/}\n  1: es=\n"}) {
    CAPTURE(text);
    auto r = yaml_to_json(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("invalid YAML") != std::string::npos);
  }
}

TEST_CASE("yaml: invalid UTF-8 is rejected on read and quoted on write") {
  auto r = yaml_to_json("a: \xf8\x09\n");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("UTF-8") != std::string::npos);
  // Bytes that would read as a UTF-16 byte order mark at the start of a stream.
  std::string yaml = json_to_yaml(json("\xfe\xff- a"));
  CHECK(yaml.front() == '"');
}

TEST_CASE("json_to_yaml: a key over 128 bytes, or over lines, is an explicit key, as go-yaml writes it") {
  const std::string k128(128, 'k');
  const std::string k129(129, 'k');
  const nlohmann::json doc = {{k128, "v"}, {k129, "w"}, {"short", {{std::string(300, '\x03'), {{"n", 1}}}}},
                              {"two\nlines", "x"}};
  const std::string yaml = kw::codec::json_to_yaml(doc);
  CHECK(yaml.find(k128 + ": v\n") != std::string::npos);
  CHECK(yaml.find("? " + k129 + "\n: w\n") != std::string::npos);
  CHECK(yaml.find("? \"two\\nlines\"\n: x\n") != std::string::npos);
  // It reads back to the same document (an implicit key of over 1024 characters would not).
  auto back = kw::codec::yaml_to_json(yaml);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == 1);
  CHECK(back->front() == doc);
}

TEST_CASE("json_to_yaml writes strings as kubectl does: quote styles, escapes and lines folded past 80 columns") {
  std::ifstream in(KW_KUBECTL_YAML);
  REQUIRE(in);
  const json recorded = json::parse(in);
  const std::string yaml = json_to_yaml(recorded["object"]);
  CHECK(yaml == recorded["yaml"].get<std::string>());
  // And kubectl's YAML reads back to the same object.
  CHECK(one(recorded["yaml"].get<std::string>()) == recorded["object"]);
}

TEST_CASE("json_to_yaml: go-yaml's escapes read back, \\N and \\_ included") {
  for (const char* text : {"a\xC2\x85" "b", "x\xC2\xA0y", "\xE2\x80\xA8", "\x7F", "\x1B[0m", "\xEF\xBF\xBE",
                           "\xF0\x9F\x9A\x80 rocket"}) {
    const json value = {{"k", text}};
    CHECK(one(json_to_yaml(value)) == value);
  }
  CHECK(json_to_yaml(json{{"k", "a\xC2\x85" "b"}}) == "k: \"a\\Nb\"\n");
  CHECK(one("k: \"a\\_b\\Nc\"\n")["k"] == "a\xC2\xA0" "b\xC2\x85" "c");
  CHECK(json_to_yaml(json{{"k", "\x7F"}}) == "k: \"\\x7F\"\n");
  // Keys are never folded; a long value in a list folds under its item.
  const std::string words = "word word word word word word word word word word word word word word word word word";
  CHECK(json_to_yaml(json{{words, 1}}) == words + ": 1\n");
  CHECK(json_to_yaml(json{{"l", {words}}}) ==
        "l:\n- word word word word word word word word word word word word word word word word\n  word\n");
}
