#pragma once
// Small helpers shared by the hand-timed benchmarks: a clock, percentiles, argument
// parsing and the one output format scripts/bench.sh reads.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace kw::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The q-quantile (0..1) of `values` by nearest rank; 0 when empty. Sorts `values`.
double percentile(std::vector<double>& values, double q);

// Prints one machine-readable line: "RESULT <name> <value> <unit>" (and flushes).
void report(std::string_view name, double value, std::string_view unit);

// "1,8,64" -> {1, 8, 64}; throws std::invalid_argument on anything else.
std::vector<int> parse_int_list(const std::string& text);

// The value of "--name=value" in argv, or `fallback`.
std::string flag(int argc, char** argv, std::string_view name, std::string fallback);

}  // namespace kw::bench
