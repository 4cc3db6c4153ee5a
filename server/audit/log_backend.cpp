#include "server/audit/log_backend.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace kw::audit {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

constexpr std::uint64_t k_default_max_bytes = 100ULL * 1024 * 1024;
// Batch mode: events are written when this many wait, or this long after the first one came.
constexpr std::size_t k_batch_events = 256;
constexpr auto k_batch_linger = std::chrono::milliseconds(5);
constexpr const char* k_backup_time_format = "%Y-%m-%dT%H-%M-%S";  // then ".mmm", as lumberjack names backups

std::string errno_text() { return std::strerror(errno); }

// "2006-01-02T15-04-05.000" of `at`, in UTC.
std::string backup_stamp(Clock::time_point at) {
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, k_backup_time_format, &utc);
  std::snprintf(text + n, sizeof text - n, ".%03d", static_cast<int>(millis % 1000));
  return text;
}

// The time in a backup's name, or nullopt when the name is not one.
std::optional<Clock::time_point> parse_backup_stamp(std::string_view text) {
  std::tm utc{};
  const std::string copy(text);
  const char* end = strptime(copy.c_str(), k_backup_time_format, &utc);
  if (end == nullptr || std::strlen(end) != 4 || end[0] != '.') return std::nullopt;
  int millis = 0;
  for (int i = 1; i < 4; ++i) {
    if (end[i] < '0' || end[i] > '9') return std::nullopt;
    millis = millis * 10 + (end[i] - '0');
  }
  return Clock::from_time_t(timegm(&utc)) + std::chrono::milliseconds(millis);
}

// Writes `from` gzipped to `to` (mode 0600) and removes `from`.
bool gzip_file(const fs::path& from, const fs::path& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) {
    ::close(in);
    return false;
  }
  gzFile gz = gzdopen(out, "wb");
  bool ok = gz != nullptr;
  char buffer[64 * 1024];
  while (ok) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0) ok = false;
    if (n <= 0) break;
    ok = gzwrite(gz, buffer, static_cast<unsigned>(n)) == n;
  }
  if (gz != nullptr) ok = gzclose(gz) == Z_OK && ok;
  else ::close(out);
  ::close(in);
  if (ok) fs::remove(from);
  else fs::remove(to);
  return ok;
}

}  // namespace

// Where lines go: standard output, or a file rotated as kube-apiserver's log writer
// (lumberjack) rotates it: NAME-2006-01-02T15-04-05.000.EXT backups in UTC, the newest
// max_backups kept, none older than max_age days, gzipped when asked.
class LogBackend::Output {
 public:
  static Result<std::unique_ptr<Output>> open(const LogOptions& options) {
    auto out = std::unique_ptr<Output>(new Output(options));
    if (options.path == "-") {
      out->m_fd = STDOUT_FILENO;
      return out;
    }
    const fs::path path(options.path);
    std::error_code error;
    if (path.has_parent_path()) {
      fs::create_directories(path.parent_path(), error);
      if (error) return fail("ensureLogFile: mkdir " + path.parent_path().string() + ": " + error.message());
    }
    if (auto opened = out->open_file(); !opened) return std::unexpected(opened.error());
    return out;
  }

  ~Output() {
    if (m_fd >= 0 && m_fd != STDOUT_FILENO) ::close(m_fd);
  }

