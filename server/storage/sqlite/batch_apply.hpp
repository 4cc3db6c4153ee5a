#pragma once
// Applies one group-commit batch to the kv table in a single transaction (private to this folder).
//
// Writes are evaluated in order, each against the state left by the ones before it in the
// batch. A write whose precondition fails (exists, conflict, not found) gets that error,
// writes nothing and takes no revision; the writes that pass take consecutive revisions
// from revision + 1. The transaction is committed once. When the transaction itself is lost
// (BEGIN, COMMIT or an I/O error that rolls it back), nothing is committed and every write
// of the batch gets that error.
#include <span>
#include <vector>

#include "server/storage/sqlite/database.hpp"
#include "server/storage/sqlite/group_commit.hpp"

namespace kw::storage::sqlite {

struct AppliedBatch {
  Revision revision = 0;      // the last committed revision after the batch
  std::vector<Event> events;  // the committed writes' events, in revision order
};

// Sets the result of every write in batch. `revision` is the last committed revision.
AppliedBatch apply_batch(Database& db, Revision revision, std::span<PendingWrite*> batch);

}  // namespace kw::storage::sqlite
