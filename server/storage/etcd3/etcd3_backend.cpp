// The etcd v3 backend: KV operations as etcd transactions.
#include "server/storage/etcd3/etcd3_backend.hpp"

#include "server/storage/etcd3/etcd3_watch.hpp"
#include "server/storage/etcd3/etcd_client.hpp"

namespace kw::storage {
namespace {

using etcd3::Endpoint;
using etcdserverpb::Compare;

void add_compare(etcdserverpb::TxnRequest& txn, const std::string& key, Compare::CompareTarget target,
                 Compare::CompareResult result, Revision revision) {
  Compare* compare = txn.add_compare();
  compare->set_key(key);
  compare->set_target(target);
  compare->set_result(result);
  if (target == Compare::CREATE) {
    compare->set_create_revision(revision);
  } else {
    compare->set_mod_revision(revision);
  }
}

// The failure branch of every guarded write reads the key, to report what was found.
void add_failure_read(etcdserverpb::TxnRequest& txn, const std::string& key) {
  txn.add_failure()->mutable_request_range()->set_key(key);
}

std::optional<KeyValue> failure_read(const etcdserverpb::TxnResponse& response) {
  if (response.responses_size() == 0 || !response.responses(0).has_response_range()) return std::nullopt;
  const auto& range = response.responses(0).response_range();
  if (range.kvs_size() == 0) return std::nullopt;
  return etcd3::to_key_value(range.kvs(0));
}

class Etcd3Store final : public Backend {
 public:
  explicit Etcd3Store(std::shared_ptr<etcd3::Client> client) : m_client(std::move(client)) {}

  Result<KeyValue> get(const std::string& key, Revision revision) override {
    etcdserverpb::RangeRequest request;
    request.set_key(key);
    request.set_revision(revision);
    auto response = range(request, key, "get");
    if (!response) return std::unexpected(response.error());
    if (response->kvs_size() == 0) {
      return failure(ErrorCode::not_found, key, response->header().revision(), "key " + key + " not found");
    }
    return etcd3::take_key_value(*response->mutable_kvs(0));
  }

  Result<ListResult> list(const std::string& prefix, const ListOptions& options) override {
    if (options.limit < 0) return failure(ErrorCode::invalid, "", 0, "list limit must not be negative");
    etcdserverpb::RangeRequest request;
    const std::string start = options.continue_key > prefix ? options.continue_key : prefix;
    request.set_key(start.empty() ? std::string(1, '\0') : start);
    request.set_range_end(etcd3::range_end(prefix));
    request.set_limit(options.limit);
    request.set_revision(options.revision);
    auto response = range(request, prefix, "list");
    if (!response) return std::unexpected(response.error());
    ListResult result;
    result.revision = options.revision > 0 ? options.revision : response->header().revision();
    result.items.reserve(static_cast<std::size_t>(response->kvs_size()));
    for (auto& kv : *response->mutable_kvs()) result.items.push_back(etcd3::take_key_value(kv));
    result.more = response->more();
    if (result.more) result.remaining = response->count() - static_cast<std::int64_t>(result.items.size());
    return result;
  }

  Result<WriteResult> create(const std::string& key, const std::string& value, std::chrono::seconds ttl) override {
    if (auto ok = check_write(key, value); !ok) return std::unexpected(ok.error());
    if (ttl.count() < 0) return failure(ErrorCode::invalid, key, 0, "ttl must not be negative");
    std::int64_t lease = 0;
    if (ttl.count() > 0) {
      auto granted = grant_lease(ttl, key);
      if (!granted) return std::unexpected(granted.error());
      lease = *granted;
    }
    etcdserverpb::TxnRequest txn;
    add_compare(txn, key, Compare::CREATE, Compare::EQUAL, 0);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(value);
    put->set_lease(lease);
    add_failure_read(txn, key);
    auto response = run_txn(txn, key, "create");
    if (response && !response->succeeded()) {
      if (lease != 0) revoke_lease(lease);
      const auto found = failure_read(*response);
      return failure(ErrorCode::exists, key, found ? found->mod_revision : 0, "key " + key + " already exists");
    }
    if (!response) {
      if (lease != 0) revoke_lease(lease);
      return std::unexpected(response.error());
    }
    return WriteResult{response->header().revision()};
  }