  // Writes whole lines. A line that would take the file past its size rotates it first; a line
  // larger than a whole file is refused, and the others still written.
  WriteOutcome write_lines(std::string_view lines) {
    WriteOutcome outcome;
    const std::uint64_t max = m_fd == STDOUT_FILENO ? std::numeric_limits<std::uint64_t>::max()
                              : m_options.max_size_mb > 0
                                  ? static_cast<std::uint64_t>(m_options.max_size_mb) * 1024 * 1024
                                  : k_default_max_bytes;
    auto lost = [&](std::string_view rest, Error error) {
      outcome.failed += static_cast<std::size_t>(std::ranges::count(rest, '\n'));
      if (outcome.error.message.empty()) outcome.error = std::move(error);
    };
    while (!lines.empty()) {
      // The whole lines that still fit, then a new file for the rest.
      const std::uint64_t room = m_size < max ? max - m_size : 0;
      const std::size_t last = lines.size() <= room ? lines.size() - 1
                               : room > 0           ? lines.rfind('\n', static_cast<std::size_t>(room - 1))
                                                    : std::string_view::npos;
      if (last != std::string_view::npos) {
        const auto chunk = lines.substr(0, last + 1);
        lines.remove_prefix(chunk.size());
        if (auto written = write_all(chunk); !written) {
          lost(lines, written.error());
          lost(chunk, {});
          return outcome;
        }
        continue;
      }
      const std::size_t end = lines.find('\n');
      const std::size_t first = end == std::string_view::npos ? lines.size() : end + 1;
      if (first > max) {
        lost(lines.substr(0, first), Error{"write length " + std::to_string(first) + " exceeds maximum file size " +
                                           std::to_string(max)});
        lines.remove_prefix(first);
        continue;
      }
      if (auto rotated = rotate(); !rotated) {
        lost(lines, rotated.error());
        return outcome;
      }
    }
    return outcome;
  }

 private:
  explicit Output(const LogOptions& options) : m_options(options) {}

  Result<void> write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return fail("write " + m_options.path + ": " + errno_text());
      bytes.remove_prefix(static_cast<std::size_t>(n));
      m_size += static_cast<std::uint64_t>(n);
    }
    return {};
  }

  Result<void> open_file() {
    m_fd = ::open(m_options.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (m_fd < 0) return fail("ensureLogFile: open " + m_options.path + ": " + errno_text());
    struct stat info{};
    if (::fstat(m_fd, &info) != 0) return fail("stat " + m_options.path + ": " + errno_text());
    m_size = static_cast<std::uint64_t>(info.st_size);
    return {};
  }

  // NAME.EXT -> NAME- and .EXT, the parts of every backup's name.
  std::pair<std::string, std::string> name_parts() const {
    const fs::path path(m_options.path);
    return {path.stem().string() + "-", path.extension().string()};
  }

  Result<void> rotate() {
    ::close(m_fd);
    m_fd = -1;
    const fs::path path(m_options.path);
    const auto [prefix, ext] = name_parts();
    // Named by the millisecond: a name taken by a rotation in the same one moves on a
    // millisecond, so that no backup replaces another.
    auto at = Clock::now();
    auto backup_at = [&] { return path.parent_path() / (prefix + backup_stamp(at) + ext); };
    fs::path backup = backup_at();
    while (fs::exists(backup) || fs::exists(backup.string() + ".gz")) {
      at += std::chrono::milliseconds(1);
      backup = backup_at();
    }
    std::error_code error;
    fs::rename(path, backup, error);
    if (error) return fail("can't rename log file: " + error.message());
    if (auto opened = open_file(); !opened) return opened;
    prune();
    return {};
  }

  // Old files beyond the count or the age go; the rest are gzipped when asked.
  void prune() {
    const fs::path path(m_options.path);
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const auto [prefix, ext] = name_parts();
    struct Backup {
      fs::path path;
      Clock::time_point at;
      bool compressed;
    };
    std::vector<Backup> backups;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with(prefix)) continue;
      for (const bool compressed : {false, true}) {
        const std::string suffix = ext + (compressed ? ".gz" : "");
        if (name.size() <= prefix.size() + suffix.size() || !name.ends_with(suffix)) continue;
        const auto stamp = parse_backup_stamp(
            std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
        if (stamp) backups.push_back({entry.path(), *stamp, compressed});
      }
    }
    std::ranges::sort(backups, [](const Backup& a, const Backup& b) { return a.at > b.at; });
    const auto cutoff = Clock::now() - std::chrono::hours(24) * m_options.max_age_days;
    std::size_t kept = 0;
    for (const auto& backup : backups) {
      const bool too_many = m_options.max_backups > 0 && kept >= static_cast<std::size_t>(m_options.max_backups);
      const bool too_old = m_options.max_age_days > 0 && backup.at < cutoff;
      if (too_many || too_old) {
        fs::remove(backup.path, error);
        continue;
      }
      ++kept;
      if (m_options.compress && !backup.compressed) gzip_file(backup.path, backup.path.string() + ".gz");
    }
  }

  LogOptions m_options;
  int m_fd = -1;
  std::uint64_t m_size = 0;  // bytes in the file
};

