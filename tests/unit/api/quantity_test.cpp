// resource.Quantity as the rows read it (core/api/quantity.hpp).
#include <doctest/doctest.h>

#include "core/api/quantity.hpp"

using kw::api::parse_quantity;
using kw::api::quantity_sign;
using kw::api::quantity_string;
using kw::api::quantity_value;
using nlohmann::json;

TEST_CASE("quantities compare across suffixes") {
  CHECK(*quantity_value("1000m") == *quantity_value("1"));
  CHECK(*quantity_value("1Gi") == *quantity_value("1024Mi"));
  CHECK(*quantity_value("1.5k") == 1500);
  CHECK(*quantity_value("2e3") == 2000);
  CHECK(*quantity_value("5E-1") == doctest::Approx(0.5));
  CHECK(*quantity_value(json(2.5)) == doctest::Approx(2.5));
  CHECK(*quantity_value("-250m") == doctest::Approx(-0.25));
  CHECK(parse_quantity(std::string_view("1Gi"))->scaled(3) == 1024.0L * 1024 * 1024 * 1000);
  CHECK(parse_quantity(std::string_view("3m"))->scaled(3) == doctest::Approx(3));
}

TEST_CASE("what is not a quantity") {
  CHECK_FALSE(parse_quantity(std::string_view("")));
  CHECK(parse_quantity(std::string_view("Gi"))->scaled() == 0);  // Go reads a bare suffix as zero
  CHECK_FALSE(parse_quantity(std::string_view("1x")));
  CHECK_FALSE(parse_quantity(std::string_view("1.2.3")));
  CHECK_FALSE(parse_quantity(std::string_view("1e")));
  CHECK_FALSE(parse_quantity(json::object()));
  CHECK_FALSE(quantity_value(json()));
}

TEST_CASE("the sign and text of a quantity") {
  CHECK(quantity_sign("5") == 1);
  CHECK(quantity_sign("-0.001") == -1);
  CHECK(quantity_sign("-0") == 0);
  CHECK(quantity_sign("0.0Gi") == 0);
  CHECK(quantity_sign(json(-3)) == -1);
  CHECK(quantity_sign("abc") == 0);
  CHECK(quantity_string("500m") == "500m");
  CHECK(quantity_string(json(2)) == "2");
  CHECK(quantity_string(json()) == "0");
  CHECK(quantity_string(json(), "<nil>") == "<nil>");
}
