#pragma once
// Test harness: real etcd members (Debian's /usr/bin/etcd) on free 127.0.0.1 ports in a
// temp dir. Started healthy in the constructor (bounded wait, throws on failure); every
// member is killed and the dir removed in the destructor.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace kw::testing {

class EtcdCluster {
 public:
  explicit EtcdCluster(int members = 1);
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;
  ~EtcdCluster();

  // "http://127.0.0.1:<port>" of every member, in member order.
  std::vector<std::string> client_urls() const;
  std::string client_url(int member) const;
  int size() const { return static_cast<int>(m_members.size()); }

  // SIGKILLs a member and reaps it.
  void kill(int member);
  // Starts a killed member again on its data dir and ports.
  void restart(int member);
  // True once every running member answers /health with "true" (bounded by timeout).
  bool wait_healthy(std::chrono::milliseconds timeout = std::chrono::seconds(15)) const;

 private:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
  };
  void start(int member, bool existing);

  TempDir m_dir;
  std::vector<Member> m_members;
  std::string m_initial_cluster;
};

// A single-member etcd.
using EtcdProcess = EtcdCluster;

// A port nothing listens on right now (bound and released).
int free_port();

}  // namespace kw::testing
