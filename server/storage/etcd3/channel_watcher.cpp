#include "server/storage/etcd3/channel_watcher.hpp"

namespace kw::storage::etcd3 {

ChannelWatcher::ChannelWatcher(std::vector<std::shared_ptr<grpc::Channel>> channels)
    : m_channels(std::move(channels)), m_thread([this] { run(); }) {}

ChannelWatcher::~ChannelWatcher() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

bool ChannelWatcher::stopping() {
  std::lock_guard lock(m_mutex);
  return m_stopping;
}

void ChannelWatcher::run() {
  std::vector<bool> armed(m_channels.size(), false);
  std::size_t armed_count = 0;
  while (!stopping()) {
    for (std::size_t i = 0; i < m_channels.size(); ++i) {
      if (armed[i]) continue;
      // try_to_connect: an IDLE channel (its connection closed) starts connecting right away.
      const grpc_connectivity_state state = m_channels[i]->GetState(true);
      if (state == GRPC_CHANNEL_READY) continue;
      m_channels[i]->NotifyOnStateChange(state, std::chrono::system_clock::now() + k_slice, &m_queue, &m_channels[i]);
      armed[i] = true;
      ++armed_count;
    }
    if (armed_count == 0) {
      std::unique_lock lock(m_mutex);
      m_wake.wait_for(lock, k_slice, [&] { return m_stopping; });
      continue;
    }
    // Waiting here polls every channel with an armed watch, which is what moves their connects.
    void* tag = nullptr;
    bool ok = false;
    if (m_queue.AsyncNext(&tag, &ok, std::chrono::system_clock::now() + k_slice) == grpc::CompletionQueue::GOT_EVENT) {
      armed[static_cast<std::size_t>(static_cast<std::shared_ptr<grpc::Channel>*>(tag) - m_channels.data())] = false;
      --armed_count;
    }
  }
  // Every armed watch ends within its slice; then the queue can go.
  m_queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (m_queue.Next(&tag, &ok)) {
  }
}

}  // namespace kw::storage::etcd3
