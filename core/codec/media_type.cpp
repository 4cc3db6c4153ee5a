#include "core/codec/media_type.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/util/text.hpp"

namespace kw::codec {
namespace {

bool is_tchar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

using util::iequals;
using util::to_lower;

std::string show(std::string_view s) { return "\"" + std::string(s) + "\""; }

// A cursor over one header value.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : m_text(text) {}

  void skip_space() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t')) ++m_pos;
  }
  bool at_end() const { return m_pos >= m_text.size(); }
  char peek() const { return at_end() ? '\0' : m_text[m_pos]; }
  bool consume(char c) {
    if (peek() != c || at_end()) return false;
    ++m_pos;
    return true;
  }
  std::string_view token() {
    std::size_t start = m_pos;
    while (!at_end() && is_tchar(m_text[m_pos])) ++m_pos;
    return m_text.substr(start, m_pos - start);
  }
  Result<std::string> quoted_string() {
    ++m_pos;  // opening quote
    std::string out;
    while (!at_end()) {
      char c = m_text[m_pos++];
      if (c == '"') return out;
      if (c == '\\') {
        if (at_end()) break;
        c = m_text[m_pos++];
      }
      out += c;
    }
    return fail("unterminated quoted string in media type " + show(m_text));
  }
  std::size_t position() const { return m_pos; }
  std::string_view text() const { return m_text; }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
};

