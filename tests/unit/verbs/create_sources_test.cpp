#include <doctest/doctest.h>

#include "cli/commands/create_sources.hpp"

using kw::cli::collect_data;
using kw::cli::DataSources;
using kw::cli::is_utf8;
using kw::cli::parse_env_file;
using kw::cli::parse_literal;

TEST_CASE("a literal splits at its first equals sign") {
  auto entry = parse_literal("key=a=b");
  REQUIRE(entry);
  CHECK(entry->first == "key");
  CHECK(entry->second == "a=b");
  CHECK(parse_literal("key=")->second.empty());
}

TEST_CASE("a literal without a key or an equals sign is refused as kubectl words it") {
  CHECK(parse_literal("a").error().message == "invalid literal source a, expected key=value");
  CHECK_FALSE(parse_literal("=v"));
}

TEST_CASE("an env file skips comments and blank lines and keeps values as written") {
  auto entries = parse_env_file("x=1\n# note\n\n  y=two words\r\nz=\n", "env");
  REQUIRE(entries);
  REQUIRE(entries->size() == 3);
  CHECK((*entries)[0] == std::pair<std::string, std::string>{"x", "1"});
  CHECK((*entries)[1] == std::pair<std::string, std::string>{"y", "two words"});
  CHECK((*entries)[2].second.empty());
  CHECK_FALSE(parse_env_file("novalue\n", "env"));
}

TEST_CASE("collected data refuses a repeated key and an invalid key naming the object") {
  DataSources twice;
  twice.literals = {"a=1", "a=2"};
  CHECK(collect_data(twice, "ConfigMap", "c").error().message ==
        "cannot add key \"a\", another key by that name already exists in Data for ConfigMap \"c\"");
  DataSources bad;
  bad.literals = {"bad/key=1"};
  CHECK(collect_data(bad, "Secret", "s").error().message.starts_with("\"bad/key\" is not a valid key name for a Secret"));
}

TEST_CASE("a missing file is reported with its path") {
  DataSources missing;
  missing.files = {"/nonexistent/kw-file"};
  CHECK(collect_data(missing, "ConfigMap", "c").error().message ==
        "error reading /nonexistent/kw-file: no such file or directory");
}

TEST_CASE("UTF-8 text is told from binary bytes") {
  CHECK(is_utf8("plain"));
  CHECK(is_utf8("caf\xc3\xa9"));
  CHECK_FALSE(is_utf8("\xff\xfe"));
  CHECK_FALSE(is_utf8("\xc3"));
}
