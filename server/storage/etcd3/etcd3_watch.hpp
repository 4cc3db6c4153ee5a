#pragma once
// One etcd watch stream per WatchHandle, resumed from the last seen revision when it breaks
// (private to this folder). Each handle has two threads: one reads the stream, the other
// sends a progress request when the stream has been quiet for half of watch_liveness_timeout
// and cancels it (to resume on the next endpoint) when it stays silent for all of it.
// Progress reports go through a ProgressGate, so that none runs ahead of the events.
#include <memory>
#include <string>

#include "server/storage/etcd3/etcd_client.hpp"

namespace kw::storage::etcd3 {

// etcd's range end for every key starting with prefix ("\0" = no upper bound).
std::string range_end(const std::string& prefix);
KeyValue to_key_value(const mvccpb::KeyValue& kv);
// The same, moving the key and value out of `kv` (left empty).
KeyValue take_key_value(mvccpb::KeyValue& kv);

std::unique_ptr<WatchHandle> start_watch(std::shared_ptr<Client> client, const std::string& prefix,
                                         Revision after_revision, WatchCallbacks callbacks);

}  // namespace kw::storage::etcd3
