#include "server/storage/etcd3/channel_watcher.hpp"

namespace kw::storage::etcd3 {

ChannelWatcher::ChannelWatcher(std::vector<std::shared_ptr<grpc::Channel>> channels)
    : m_channels(std::move(channels)), m_thread([this] { run(); }) {}

ChannelWatcher::~ChannelWatcher() {
  m_stopping.store(true);
  m_thread.join();
}

void ChannelWatcher::arm(std::size_t index) {
  grpc::Channel& channel = *m_channels[index];
  // try_to_connect: an IDLE channel (its connection closed) starts connecting right away.
  const grpc_connectivity_state state = channel.GetState(true);
  channel.NotifyOnStateChange(state, std::chrono::system_clock::now() + k_slice, &m_queue, &m_channels[index]);
}

void ChannelWatcher::run() {
  std::size_t armed = 0;
  for (std::size_t i = 0; i < m_channels.size(); ++i, ++armed) arm(i);
  void* tag = nullptr;
  bool ok = false;
  // Each Next polls every channel with an armed watch, which is what moves their connects.
  while (armed > 0 && m_queue.Next(&tag, &ok)) {
    --armed;
    if (m_stopping.load()) continue;
    arm(static_cast<std::size_t>(static_cast<std::shared_ptr<grpc::Channel>*>(tag) - m_channels.data()));
    ++armed;
  }
  m_queue.Shutdown();
  while (m_queue.Next(&tag, &ok)) {
  }
}

}  // namespace kw::storage::etcd3
