#include "bench/bench_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace kw::bench {

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

void report(std::string_view name, double value, std::string_view unit) {
  std::printf("RESULT %.*s %.6g %.*s\n", static_cast<int>(name.size()), name.data(), value,
              static_cast<int>(unit.size()), unit.data());
  std::fflush(stdout);
}

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    std::size_t used = 0;
    const int value = std::stoi(part, &used);
    if (used != part.size() || value < 0) throw std::invalid_argument("not a count: " + part);
    out.push_back(value);
  }
  return out;
}

std::string flag(int argc, char** argv, std::string_view name, std::string fallback) {
  const std::string prefix = "--" + std::string(name) + "=";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with(prefix)) return std::string(arg.substr(prefix.size()));
  }
  return fallback;
}

}  // namespace kw::bench
