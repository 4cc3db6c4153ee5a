// Test helper: writes keys to a sqlite backend forever, printing each acknowledged
// revision on stdout, until it is killed. Usage: storage_sqlite_crash_writer <data dir>
#include <cstdio>
#include <string>

#include "server/storage/sqlite/sqlite_backend.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <data dir>\n", argv[0]);
    return 2;
  }
  auto backend = kw::storage::open_sqlite_backend(kw::storage::SqliteOptions{argv[1]});
  if (!backend) {
    std::fprintf(stderr, "open failed: %s\n", backend.error().message.c_str());
    return 1;
  }
  for (long i = 0;; ++i) {
    auto created = (*backend)->create("/registry/crash/" + std::to_string(i), std::string(100, 'v'));
    if (!created) {
      std::fprintf(stderr, "write failed: %s\n", created.error().message.c_str());
      return 1;
    }
    std::printf("%ld\n", static_cast<long>(created->revision));
    std::fflush(stdout);
  }
}
