// Kubernetes' URL library: url(), isURL(), getScheme, getHost, getHostname, getPort,
// getEscapedPath, getQuery. URLs are read as Go's url.ParseRequestURI reads them: an
// absolute URL or an absolute path, no fragment splitting.
#include <algorithm>

#include "core/cel/functions.hpp"
#include "core/util/error.hpp"
#include "core/util/text.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

struct Url {
  std::string scheme = {};
  std::string host = {};  // with the port, as u.Host
  std::string path = {};  // escaped, as written
  std::string query = {};
  std::string opaque = {};
};

class UrlObject : public Object {
 public:
  explicit UrlObject(Url url) : m_url(std::move(url)) {}
  std::string_view type_name() const override { return "kubernetes.URL"; }
  bool equals(const Object& other) const override {
    auto* u = dynamic_cast<const UrlObject*>(&other);
    return u != nullptr && u->m_url.scheme == m_url.scheme && u->m_url.host == m_url.host &&
           u->m_url.path == m_url.path && u->m_url.query == m_url.query;
  }
  const Url& url() const { return m_url; }

 private:
  Url m_url;
};

bool scheme_char(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return alpha || (!first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
}

kw::Result<Url> parse_request_uri(std::string_view text) {
  std::string quoted = "parse " + util::go_quote(text) + ": ";
  if (text.empty()) return fail(quoted + "empty url");
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return fail(quoted + "net/url: invalid control character in URL");
    }
  }
  Url url;
  std::string_view rest = text;
  std::size_t colon = rest.find(':');
  if (colon != std::string_view::npos && colon > 0 && scheme_char(rest[0], true)) {
    bool valid = true;
    for (std::size_t i = 1; i < colon; ++i) valid = valid && scheme_char(rest[i], false);
    if (valid) {
      url.scheme = util::to_lower(rest.substr(0, colon));
      rest.remove_prefix(colon + 1);
    }
  } else if (colon == 0) {
    return fail(quoted + "missing protocol scheme");
  }
  std::size_t question = rest.find('?');
  if (question != std::string_view::npos) {
    url.query = std::string(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  if (!rest.starts_with("/")) {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);
      return url;
    }
    return fail(quoted + "invalid URI for request");
  }
  if (rest.starts_with("//") && !url.scheme.empty()) {
    rest.remove_prefix(2);
    std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::size_t at = authority.rfind('@');
    url.host = std::string(at == std::string_view::npos ? authority : authority.substr(at + 1));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  url.path = std::string(rest);
  return url;
}

const Url* url_of(const Value& v) {
  if (v.kind() != Kind::object) return nullptr;
  auto* u = dynamic_cast<const UrlObject*>(&v.as_object());
  return u != nullptr ? &u->url() : nullptr;
}

// Host without its port, and the port ("" when none); IPv6 brackets removed.
std::pair<std::string, std::string> split_host(const std::string& host) {
  if (host.starts_with("[")) {
    std::size_t close = host.find(']');
    if (close == std::string::npos) return {host.substr(1), ""};
    std::string port = host.size() > close + 1 && host[close + 1] == ':' ? host.substr(close + 2) : "";
    return {host.substr(1, close - 1), port};
  }
  std::size_t colon = host.rfind(':');
  if (colon == std::string::npos) return {host, ""};
  return {host.substr(0, colon), host.substr(colon + 1)};
}

Value to_url(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  auto url = parse_request_uri(args[0].as_string());
  if (!url) return Value::error("URL parse error during conversion from string: " + url.error().message);
  return Value(std::shared_ptr<const Object>(std::make_shared<UrlObject>(std::move(*url))));
}

Value is_url(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  return Value(parse_request_uri(args[0].as_string()).has_value());
}

// URL.EscapedPath: what a path may not hold as it is (spaces, quotes, non-ASCII) %-escaped.
std::string escaped_path(std::string_view path) {
  static constexpr std::string_view k_allowed = "-_.~!$&'()*+,;=:@/%";
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || k_allowed.find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += k_hex[u >> 4];
      out += k_hex[u & 15];
    }
  }
  return out;
}

enum class Part { scheme, host, hostname, port, path };

template <Part P>
Value get(Args args, CallContext&) {
  const Url* url = url_of(args[0]);
  if (url == nullptr) return no_such_overload();
  switch (P) {
    case Part::scheme: return Value(url->scheme);
    case Part::host: return Value(url->host);
    case Part::hostname: return Value(split_host(url->host).first);
    case Part::port: return Value(split_host(url->host).second);
    case Part::path: return Value(escaped_path(url->path));
  }
  return no_such_overload();
}

// url.ParseQuery: keys in their order of first appearance, each with its values.
Value get_query(Args args, CallContext&) {
  const Url* url = url_of(args[0]);
  if (url == nullptr) return no_such_overload();
  std::vector<std::pair<std::string, std::vector<Value>>> keys;
  std::string_view rest = url->query;
  while (!rest.empty()) {
    std::size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    std::size_t eq = pair.find('=');
    std::string key = util::percent_decode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? "" : util::percent_decode(pair.substr(eq + 1), true);
    auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; });
    if (it == keys.end()) it = keys.insert(keys.end(), {key, {}});
    it->second.emplace_back(std::move(value));
  }
  Value::Entries entries;
  for (auto& [key, values] : keys) entries.emplace_back(Value(key), Value(std::move(values)));
  return Value::map(std::move(entries));
}

}  // namespace

void add_url_functions(Functions& f) {
  f.add({"url", Style::global, 1, 1, to_url});
  f.add({"isURL", Style::global, 1, 1, is_url});
  f.add({"getScheme", Style::receiver, 1, 1, get<Part::scheme>});
  f.add({"getHost", Style::receiver, 1, 1, get<Part::host>});
  f.add({"getHostname", Style::receiver, 1, 1, get<Part::hostname>});
  f.add({"getPort", Style::receiver, 1, 1, get<Part::port>});
  f.add({"getEscapedPath", Style::receiver, 1, 1, get<Part::path>});
  f.add({"getQuery", Style::receiver, 1, 1, get_query});
}

}  // namespace kw::cel