Result<LogMode> parse_log_mode(const std::string& text) {
  if (text == "batch") return LogMode::batch;
  if (text == "blocking") return LogMode::blocking;
  if (text == "blocking-strict") return LogMode::blocking_strict;
  return fail("invalid audit log mode " + text + ", allowed modes are \"batch,blocking,blocking-strict\"");
}

Result<void> check_log_options(const LogOptions& options, const std::string& format) {
  if (format != "json" && format != "legacy")
    return fail("invalid audit log format " + format + ", allowed formats are \"legacy,json\"");
  if (options.max_age_days < 0)
    return fail("--audit-log-maxage " + std::to_string(options.max_age_days) + " can't be a negative number");
  if (options.max_backups < 0)
    return fail("--audit-log-maxbackup " + std::to_string(options.max_backups) + " can't be a negative number");
  if (options.max_size_mb < 0)
    return fail("--audit-log-maxsize " + std::to_string(options.max_size_mb) + " can't be a negative number");
  if (options.buffer_size == 0) return fail("invalid audit batch log buffer size 0, must be a positive number");
  return {};
}

LogBackend::LogBackend(LogOptions options) : m_options(std::move(options)) {}

Result<std::unique_ptr<LogBackend>> LogBackend::open(LogOptions options) {
  auto backend = std::unique_ptr<LogBackend>(new LogBackend(std::move(options)));
  auto output = Output::open(backend->m_options);
  if (!output) return std::unexpected(output.error());
  backend->m_output = std::move(*output);
  // Blocking mode writes on the callers' threads; only batch mode has a writer.
  if (backend->m_options.mode == LogMode::batch) backend->m_writer = std::thread([raw = backend.get()] { raw->run(); });
  return backend;
}

LogBackend::~LogBackend() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_writer.joinable()) m_writer.join();
}

bool LogBackend::process(const Event& event) {
  // Encoded into this thread's buffer: no allocation per event once it has grown.
  thread_local std::string line;
  line.clear();
  if (m_options.legacy_format) append_legacy_line(line, event);
  else append_json_line(line, event);
  std::unique_lock lock(m_mutex);
  if (m_options.mode != LogMode::batch) {
    // Blocking: the event is in the file before the request goes on, written here as
    // kube-apiserver's log backend writes it, one write per event; handing it to another
    // thread and waiting would cost two thread switches per event.
    ++m_queued;
    note_written(m_output->write_lines(line));
    return true;
  }
  if (m_batch_events >= m_options.buffer_size) {
    ++m_dropped;
    return false;
  }
  m_batch += line;
  ++m_batch_events;
  ++m_queued;
  // The writer sleeps only on an empty batch, and lingers for more once woken: one wake-up
  // per batch, not per event.
  const bool wake = m_batch_events == 1 || m_batch_events == k_batch_events;
  lock.unlock();
  if (wake) m_wake.notify_one();
  return true;
}

void LogBackend::note_written(const WriteOutcome& outcome) {
  if (outcome.failed > 0) {
    m_write_errors += outcome.failed;
    if (!m_failing) std::cerr << "kw serve: audit log: " << outcome.error.message << "\n";
  }
  m_failing = outcome.failed > 0;
}

std::uint64_t LogBackend::events() const {
  std::lock_guard lock(m_mutex);
  return m_queued;
}

std::uint64_t LogBackend::dropped() const {
  std::lock_guard lock(m_mutex);
  return m_dropped;
}

std::uint64_t LogBackend::write_errors() const {
  std::lock_guard lock(m_mutex);
  return m_write_errors;
}

void LogBackend::run() {
  std::string batch;
  for (;;) {
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stop || m_batch_events > 0; });
      if (m_batch_events == 0) return;  // stopping, and everything is out
      m_wake.wait_for(lock, k_batch_linger, [&] { return m_stop || m_batch_events >= k_batch_events; });
      batch.swap(m_batch);
      m_batch_events = 0;
    }
    const auto outcome = m_output->write_lines(batch);
    {
      std::lock_guard lock(m_mutex);
      note_written(outcome);
    }
    batch.clear();  // its capacity is the next swap's
  }
}

}  // namespace kw::audit
