#pragma once
// The etcd v3 storage backend: the Backend seam over a real etcd cluster (gRPC).
// Keys are used as given (the REST layer adds its /registry prefix).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "server/storage/backend.hpp"

namespace kw::storage {

struct Etcd3Options {
  // "http://host:port", "https://host:port" or "host:port"; tried in order, the next on UNAVAILABLE.
  std::vector<std::string> endpoints;
  // PEM files; a CA (or an https endpoint) turns TLS on, cert+key add a client certificate.
  std::string ca_file, cert_file, key_file;
  // The deadline of every call (all failover attempts included).
  std::chrono::milliseconds request_timeout{5000};
  // How long a broken watch keeps reconnecting before it reports `unavailable`.
  std::chrono::milliseconds watch_retry_limit{60000};
  // A watch stream silent for half of this is sent a progress request; silent for all of it,
  // it is given up and resumed on the next endpoint (no gap, no duplicate). 0 turns it off.
  std::chrono::milliseconds watch_liveness_timeout{10000};
};

// Connects lazily: opening succeeds without a reachable etcd; calls then fail with
// unavailable/timeout within request_timeout. Watch handles must be destroyed before the backend.
Result<std::unique_ptr<Backend>> open_etcd3_backend(const Etcd3Options& options);

}  // namespace kw::storage
