#include "server/http/watch_stream.hpp"

#include "core/codec/yaml.hpp"

namespace kw::http {

WatchStream::WatchStream(std::shared_ptr<net::ResponseStream> stream, const api::ResourceInfo& info,
                         Negotiated format, std::size_t max_queued_bytes)
    : m_stream(std::move(stream)), m_info(info), m_format(std::move(format)), m_max_queued(max_queued_bytes) {}

// {"type":...,"object":...} with type first, as kube-apiserver writes it.
std::string event_json(std::string_view type, const nlohmann::json& object) {
  std::string out = "{\"type\":\"";
  out += type;
  out += "\",\"object\":";
  out += object.dump();
  out += "}\n";
  return out;
}

std::string error_event_json(const nlohmann::json& status) { return event_json("ERROR", status); }

std::shared_ptr<const std::string> WatchStream::frame(const cache::WatchEvent& event) {
  const char* type = cache::to_string(event.type());
  const nlohmann::json& object = event.object()->object;
  switch (m_format.format) {
    case Format::json:
      return event.encoded("json", [&] { return event_json(type, object); });
    case Format::yaml:
      return event.encoded("yaml", [&] {
        std::string out = "---\ntype: ";
        out += type;
        out += "\nobject:\n";
        const std::string body = codec::json_to_yaml(object);
        for (std::size_t start = 0; start < body.size();) {
          const auto end = body.find('\n', start);
          out += "  " + body.substr(start, end - start + 1);
          start = end == std::string::npos ? body.size() : end + 1;
        }
        return out;
      });
    case Format::table: {
      auto make = [&](bool with_columns) {
        nlohmann::json table = {{"kind", "Table"},
                                {"apiVersion", "meta.k8s.io/v1"},
                                {"metadata", {{"resourceVersion", std::to_string(event.revision())}}},
                                {"columnDefinitions", with_columns ? table_columns(m_info) : nlohmann::json()},
                                {"rows", nlohmann::json::array()}};
        if (event.type() != cache::EventType::bookmark)
          table["rows"].push_back(table_row(m_info, object, m_format.include_object, std::chrono::system_clock::now()));
        return event_json(type, table);
      };
      if (m_first && event.type() != cache::EventType::bookmark) {
        m_first = false;
        return std::make_shared<const std::string>(make(true));
      }
      return event.encoded("table:" + m_format.include_object, [&] { return make(false); });
    }
  }
  return nullptr;
}

bool WatchStream::try_send(const cache::EventPtr& event) {
  if (closed()) return true;  // dropped; the cache reaps closed sinks
  if (!writable()) return false;
  m_stream->write(frame(*event));
  return true;
}

void WatchStream::send(const cache::EventPtr& event) {
  if (!closed()) m_stream->write(frame(*event));
}

bool WatchStream::writable() const { return m_stream->queued_bytes() <= m_max_queued; }

void WatchStream::flush() {
  if (!closed()) m_stream->flush();
}

void WatchStream::close(const std::string& reason) {
  (void)reason;
  if (m_closed.exchange(true)) return;
  m_stream->finish();
}

bool WatchStream::closed() const { return m_closed.load() || m_stream->closed(); }

}  // namespace kw::http
