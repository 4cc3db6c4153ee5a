#pragma once
// CLI11's command and option types, declared only. Headers that just pass a CLI::App& along include this
// instead of <CLI/CLI.hpp>, which defines a set of validator objects in every file that
// includes it, each built before main() in every kw process.
namespace CLI {
class App;
class Option;
}  // namespace CLI