  Result<WriteResult> update(const std::string& key, const std::string& value,
                             Revision expected_mod_revision) override {
    if (auto ok = check_write(key, value); !ok) return std::unexpected(ok.error());
    etcdserverpb::TxnRequest txn;
    add_compare(txn, key, Compare::CREATE, Compare::GREATER, 0);
    add_compare(txn, key, Compare::MOD, Compare::EQUAL, expected_mod_revision);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(value);
    put->set_ignore_lease(true);  // a key with a TTL keeps it
    add_failure_read(txn, key);
    auto response = run_txn(txn, key, "update");
    if (!response) return std::unexpected(response.error());
    if (!response->succeeded()) return guard_failure(*response, key, expected_mod_revision);
    return WriteResult{response->header().revision()};
  }

  Result<WriteResult> remove(const std::string& key, std::optional<Revision> expected_mod_revision) override {
    etcdserverpb::TxnRequest txn;
    add_compare(txn, key, Compare::CREATE, Compare::GREATER, 0);
    if (expected_mod_revision) add_compare(txn, key, Compare::MOD, Compare::EQUAL, *expected_mod_revision);
    auto* del = txn.add_success()->mutable_request_delete_range();
    del->set_key(key);
    add_failure_read(txn, key);
    auto response = run_txn(txn, key, "delete");
    if (!response) return std::unexpected(response.error());
    if (!response->succeeded()) return guard_failure(*response, key, expected_mod_revision.value_or(0));
    return WriteResult{response->header().revision()};
  }

  Result<std::unique_ptr<WatchHandle>> watch(const std::string& prefix, Revision after_revision,
                                             WatchCallbacks callbacks) override {
    if (after_revision < 0) return failure(ErrorCode::invalid, "", 0, "watch revision must not be negative");
    return etcd3::start_watch(m_client, prefix, after_revision, std::move(callbacks));
  }

  Result<Revision> current_revision() override {
    etcdserverpb::RangeRequest request;
    request.set_key(std::string(1, '\0'));
    request.set_count_only(true);
    auto response = range(request, "", "read the current revision");
    if (!response) return std::unexpected(response.error());
    return response->header().revision();
  }

  Result<void> compact(Revision revision) override {
    if (revision <= 0) return failure(ErrorCode::invalid, "", 0, "compaction revision must be positive");
    etcdserverpb::CompactionRequest request;
    request.set_revision(revision);
    etcdserverpb::CompactionResponse response;
    auto done = m_client->call("compact", "", [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.kv->Compact(&context, request, &response);
    });
    if (!done && done.error().code != ErrorCode::compacted) return std::unexpected(done.error());
    Revision known = m_compacted_hint.load();
    while (known < revision && !m_compacted_hint.compare_exchange_weak(known, revision)) {
    }
    return {};
  }

  // etcd has no call for it: the oldest revision a read still succeeds at, found by bisection.
  Result<Revision> compacted_revision() override {
    auto now = current_revision();
    if (!now) return std::unexpected(now.error());
    Revision low = std::max<Revision>(m_compacted_hint.load(), 1);  // readable or the answer's lower bound
    Revision high = *now;                                            // always readable
    auto readable = [&](Revision revision) -> Result<bool> {
      etcdserverpb::RangeRequest request;
      request.set_key(std::string(1, '\0'));
      request.set_count_only(true);
      request.set_revision(revision);
      etcdserverpb::RangeResponse response;
      auto done = m_client->call("read the compacted revision", "", [&](Endpoint& endpoint, grpc::ClientContext& c) {
        return endpoint.kv->Range(&c, request, &response);
      });
      if (done) return true;
      if (done.error().code == ErrorCode::compacted) return false;
      return std::unexpected(done.error());
    };
    auto low_ok = readable(low);
    if (!low_ok) return std::unexpected(low_ok.error());
    if (*low_ok) return low == 1 ? 0 : low;
    while (high - low > 1) {  // low unreadable, high readable
      const Revision mid = low + (high - low) / 2;
      auto ok = readable(mid);
      if (!ok) return std::unexpected(ok.error());
      (*ok ? high : low) = mid;
    }
    return high;
  }

