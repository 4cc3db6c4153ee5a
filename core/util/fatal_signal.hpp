#pragma once
// A report of the crash when the process dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGABRT): one line naming the signal, the faulting address and the thread, then the
// return addresses of the crashed thread (resolve them with `addr2line -e kw ADDRESS...`), on
// standard error. The signal is then raised again with its default action, so the exit status
// and any core dump are what they would have been.
//
// Once the crash happened the report calls only async-signal-safe functions. It runs on an
// alternate stack on the installing thread, so that an overflow of that thread's stack is
// reported too. Under AddressSanitizer, whose own report is better, nothing is installed.
#include <memory>

namespace kw::util {

// Installs the report for the whole process. Call once, early, on the main thread; the handle
// keeps that thread's alternate stack.
std::shared_ptr<void> report_fatal_signals();

}  // namespace kw::util
