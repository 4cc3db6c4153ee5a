#include "cli/client/manifest.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/codec/yaml.hpp"

namespace kw::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool manifest_extension(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Several JSON values one after the other ("{...}\n{...}"); fails if the text is not that.
Result<std::vector<json>> parse_json_stream(std::string_view text) {
  std::vector<json> out;
  std::size_t position = 0;
  while (true) {
    while (position < text.size() && std::isspace(static_cast<unsigned char>(text[position]))) ++position;
    if (position >= text.size()) break;
    int depth = 0;
    bool in_string = false;
    std::size_t end = position;
    for (; end < text.size(); ++end) {
      const char c = text[end];
      if (in_string) {
        if (c == '\\') ++end;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) break;
      }
    }
    if (end >= text.size()) return fail("unexpected end of JSON input");
    auto value = json::parse(text.substr(position, end + 1 - position), nullptr, false);
    if (value.is_discarded()) return fail("invalid JSON");
    out.push_back(std::move(value));
    position = end + 1;
  }
  return out;
}

// The objects of one document, Lists ("List" or "...List") opened; `in_list` marks those that
// came from a List.
void flatten(json object, const std::string& source, bool in_list, std::vector<Manifest>& out) {
  if (object.is_null()) return;
  const std::string kind = object.is_object() ? object.value("kind", "") : std::string();
  if (kind.ends_with("List") && object.contains("items") && object["items"].is_array()) {
    for (auto& item : object["items"]) flatten(std::move(item), source, true, out);
    return;
  }
  out.push_back(Manifest{std::move(object), source, in_list});
}

Result<std::vector<Manifest>> parse_sourced(std::string_view text, const std::string& source) {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  std::vector<json> documents;
  if (first < text.size() && (text[first] == '{' || text[first] == '[')) {
    if (auto stream = parse_json_stream(text); stream) documents = std::move(*stream);
  }
  if (documents.empty()) {
    auto parsed = codec::yaml_to_json(text);
    if (!parsed) return fail("error parsing " + source + ": " + parsed.error().message);
    documents = std::move(*parsed);
  }
  std::vector<Manifest> out;
  for (auto& document : documents) {
    if (document.is_array()) {
      for (auto& item : document) flatten(std::move(item), source, false, out);
    } else {
      flatten(std::move(document), source, false, out);
    }
  }
  return out;
}

Result<void> check_object(const json& object, const std::string& source, bool allow_generate_name) {
  if (!object.is_object()) return fail("error validating \"" + source + "\": the document is not an object");
  std::vector<std::string> problems;
  if (!object.contains("apiVersion") || !object["apiVersion"].is_string() || object["apiVersion"].get<std::string>().empty())
    problems.push_back("apiVersion not set");
  if (!object.contains("kind") || !object["kind"].is_string() || object["kind"].get<std::string>().empty())
    problems.push_back("kind not set");
  if (!problems.empty()) {
    std::string joined;
    for (const auto& p : problems) joined += (joined.empty() ? "" : ", ") + p;
    return fail("error validating \"" + source + "\": error validating data: [" + joined + "]");
  }
  const json metadata = object.value("metadata", json::object());
  const bool named = metadata.is_object() && !metadata.value("name", "").empty();
  const bool generated = allow_generate_name && metadata.is_object() && !metadata.value("generateName", "").empty();
  if (!named && !generated)
    return fail("error when processing \"" + source + "\": resource name may not be empty");
  return {};
}

Result<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("the path \"" + path.string() + "\" cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<void> collect_paths(const fs::path& root, bool recursive, std::vector<fs::path>& out) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(root, ec)) entries.push_back(entry.path());
  if (ec) return fail("the path \"" + root.string() + "\" cannot be listed: " + ec.message());
  std::sort(entries.begin(), entries.end());
  for (const auto& path : entries) {
    if (fs::is_directory(path, ec)) {
      if (recursive)
        if (auto nested = collect_paths(path, recursive, out); !nested) return nested;
    } else if (manifest_extension(path)) {
      out.push_back(path);
    }
  }
  return {};
}

}  // namespace

Result<std::vector<json>> parse_manifests(std::string_view text, const std::string& source) {
  auto manifests = parse_sourced(text, source);
  if (!manifests) return std::unexpected(manifests.error());
  std::vector<json> out;
  for (auto& manifest : *manifests) out.push_back(std::move(manifest.object));
  return out;
}

Result<std::vector<Manifest>> load_manifests(const std::vector<std::string>& paths, bool recursive,
                                             std::istream& standard_input, bool allow_generate_name) {
  if (paths.empty()) return fail("must specify one of -f and -k");
  std::vector<Manifest> out;
  auto add_text = [&](std::string_view text, const std::string& source) -> Result<void> {
    auto manifests = parse_sourced(text, source);
    if (!manifests) return std::unexpected(manifests.error());
    for (auto& manifest : *manifests) {
      if (auto checked = check_object(manifest.object, source, allow_generate_name); !checked) return checked;
      out.push_back(std::move(manifest));
    }
    return {};
  };
  for (const auto& argument : paths) {
    if (argument == "-") {
      std::ostringstream text;
      text << standard_input.rdbuf();
      if (auto added = add_text(text.str(), "STDIN"); !added) return std::unexpected(added.error());
      continue;
    }
    std::error_code ec;
    const fs::path path(argument);
    if (!fs::exists(path, ec)) return fail("the path \"" + argument + "\" does not exist");
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
      if (auto listed = collect_paths(path, recursive, files); !listed) return std::unexpected(listed.error());
    } else {
      files.push_back(path);
    }
    for (const auto& file : files) {
      auto text = read_text(file);
      if (!text) return std::unexpected(text.error());
      if (auto added = add_text(*text, file.string()); !added) return std::unexpected(added.error());
    }
  }
  return out;
}

}  // namespace kw::cli
