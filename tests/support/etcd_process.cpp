#include "support/etcd_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

namespace kw::testing {
namespace {

constexpr const char* k_etcd = "/usr/bin/etcd";

std::string url(int port) { return "http://127.0.0.1:" + std::to_string(port); }

// GET /health on a member's client port; true when it reports a healthy cluster.
bool member_healthy(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char buffer[1024];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) reply.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return reply.find("\"health\":\"true\"") != std::string::npos;
}

}  // namespace

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind a free port on 127.0.0.1");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

EtcdCluster::EtcdCluster(int members) : m_dir("kw-etcd") {
  for (int i = 0; i < members; ++i) {
    Member member{"m" + std::to_string(i), free_port(), free_port(), -1};
    if (!m_initial_cluster.empty()) m_initial_cluster += ",";
    m_initial_cluster += member.name + "=" + url(member.peer_port);
    m_members.push_back(member);
  }
  for (int i = 0; i < members; ++i) start(i, false);
  if (!wait_healthy()) {
    for (int i = 0; i < members; ++i) kill(i);
    throw std::runtime_error("etcd did not become healthy; see the logs under " + m_dir.path());
  }
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) kill(i);
}

std::vector<std::string> EtcdCluster::client_urls() const {
  std::vector<std::string> urls;
  for (const auto& member : m_members) urls.push_back(url(member.client_port));
  return urls;
}

std::string EtcdCluster::client_url(int member) const { return url(m_members.at(member).client_port); }

void EtcdCluster::start(int index, bool existing) {
  Member& member = m_members.at(index);
  const std::string data_dir = m_dir.path() + "/" + member.name;
  const std::string log = m_dir.path() + "/" + member.name + ".log";
  std::vector<std::string> args = {
      k_etcd,
      "--name", member.name,
      "--data-dir", data_dir,
      "--listen-client-urls", url(member.client_port),
      "--advertise-client-urls", url(member.client_port),
      "--listen-peer-urls", url(member.peer_port),
      "--initial-advertise-peer-urls", url(member.peer_port),
      "--initial-cluster", m_initial_cluster,
      "--initial-cluster-state", existing ? "existing" : "new",
      "--initial-cluster-token", "kw-test-" + std::to_string(::getpid()),
      "--heartbeat-interval", "50",
      "--election-timeout", "500",
      "--experimental-watch-progress-notify-interval", "1s",
  };
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(k_etcd, argv.data());
    ::_exit(127);
  }
  member.pid = pid;
}

void EtcdCluster::kill(int index) {
  Member& member = m_members.at(index);
  if (member.pid <= 0) return;
  ::kill(member.pid, SIGKILL);
  int status = 0;
  ::waitpid(member.pid, &status, 0);
  member.pid = -1;
}

void EtcdCluster::restart(int index) {
  kill(index);
  start(index, true);
}

bool EtcdCluster::wait_healthy(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    bool all = true;
    for (const auto& member : m_members) {
      if (member.pid > 0 && !member_healthy(member.client_port)) all = false;
    }
    if (all) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace kw::testing
