// Runs the request fuzz target (tests/fuzz/request_fuzz.cpp) without libFuzzer, in the
// normal and the sanitizer builds: every seed of its corpus, then a bounded number of
// deterministic mutations of each (byte flips, insertions, deletions, truncations and
// splices of two seeds). libFuzzer explores further with scripts/fuzz.sh.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::string> read_seeds() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(KW_REQUEST_CORPUS))
    if (entry.is_regular_file()) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> seeds;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    seeds.push_back(bytes.str());
  }
  return seeds;
}

std::string escaped(const std::string& input) {
  std::string out;
  for (unsigned char c : input) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out.push_back(static_cast<char>(c));
    else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// An exception escaping the handler is a finding: the input is printed to reproduce it.
void run(const std::string& input) {
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  } catch (const std::exception& e) {
    FAIL("the request path threw \"" << std::string(e.what()) << "\" for input: " << escaped(input));
  }
}

std::string mutate(std::string input, const std::vector<std::string>& seeds, std::mt19937& rng) {
  auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const int steps = 1 + static_cast<int>(pick(4));
  for (int step = 0; step < steps; ++step) {
    if (input.empty()) input.push_back('\0');
    switch (pick(6)) {
      case 0: input[pick(input.size())] = static_cast<char>(pick(256)); break;
      case 1: input.insert(pick(input.size() + 1), 1, "{}[]\",:\n?&=%/\\\x01\xff"[pick(17)]); break;
      case 2: input.erase(pick(input.size()), 1 + pick(8)); break;
      case 3: input.resize(pick(input.size() + 1)); break;
      case 4: {
        const std::string& other = seeds[pick(seeds.size())];
        input = input.substr(0, pick(input.size() + 1)) + other.substr(pick(other.size() + 1));
        break;
      }
      default: input.insert(pick(input.size() + 1), std::string(1 + pick(64), static_cast<char>('a' + pick(26))));
    }
  }
  return input;
}

}  // namespace

TEST_CASE("request fuzz target: the corpus and its mutations get valid answers") {
  const auto seeds = read_seeds();
  REQUIRE(seeds.size() >= 10);
  for (const auto& seed : seeds) run(seed);
  std::mt19937 rng(20261123);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int runs = 0;
  for (; runs < 20000 && std::chrono::steady_clock::now() < deadline; ++runs)
    run(mutate(seeds[static_cast<std::size_t>(runs) % seeds.size()], seeds, rng));
  MESSAGE(runs << " mutated requests answered");
  CHECK(runs > 0);
}
