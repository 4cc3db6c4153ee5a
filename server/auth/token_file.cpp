#include "server/auth/token_file.hpp"

#include <map>

namespace kw::auth {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::vector<std::string> split_groups(const std::string& field) {
  std::vector<std::string> groups;
  std::size_t start = 0;
  while (start <= field.size()) {
    const std::size_t comma = std::min(field.find(',', start), field.size());
    const std::string_view group = trim(std::string_view(field).substr(start, comma - start));
    if (!group.empty()) groups.emplace_back(group);
    start = comma + 1;
  }
  return groups;
}

Result<TokenEntry> parse_line(std::string_view line) {
  auto fields = split_csv_record(line);
  if (!fields) return std::unexpected(fields.error());
  if (fields->size() < 3) {
    return fail("expected at least 3 fields (token, user name, user uid), found " + std::to_string(fields->size()));
  }
  const auto& f = *fields;
  if (f[0].empty()) return fail("the token is empty");
  if (f[1].empty()) return fail("the user name is empty");
  TokenEntry entry{.token = f[0], .user = UserInfo{.name = f[1], .groups = {}, .uid = f[2], .extra = {}}};
  if (f.size() >= 4) entry.user.groups = split_groups(f[3]);
  return entry;
}

}  // namespace

Result<std::vector<std::string>> split_csv_record(std::string_view line) {
  std::vector<std::string> fields(1);
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == ',') {
      fields.emplace_back();
      ++i;
    } else if (c == '"' && fields.back().empty()) {
      // A quoted field runs to the closing quote; "" inside is a literal quote.
      std::string& field = fields.back();
      ++i;
      for (;; ++i) {
        if (i >= line.size()) return fail("a quoted field is not closed");
        if (line[i] != '"') {
          field.push_back(line[i]);
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          break;
        }
      }
      ++i;
      if (i < line.size() && line[i] != ',') return fail("unexpected text after a closing quote");
    } else if (c == '"') {
      return fail("a bare \" inside an unquoted field (quote the whole field and double the quote)");
    } else {
      fields.back().push_back(c);
      ++i;
    }
  }
  return fields;
}

Result<std::vector<TokenEntry>> parse_token_file(std::string_view text, const std::string& source) {
  std::vector<TokenEntry> entries;
  std::map<std::string, std::size_t> first_line;  // token -> the line giving it
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.empty() || line.front() == '#') continue;
    auto entry = parse_line(line);
    if (!entry) {
      return fail("token file " + source + ", line " + std::to_string(line_number) + ": " + entry.error().message);
    }
    const auto [previous, inserted] = first_line.emplace(entry->token, line_number);
    if (!inserted) {
      return fail("token file " + source + ", line " + std::to_string(line_number) + ": the token of line " +
                  std::to_string(previous->second) + " again; every token must be unique");
    }
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace kw::auth
