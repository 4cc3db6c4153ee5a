#include <CLI/CLI.hpp>

#include <doctest/doctest.h>

#include "cli/commands/common.hpp"

using kw::cli::ValidateFlag;
using kw::cli::WriteQuery;

namespace {

std::string directive(const std::string& value) {
  auto validation = ValidateFlag{value}.field_validation();
  return validation ? *validation : "error: " + validation.error().message;
}

}  // namespace

TEST_CASE("--validate values map to fieldValidation as kubectl's GetValidationDirective maps them") {
  CHECK(directive("strict") == "Strict");
  CHECK(directive("true") == "Strict");
  CHECK(directive("1") == "Strict");
  CHECK(directive("T") == "Strict");
  CHECK(directive("warn") == "Warn");
  CHECK(directive("ignore") == "Ignore");
  CHECK(directive("false") == "Ignore");
  CHECK(directive("False") == "Ignore");
  CHECK(directive("0") == "Ignore");
  CHECK(directive("Strict") ==
        "error: invalid - validate option \"Strict\"; must be one of: strict (or true), warn, ignore (or false)");
}

TEST_CASE("a bare --validate is strict, and --validate=VALUE takes the value") {
  for (const auto& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "strict"}, {{"--validate"}, "strict"}, {{"--validate=warn"}, "warn"}, {{"--validate", "false"}, "false"}}) {
    CLI::App app;
    ValidateFlag flag;
    kw::cli::add_validate_flag(app, flag);
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
    CHECK(flag.value == expected);
  }
}

TEST_CASE("the write query adds fieldManager and fieldValidation after what the target has") {
  CHECK(WriteQuery{"kubectl-create", "Strict"}.apply_to("/api/v1/namespaces/d/pods") ==
        "/api/v1/namespaces/d/pods?fieldManager=kubectl-create&fieldValidation=Strict");
  CHECK(WriteQuery{"a b", ""}.apply_to("/api/v1/pods?dryRun=All") == "/api/v1/pods?dryRun=All&fieldManager=a%20b");
  CHECK(WriteQuery{}.apply_to("/api/v1/pods") == "/api/v1/pods");
}
