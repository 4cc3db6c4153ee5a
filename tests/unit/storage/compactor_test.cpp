// Periodic compaction: one round late, and only one of several servers compacts per round.
#include <doctest/doctest.h>

#include "server/storage/compactor.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/temp_dir.hpp"

using namespace kw::storage;

TEST_CASE("compaction trails one round behind and two compactors never both compact a round") {
  kw::testing::TempDir dir;
  SqliteOptions options;
  options.data_dir = dir.path();
  auto backend = open_sqlite_backend(options);
  REQUIRE(backend);
  Backend& store = **backend;
  Compactor a(store, std::chrono::seconds(0));
  Compactor b(store, std::chrono::seconds(0));
  for (int i = 0; i < 5; ++i) REQUIRE(store.create("/registry/k" + std::to_string(i), "v"));

  // Round 1: a claims the key; nothing is compacted yet (no previous round). b loses.
  auto a1 = a.tick();
  REQUIRE(a1);
  CHECK(*a1 == 0);
  const Revision round_one = 5;  // the revision a saw before its claim write
  auto b1 = b.tick();
  REQUIRE(b1);
  CHECK(*b1 == 0);

  for (int i = 5; i < 10; ++i) REQUIRE(store.create("/registry/k" + std::to_string(i), "v"));
  // Round 2: a compacts what it saw in round 1; b, whose view of the key is stale, does not.
  auto a2 = a.tick();
  REQUIRE(a2);
  CHECK(*a2 == round_one);
  auto b2 = b.tick();
  REQUIRE(b2);
  CHECK(*b2 == 0);
  auto compacted = store.compacted_revision();
  REQUIRE(compacted);
  CHECK(*compacted == round_one);
  auto old = store.get("/registry/k0", 2);
  REQUIRE_FALSE(old);
  CHECK(old.error().code == ErrorCode::compacted);
  CHECK(store.get("/registry/k9"));
}
