#pragma once
// A ResponseStream that keeps what a handler sends (head, body, how it ended) for unit tests
// that call handlers directly, without a transport.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/net/server/http_server.hpp"

namespace kw::testing {

class RecordingStream : public net::ResponseStream {
 public:
  void add_header(net::Header header) override { m_added.push_back(std::move(header)); }
  void begin(net::ResponseHead head) override {
    m_head = std::move(head);
    for (auto& header : m_added) m_head.headers.push_back(std::move(header));
  }
  using net::ResponseStream::write;
  bool write(std::shared_ptr<const std::string> bytes) override {
    m_body += *bytes;
    return true;
  }
  void flush() override {}
  void finish() override { m_finished = true; }
  void abort() override { m_aborted = true; }
  std::size_t queued_bytes() const override { return 0; }
  bool closed() const override { return false; }
  void on_close(std::function<void()>) override {}
  void on_sent(std::function<void(std::size_t)>) override {}
  void on_receive(std::function<bool(std::string_view)>) override {}
  void resume_receive() override {}
  net::Protocol protocol() const override { return net::Protocol::http1; }

  const net::ResponseHead& head() const { return m_head; }
  int status() const { return m_head.status; }
  // The value of the first header named `name` (as the handler wrote it), or "".
  std::string header(std::string_view name) const {
    for (const auto& h : m_head.headers)
      if (h.name == name) return h.value;
    return "";
  }
  const std::string& body() const { return m_body; }
  bool finished() const { return m_finished; }
  bool aborted() const { return m_aborted; }

 private:
  net::ResponseHead m_head;
  net::Headers m_added;
  std::string m_body;
  bool m_finished = false;
  bool m_aborted = false;
};

}  // namespace kw::testing
