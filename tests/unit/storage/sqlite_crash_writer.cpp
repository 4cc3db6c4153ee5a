// Test helper: writes keys to a sqlite backend forever from `threads` writer threads (default
// 1), printing each acknowledged revision on stdout, until it is killed.
// Usage: storage_sqlite_crash_writer <data dir> [threads]
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/storage/sqlite/sqlite_backend.hpp"

namespace {

void write_forever(kw::storage::Backend& backend, int writer, std::mutex& out_mutex) {
  for (long i = 0;; ++i) {
    auto created =
        backend.create("/registry/crash/" + std::to_string(writer) + "-" + std::to_string(i), std::string(100, 'v'));
    if (!created) {
      std::fprintf(stderr, "write failed: %s\n", created.error().message.c_str());
      std::_Exit(1);
    }
    std::lock_guard lock(out_mutex);
    std::printf("%ld\n", static_cast<long>(created->revision));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s <data dir> [threads]\n", argv[0]);
    return 2;
  }
  const int threads = argc == 3 ? std::stoi(argv[2]) : 1;
  auto backend = kw::storage::open_sqlite_backend(kw::storage::SqliteOptions{argv[1]});
  if (!backend) {
    std::fprintf(stderr, "open failed: %s\n", backend.error().message.c_str());
    return 1;
  }
  std::mutex out_mutex;
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) writers.emplace_back([&, t] { write_forever(**backend, t, out_mutex); });
  for (auto& writer : writers) writer.join();
}
