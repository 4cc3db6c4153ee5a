#include "server/storage/sqlite/batch_apply.hpp"

#include <limits>

#include "server/storage/sqlite/rows.hpp"

namespace kw::storage::sqlite {
namespace {

constexpr Revision k_latest = std::numeric_limits<Revision>::max();

std::unexpected<Error> conflict(const std::string& key, Revision found, Revision expected) {
  return failure(ErrorCode::conflict, key, found,
               "key " + key + " was modified at revision " + std::to_string(found) + ", not " +
                   std::to_string(expected) + "; read it again and retry");
}

// The row `request` writes at revision `rev` given the key's latest row, or why it cannot.
Result<Row> plan_write(const WriteRequest& request, const std::optional<Row>& latest, Revision rev) {
  const bool live = latest && !latest->deleted;
  const std::string& key = request.key;
  if (request.kind == WriteKind::create) {
    if (live) return failure(ErrorCode::exists, key, latest->rev, "key " + key + " already exists");
    return Row{rev, key, request.value, rev, 0, false, request.expires_at};
  }
  if (!live) return failure(ErrorCode::not_found, key, rev - 1, "key " + key + " not found");
  if (request.expected && latest->rev != *request.expected) return conflict(key, latest->rev, *request.expected);
  if (request.kind == WriteKind::update) {
    // The key keeps its TTL deadline, like an etcd put with ignore_lease.
    return Row{rev, key, request.value, latest->create_rev, latest->rev, false, latest->expires_at};
  }
  return Row{rev, key, "", 0, latest->rev, true, 0};
}

// Reads, checks and inserts one write. An error leaves the batch's other writes alone unless
// the connection's transaction was lost, which the caller checks.
Result<Row> apply_one(Database& db, const WriteRequest& request, Revision rev) {
  auto latest = read_latest_row(db, request.key, k_latest);
  if (!latest) return std::unexpected(latest.error());
  auto row = plan_write(request, *latest, rev);
  if (!row) return row;
  if (auto inserted = insert_row(db, *row); !inserted) return std::unexpected(inserted.error());
  return row;
}

void fail_all(std::span<PendingWrite*> batch, const Error& failure) {
  for (PendingWrite* write : batch) {
    Error error = failure;
    error.key = write->request.key;
    write->result = std::unexpected(std::move(error));
  }
}

}  // namespace

AppliedBatch apply_batch(Database& db, Revision revision, std::span<PendingWrite*> batch) {
  AppliedBatch applied{revision, {}};
  auto txn = Transaction::begin(db, true);
  if (!txn) {
    fail_all(batch, txn.error());
    return applied;
  }
  std::vector<Event> events;
  std::vector<WriteResult> results(batch.size());
  std::vector<bool> written(batch.size(), false);
  Revision next = revision + 1;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto row = apply_one(db, batch[i]->request, next);
    if (!row) {
      if (!db.in_transaction()) {
        fail_all(batch, row.error());
        return applied;
      }
      batch[i]->result = std::unexpected(row.error());
      continue;
    }
    results[i].revision = next++;
    Event event{row->deleted ? EventType::del : EventType::put, row->to_kv()};
    if (row->deleted) event.kv.create_revision = 0;
    events.push_back(std::move(event));
    written[i] = true;
  }
  if (events.empty()) return applied;  // nothing to commit; the transaction rolls back
  if (auto committed = txn->commit(); !committed) {
    fail_all(batch, committed.error());
    return applied;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (written[i]) batch[i]->result = std::move(results[i]);
  }
  applied.revision = next - 1;
  applied.events = std::move(events);
  return applied;
}

}  // namespace kw::storage::sqlite