Result<double> parse_q(std::string_view text, std::string_view value) {
  // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
  bool ok = !value.empty() && (value[0] == '0' || value[0] == '1') && value.size() <= 5;
  if (ok && value.size() > 1) {
    ok = value[1] == '.' && std::all_of(value.begin() + 2, value.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  double q = ok ? std::strtod(std::string(value).c_str(), nullptr) : -1;
  if (!ok || q > 1.0) return fail("invalid q value " + show(value) + " in " + show(text) + ": it must be a number from 0 to 1 with at most 3 decimals");
  return q;
}

// Parses one media range at the scanner's position, stopping before ',' or the end.
Result<MediaType> parse_one(Scanner& in, bool accept_entry) {
  MediaType mt;
  in.skip_space();
  std::string_view type = in.token();
  if (type.empty() || !in.consume('/'))
    return fail("invalid media type " + show(in.text()) + ": expected type/subtype such as \"application/json\"");
  std::string_view subtype = in.token();
  if (subtype.empty())
    return fail("invalid media type " + show(in.text()) + ": missing subtype after \"" + std::string(type) + "/\"");
  mt.type = to_lower(type);
  mt.subtype = to_lower(subtype);
  if (mt.type == "*" && mt.subtype != "*")
    return fail("invalid media type " + show(in.text()) + ": a wildcard type needs a wildcard subtype (\"*/*\")");
  while (true) {
    in.skip_space();
    if (in.at_end() || (accept_entry && in.peek() == ',')) return mt;
    if (!in.consume(';'))
      return fail("invalid media type " + show(in.text()) + ": unexpected '" + std::string(1, in.peek()) + "' at position " + std::to_string(in.position()));
    in.skip_space();
    if (in.at_end() || in.peek() == ',' || in.peek() == ';') continue;  // tolerate empty params
    std::string_view name = in.token();
    if (name.empty() || !in.consume('='))
      return fail("invalid media type " + show(in.text()) + ": expected name=value parameter at position " + std::to_string(in.position()));
    std::string value;
    if (in.peek() == '"') {
      auto q = in.quoted_string();
      if (!q) return std::unexpected(q.error());
      value = std::move(*q);
    } else {
      value = std::string(in.token());
      if (value.empty())
        return fail("invalid media type " + show(in.text()) + ": parameter \"" + std::string(name) + "\" has no value");
    }
    std::string key = to_lower(name);
    if (accept_entry && key == "q") {
      auto q = parse_q(in.text(), value);
      if (!q) return std::unexpected(q.error());
      mt.q = *q;
      continue;
    }
    mt.params.emplace_back(std::move(key), std::move(value));
  }
}

bool needs_quotes(std::string_view value) {
  return value.empty() || !std::all_of(value.begin(), value.end(), is_tchar);
}

}  // namespace

std::string MediaType::essence() const { return type + "/" + subtype; }

const std::string* MediaType::param(std::string_view name) const {
  for (const auto& [key, value] : params)
    if (iequals(key, name)) return &value;
  return nullptr;
}

std::string MediaType::to_string() const {
  std::string out = essence();
  for (const auto& [key, value] : params) {
    out += ";" + key + "=";
    if (!needs_quotes(value)) {
      out += value;
      continue;
    }
    out += '"';
    for (char c : value) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

Result<MediaType> parse_media_type(std::string_view text) {
  Scanner in(text);
  auto mt = parse_one(in, false);
  if (!mt) return mt;
  return mt;
}

Result<std::vector<MediaType>> parse_accept(std::string_view text) {
  std::vector<MediaType> out;
  Scanner in(text);
  while (true) {
    in.skip_space();
    if (in.at_end()) return out;
    if (in.consume(',')) continue;  // empty list elements are allowed
    auto mt = parse_one(in, true);
    if (!mt) return std::unexpected(mt.error());
    out.push_back(std::move(*mt));
    in.skip_space();
    if (!in.at_end() && !in.consume(','))
      return fail("invalid Accept header " + show(text) + ": expected ',' at position " + std::to_string(in.position()));
  }
}

namespace {

constexpr std::string_view k_exact_params[] = {"as", "g", "v"};

bool same_param(const MediaType& a, const MediaType& b, std::string_view name) {
  const std::string* x = a.param(name);
  const std::string* y = b.param(name);
  if (!x || !y) return x == y;
  return *x == *y;
}

// How specifically `range` matches `offer`, or -1 when it does not.
int match_specificity(const MediaType& range, const MediaType& offer) {
  int score = 0;
  if (range.type == "*") {
    score = 0;
  } else if (range.type != offer.type) {
    return -1;
  } else if (range.subtype == "*") {
    score = 100;
  } else if (range.subtype != offer.subtype) {
    return -1;
  } else {
    score = 200;
  }
  for (std::string_view name : k_exact_params) {
    if (!same_param(range, offer, name)) return -1;
    if (range.param(name)) ++score;
  }
  if (const std::string* stream = range.param("stream")) {
    const std::string* offered = offer.param("stream");
    if (!offered || *offered != *stream) return -1;
    ++score;
  }
  return score;
}

}  // namespace

std::optional<std::size_t> negotiate(const std::vector<MediaType>& accepted,
                                     const std::vector<MediaType>& offered) {
  if (offered.empty()) return std::nullopt;
  if (accepted.empty()) return 0;
  struct Candidate {
    double q;
    int specificity;
    std::size_t range_index;
    std::size_t offer_index;
  };
  std::optional<Candidate> best;
  for (std::size_t o = 0; o < offered.size(); ++o) {
    // The most specific matching range decides this offer's q (RFC 9110 12.5.1).
    std::optional<Candidate> mine;
    for (std::size_t r = 0; r < accepted.size(); ++r) {
      int s = match_specificity(accepted[r], offered[o]);
      if (s < 0) continue;
      if (!mine || s > mine->specificity) mine = Candidate{accepted[r].q, s, r, o};
    }
    if (!mine || mine->q <= 0) continue;
    auto better = [](const Candidate& a, const Candidate& b) {
      if (a.q != b.q) return a.q > b.q;
      if (a.specificity != b.specificity) return a.specificity > b.specificity;
      if (a.range_index != b.range_index) return a.range_index < b.range_index;
      return a.offer_index < b.offer_index;
    };
    if (!best || better(*mine, *best)) best = mine;
  }
  if (!best) return std::nullopt;
  return best->offer_index;
}

}  // namespace kw::codec
