#include "cli/commands/create_sources.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kw::cli {

namespace {

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > 253) return false;
  return std::ranges::all_of(key, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

class DataCollector {
 public:
  DataCollector(std::string_view kind, std::string_view name) : m_kind(kind), m_name(name) {}

  Result<void> add(DataEntry entry) {
    if (!valid_key(entry.first))
      return fail("\"" + entry.first + "\" is not a valid key name for a " + m_kind +
                  ": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                  "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
    const bool taken = std::ranges::any_of(m_entries, [&](const DataEntry& e) { return e.first == entry.first; });
    if (taken)
      return fail("cannot add key \"" + entry.first + "\", another key by that name already exists in Data for " +
                  m_kind + " \"" + m_name + "\"");
    m_entries.push_back(std::move(entry));
    return {};
  }
  std::vector<DataEntry> take() { return std::move(m_entries); }

 private:
  std::string m_kind, m_name;
  std::vector<DataEntry> m_entries;
};

Result<void> add_file_source(DataCollector& out, const std::string& source) {
  std::string key, path = source;
  if (const auto eq = source.find('='); eq != std::string::npos) {
    key = source.substr(0, eq);
    path = source.substr(eq + 1);
    if (key.empty() || path.empty())
      return fail("key names or file paths cannot be empty: \"" + source + "\"");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (!key.empty()) return fail("cannot give a key name for a directory path");
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::ranges::sort(files);
    for (const auto& file : files) {
      auto content = read_whole_file(file.string());
      if (!content) return fail("error reading " + file.string() + ": " + content.error().message);
      if (auto added = out.add({file.filename().string(), std::move(*content)}); !added) return added;
    }
    return {};
  }
  auto content = read_whole_file(path);
  if (!content) return fail("error reading " + path + ": " + content.error().message);
  return out.add({key.empty() ? std::filesystem::path(path).filename().string() : key, std::move(*content)});
}

}  // namespace

Result<DataEntry> parse_literal(std::string_view literal) {
  const auto eq = literal.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return fail("invalid literal source " + std::string(literal) + ", expected key=value");
  return DataEntry{std::string(literal.substr(0, eq)), std::string(literal.substr(eq + 1))};
}

Result<std::vector<DataEntry>> parse_env_file(std::string_view text, std::string_view path) {
  std::vector<DataEntry> out;
  std::size_t number = 0;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line.erase(0, start);
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("line " + std::to_string(number) + " of " + std::string(path) + " is not KEY=VALUE: " + line);
    out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return out;
}

bool is_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    const std::size_t extra = lead < 0x80 ? 0 : (lead & 0xE0) == 0xC0 ? 1 : (lead & 0xF0) == 0xE0 ? 2
                              : (lead & 0xF8) == 0xF0 ? 3 : 4;
    if (extra == 4 || bytes.size() - i <= extra) return false;
    for (std::size_t k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xC0) != 0x80) return false;
    i += extra + 1;
  }
  return true;
}

Result<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string reason = std::strerror(errno == 0 ? ENOENT : errno);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    return fail(std::move(reason));
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

Result<std::vector<DataEntry>> collect_data(const DataSources& sources, std::string_view kind, std::string_view name) {
  DataCollector out(kind, name);
  for (const auto& literal : sources.literals) {
    auto entry = parse_literal(literal);
    if (!entry) return std::unexpected(entry.error());
    if (auto added = out.add(std::move(*entry)); !added) return std::unexpected(added.error());
  }
  for (const auto& file : sources.files)
    if (auto added = add_file_source(out, file); !added) return std::unexpected(added.error());
  for (const auto& path : sources.env_files) {
    auto text = read_whole_file(path);
    if (!text) return fail("error reading " + path + ": " + text.error().message);
    auto entries = parse_env_file(*text, path);
    if (!entries) return std::unexpected(entries.error());
    for (auto& entry : *entries)
      if (auto added = out.add(std::move(entry)); !added) return std::unexpected(added.error());
  }
  return out.take();
}

}  // namespace kw::cli