  Result<void> health() override {
    auto revision = current_revision();
    if (!revision) return std::unexpected(revision.error());
    etcdserverpb::StatusRequest request;
    etcdserverpb::StatusResponse response;
    auto done = m_client->call("status", "", [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.maintenance->Status(&context, request, &response);
    });
    if (!done) return std::unexpected(done.error());
    if (response.errors_size() > 0) {
      return failure(ErrorCode::unavailable, "", 0, "etcd reports: " + response.errors(0));
    }
    return {};
  }

 private:
  Result<void> check_write(const std::string& key, const std::string& value) const {
    if (key.empty()) return failure(ErrorCode::invalid, key, 0, "the key must not be empty");
    if (value.size() > max_value_size()) {
      return failure(ErrorCode::too_large, key, 0,
                   "value of " + std::to_string(value.size()) + " bytes for key " + key +
                       " is above the etcd request limit of " + std::to_string(max_value_size()) +
                       " bytes; store a smaller object");
    }
    return {};
  }

  Result<etcdserverpb::RangeResponse> range(const etcdserverpb::RangeRequest& request, const std::string& key,
                                            const std::string& what) {
    etcdserverpb::RangeResponse response;
    auto done = m_client->call(what, key, [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.kv->Range(&context, request, &response);
    });
    if (!done) return std::unexpected(with_compacted_revision(done.error()));
    return response;
  }

  Result<etcdserverpb::TxnResponse> run_txn(const etcdserverpb::TxnRequest& txn, const std::string& key,
                                            const std::string& what) {
    etcdserverpb::TxnResponse response;
    auto done = m_client->call(what, key, [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.kv->Txn(&context, txn, &response);
    });
    if (!done) return std::unexpected(done.error());
    return response;
  }

  std::unexpected<Error> guard_failure(const etcdserverpb::TxnResponse& response, const std::string& key,
                                       Revision expected) {
    const auto found = failure_read(response);
    if (!found) return failure(ErrorCode::not_found, key, response.header().revision(), "key " + key + " not found");
    return failure(ErrorCode::conflict, key, found->mod_revision,
                 "key " + key + " was modified at revision " + std::to_string(found->mod_revision) + ", not " +
                     std::to_string(expected) + "; read it again and retry");
  }

  Error with_compacted_revision(Error failure) {
    if (failure.code != ErrorCode::compacted) return failure;
    if (auto compacted = compacted_revision(); compacted) failure.revision = *compacted;
    return failure;
  }

  Result<std::int64_t> grant_lease(std::chrono::seconds ttl, const std::string& key) {
    etcdserverpb::LeaseGrantRequest request;
    request.set_ttl(ttl.count());
    etcdserverpb::LeaseGrantResponse response;
    auto done = m_client->call("lease grant", key, [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.lease->LeaseGrant(&context, request, &response);
    });
    if (!done) return std::unexpected(done.error());
    if (!response.error().empty()) return failure(ErrorCode::unavailable, key, 0, "etcd lease grant: " + response.error());
    return response.id();
  }

  void revoke_lease(std::int64_t lease) {
    etcdserverpb::LeaseRevokeRequest request;
    request.set_id(lease);
    etcdserverpb::LeaseRevokeResponse response;
    (void)m_client->call("lease revoke", "", [&](Endpoint& endpoint, grpc::ClientContext& context) {
      return endpoint.lease->LeaseRevoke(&context, request, &response);
    });
  }

  std::shared_ptr<etcd3::Client> m_client;
  std::atomic<Revision> m_compacted_hint{0};  // highest revision this process compacted at
};

}  // namespace

Result<std::unique_ptr<Backend>> open_etcd3_backend(const Etcd3Options& options) {
  auto client = etcd3::Client::connect(options);
  if (!client) return std::unexpected(client.error());
  return std::make_unique<Etcd3Store>(std::move(*client));
}

}  // namespace kw::storage
