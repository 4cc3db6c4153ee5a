#pragma once
// Keeps the connection attempts of the etcd channels moving (private to this folder).
//
// gRPC C++ 1.51 (iomgr) has no I/O thread of its own: a channel's connection attempt makes
// progress only while some thread polls that channel, which is a call waiting on it or the
// backup poller (every 5 s). A fail-fast call on a channel in TRANSIENT_FAILURE returns
// UNAVAILABLE at once without polling, so once etcd went away nothing polled the reconnect
// attempts and each one hit its connect deadline unseen, over and over. The watcher keeps a
// connectivity watch armed on every channel that is not connected, from one thread: the watch
// polls the channel, and an idle channel is asked to connect, so a restarted etcd is reached
// within moments.
//
// While every channel is connected the thread only checks their states now and then, without
// polling: a thread waiting in a poll would take the answers of calls off their sockets and
// have to wake the callers, a thread switch added to every call.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kw::storage::etcd3 {

class ChannelWatcher {
 public:
  explicit ChannelWatcher(std::vector<std::shared_ptr<grpc::Channel>> channels);
  ChannelWatcher(const ChannelWatcher&) = delete;
  ChannelWatcher& operator=(const ChannelWatcher&) = delete;
  // Returns within one watch slice: the armed watches run out, then the queue is drained.
  ~ChannelWatcher();

 private:
  // How long one armed watch lasts, and how often connected channels are checked; bounds the
  // destructor's wait.
  static constexpr std::chrono::milliseconds k_slice{100};

  void run();
  bool stopping();

  std::vector<std::shared_ptr<grpc::Channel>> m_channels;
  grpc::CompletionQueue m_queue;
  std::mutex m_mutex;  // guards m_stopping
  std::condition_variable m_wake;
  bool m_stopping = false;
  std::thread m_thread;  // last: starts once everything above is built
};

}  // namespace kw::storage::etcd3
