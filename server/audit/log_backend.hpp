#pragma once
// The audit log (kube-apiserver's --audit-log-*): events written as lines to a file that is
// rotated by size, with old files pruned by count and age and optionally gzipped, or to
// standard output. In blocking mode (kube's default) the request's thread writes its event
// before going on; in batch mode a writer thread gathers events and writes them together.
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/util/error.hpp"
#include "server/audit/event.hpp"

namespace kw::audit {

// --audit-log-mode: batch hands events over and never waits (a full buffer drops the event and
// counts it); blocking and blocking-strict wait until the event is written.
enum class LogMode { batch, blocking, blocking_strict };

struct LogOptions {
  std::string path = {};     // "-": standard output
  int max_age_days = 0;      // 0: old files are kept whatever their age
  int max_backups = 0;       // 0: old files are kept whatever their number
  int max_size_mb = 0;       // 0: 100 MiB, as kube-apiserver's log writer defaults
  bool compress = false;     // gzip rotated files
  bool legacy_format = false;
  LogMode mode = LogMode::batch;
  std::size_t buffer_size = 10000;  // events waiting for the writer (batch mode)
};

// kube-apiserver's checks of the --audit-log-* values: the messages name the flag.
Result<LogMode> parse_log_mode(const std::string& text);
Result<void> check_log_options(const LogOptions& options, const std::string& format);

class LogBackend {
 public:
  // Creates the file (mode 0600, directories 0700) and, in batch mode, starts the writer.
  static Result<std::unique_ptr<LogBackend>> open(LogOptions options);
  ~LogBackend();  // writes what is queued, then stops
  LogBackend(const LogBackend&) = delete;
  LogBackend& operator=(const LogBackend&) = delete;

  // Encodes the event on the caller's thread; blocking mode writes it there too, batch mode
  // appends the line to the writer's next batch. False when it was dropped (batch mode, buffer full). A write
  // that fails is reported on standard error (once per failing run) and counted.
  bool process(const Event& event);
  std::uint64_t events() const;  // accepted (queued) so far
  std::uint64_t dropped() const;
  std::uint64_t write_errors() const;

 private:
  explicit LogBackend(LogOptions options);
  // Lines a write could not put in the file, and the first reason.
  struct WriteOutcome {
    std::size_t failed = 0;
    Error error = {};
  };
  void run();
  // Counts a write's lost lines (m_mutex held); the first failure of a failing run is reported
  // on standard error.
  void note_written(const WriteOutcome& outcome);

  class Output;
  LogOptions m_options;
  std::unique_ptr<Output> m_output;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;  // the writer: events queued, or stop
  std::string m_batch;             // encoded lines waiting for the writer
  std::size_t m_batch_events = 0;  // lines in m_batch
  std::uint64_t m_queued = 0;    // events ever queued
  std::uint64_t m_dropped = 0;
  std::uint64_t m_write_errors = 0;
  bool m_stop = false;
  bool m_failing = false;  // the last write failed
  std::thread m_writer;
};

}  // namespace kw::audit
