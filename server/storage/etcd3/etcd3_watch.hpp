#pragma once
// One etcd watch stream per WatchHandle, resumed from the last seen revision when it breaks
// (private to this folder).
#include <memory>
#include <string>

#include "server/storage/etcd3/etcd_client.hpp"

namespace kw::storage::etcd3 {

// The smallest key above every key starting with prefix ("\0" = no upper bound).
std::string prefix_end(const std::string& prefix);
KeyValue to_key_value(const mvccpb::KeyValue& kv);

std::unique_ptr<WatchHandle> start_watch(std::shared_ptr<Client> client, const std::string& prefix,
                                         Revision after_revision, WatchCallbacks callbacks);

}  // namespace kw::storage::etcd3
