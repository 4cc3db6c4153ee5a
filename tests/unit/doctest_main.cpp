// The main of every doctest executable. A run that was asked for test cases by name but
// ran none fails, so a CTest entry whose filter no longer matches cannot pass silently.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstring>
#include <iostream>

namespace {

struct CaseCounter : doctest::IReporter {
  static inline int started = 0;
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++started; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("case-counter", 1, CaseCounter);

bool has_arg(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit() || has_arg(argc, argv, "--list") || has_arg(argc, argv, "-l")) return result;
  if (CaseCounter::started == 0 && (has_arg(argc, argv, "--test-case=") || has_arg(argc, argv, "-tc="))) {
    std::cerr << "no test case matched the filter: the test name and its CTest entry disagree\n";
    return 1;
  }
  return result;
}
