// GoQuantity against resource.Quantity itself: every row of a table recorded from
// k8s.io/apimachinery v1.23.13 (tests/conformance/recorded/quantity-go-1.23.json) — the text
// Go writes back, its parse error, RoundUp to milli units, MilliValue and Value.
#include <doctest/doctest.h>

#include <fstream>

#include "core/api/quantity.hpp"

using kw::api::canonical_quantity;
using kw::api::GoQuantity;
using kw::api::parse_go_quantity;
using nlohmann::json;

TEST_CASE("quantities read and written as Go's resource.Quantity does") {
  std::ifstream in(KW_QUANTITY_TABLE);
  REQUIRE(in);
  const json table = json::parse(in);
  REQUIRE(table["rows"].size() > 600);
  for (const auto& row : table["rows"]) {
    const std::string text = row["in"];
    CAPTURE(text);
    // Go's UnmarshalJSON reads the string's raw bytes, escapes and all ("\t2" is refused); kw
    // sees the decoded string. Such texts are not compared.
    if (json(text).dump().find('\\') != std::string::npos) continue;
    auto parsed = parse_go_quantity(json(text));
    if (row.contains("error")) {
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == row["error"].get<std::string>());
      continue;
    }
    REQUIRE(parsed);
    CHECK(parsed->string() == row["out"].get<std::string>());
    // For negative values held as inf.Dec, Go's MilliValue and Value misround (-0.512 has Value 1);
    // kw rounds every value away from zero, as Go does for the rest.
    if (row.contains("milli") && !parsed->negative) {
      CHECK(parsed->milli_value() == row["milli"].get<std::int64_t>());
      CHECK(parsed->value() == row["value"].get<std::int64_t>());
    }
    GoQuantity rounded = *parsed;
    rounded.round_up(-3);
    CHECK(rounded.string() == row["rounded"].get<std::string>());
  }
}

TEST_CASE("a bare JSON number is read as its text") {
  CHECK(*canonical_quantity(json(0.5)) == "500m");
  CHECK(*canonical_quantity(json(1000)) == "1k");
  CHECK(*canonical_quantity(json(100000000)) == "100M");
  CHECK(*canonical_quantity(json(2.5)) == "2500m");
  CHECK_FALSE(canonical_quantity(json::object()));
}

TEST_CASE("quantities compare by value") {
  const auto q = [](const char* text) { return *parse_go_quantity(std::string_view(text)); };
  CHECK(q("1000m").compare(q("1")) == 0);
  CHECK(q("1Gi").compare(q("1024Mi")) == 0);
  CHECK(q("1Gi").compare(q("1G")) == 1);
  CHECK(q("-1").compare(q("1m")) == -1);
  CHECK(q("0").compare(q("-0")) == 0);
  CHECK(q("1e1000").compare(q("9E")) == 1);
  CHECK(q("999m").compare(q("1")) == -1);
}
