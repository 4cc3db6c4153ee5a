#include "core/util/fatal_signal.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

// Runs `crash` in a child process with the report installed; its standard error and the signal
// it died of.
template <class Crash>
std::pair<std::string, int> crashed(Crash crash) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    const auto handle = kw::util::report_fatal_signals();
    crash();
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return {text, WIFSIGNALED(status) ? WTERMSIG(status) : 0};
}

// Recurses until the stack runs out (long before the bound).
int deeper(volatile int* depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(*depth);
  *depth = *depth + 1;
  if (*depth > 1'000'000'000) return 0;
  return deeper(depth) + frame[0];
}

}  // namespace

#if !defined(__SANITIZE_ADDRESS__)
TEST_CASE("a fatal signal is reported with its address and the thread's return addresses, then kills as before") {
  const auto [text, signal] = crashed([] {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  });
  CHECK(signal == SIGSEGV);
  CHECK(text.starts_with("kw: fatal SIGSEGV (signal 11) at address 0x0 in thread "));
  CHECK(text.find("; return addresses:\n0x") != std::string::npos);
  CHECK(text.ends_with("\n"));
}

TEST_CASE("an abort and an overflowed stack are reported too") {
  CHECK(crashed([] { std::abort(); }).first.starts_with("kw: fatal SIGABRT (signal 6) in thread "));
  const auto [text, signal] = crashed([] {
    volatile int depth = 0;
    deeper(&depth);
  });
  CHECK(signal == SIGSEGV);
  CHECK(text.starts_with("kw: fatal SIGSEGV"));
}
#endif
