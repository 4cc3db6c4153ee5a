#include "core/util/fatal_signal.hpp"

#include <array>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>

#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kw::util {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool k_sanitized = true;
#else
constexpr bool k_sanitized = false;
#endif

constexpr std::array k_fatal = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr std::size_t k_max_frames = 64;
constexpr std::size_t k_alternate_stack_bytes = 64 * 1024;


// Formatting without allocation, for the handler.
class Line {
 public:
  Line& text(std::string_view s) {
    for (char c : s)
      if (m_size < sizeof m_buffer) m_buffer[m_size++] = c;
    return *this;
  }
  Line& number(std::uint64_t value, int base = 10) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % static_cast<std::uint64_t>(base)];
      value /= static_cast<std::uint64_t>(base);
    } while (value != 0);
    if (base == 16) text("0x");
    while (n > 0) text(std::string_view(&digits[--n], 1));
    return *this;
  }
  void write(int fd) const {
    std::size_t done = 0;
    while (done < m_size) {
      const ssize_t n = ::write(fd, m_buffer + done, m_size - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  char m_buffer[512];
  std::size_t m_size = 0;
};

std::string_view signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
  }
}

void on_fatal_signal(int signal, siginfo_t* info, void*) {
  Line head;
  head.text("kw: fatal ").text(signal_name(signal)).text(" (signal ").number(static_cast<unsigned>(signal));
  head.text(")");
  if (info != nullptr && info->si_code <= 0 && signal != SIGABRT)  // kill(2) and the like
    head.text(" sent by process ").number(static_cast<std::uint64_t>(info->si_pid));
  else if (info != nullptr && signal != SIGABRT)
    head.text(" at address ").number(reinterpret_cast<std::uintptr_t>(info->si_addr), 16);
  head.text(" in thread ").number(static_cast<std::uint64_t>(::syscall(SYS_gettid))).text("; return addresses:\n");
  head.write(STDERR_FILENO);
  void* frames[k_max_frames];
  const int count = ::backtrace(frames, static_cast<int>(k_max_frames));
  Line addresses;
  for (int i = 0; i < count; ++i) addresses.text(i ? " " : "").number(reinterpret_cast<std::uintptr_t>(frames[i]), 16);
  addresses.text("\n");
  addresses.write(STDERR_FILENO);
  // Then die of the signal, as without the report.
  struct sigaction fallback{};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(signal);
}

}  // namespace

std::shared_ptr<void> report_fatal_signals() {
  if (k_sanitized) return nullptr;
  // backtrace() loads the unwinder on its first call, sorting the unwind tables of the whole
  // binary (tens of milliseconds), which is not safe in a handler: done once here, on a thread of
  // its own so that start-up does not wait for it.
  auto warm_up = std::make_shared<std::jthread>([] {
    void* warm[1];
    ::backtrace(warm, 1);
  });
  auto memory = std::shared_ptr<char[]>(new char[k_alternate_stack_bytes]);
  stack_t stack{};
  stack.ss_sp = memory.get();
  stack.ss_size = k_alternate_stack_bytes;
  const bool alternate_stack = ::sigaltstack(&stack, nullptr) == 0;
  std::shared_ptr<void> handle(nullptr, [memory, warm_up, alternate_stack](void*) {
    if (!alternate_stack) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
  });
  struct sigaction action{};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : k_fatal) ::sigaction(signal, &action, nullptr);
  return handle;
}

}  // namespace kw::util
