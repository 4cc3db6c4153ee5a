#include "cli/table_event.hpp"

#include "core/codec/json_cursor.hpp"

namespace kw::cli {
namespace {

using codec::JsonCursor;
using nlohmann::json;

// A key as text: keys are compared as written, so escaped ones are decoded first.
bool key_text(std::string_view raw, std::string& out) {
  if (raw.find('\\') == std::string_view::npos) {
    out.assign(raw);
    return true;
  }
  return codec::json_unescape(raw, out);
}

// A string member; other kinds (null included) are skipped, as a printer reading the field
// as a string would ignore them.
bool string_member(JsonCursor& in, json& object, const std::string& key) {
  if (in.peek() != '"') return in.skip();
  std::string value;
  if (!in.string(value)) return false;
  object[key] = std::move(value);
  return true;
}

bool labels(JsonCursor& in, json& out) {
  if (in.peek() != '{') return in.skip();
  if (!in.begin_object()) return false;
  out = json::object();
  std::string key;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key) || !string_member(in, out, key)) return false;
  }
  return !in.failed();
}

bool metadata(JsonCursor& in, json& out) {
  if (in.peek() != '{') return in.skip();
  if (!in.begin_object()) return false;
  out = json::object();
  std::string key;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key)) return false;
    bool read = true;
    if (key == "labels") {
      read = labels(in, out["labels"]);
    } else if (key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" ||
               key == "generateName" || key == "creationTimestamp" || key == "deletionTimestamp") {
      read = string_member(in, out, key);
    } else {
      read = in.skip();
    }
    if (!read) return false;
  }
  return !in.failed();
}

// kind, apiVersion and thin metadata of a row's object (a PartialObjectMetadata).
bool row_object(JsonCursor& in, json& out) {
  if (!in.begin_object()) return false;
  out = json::object();
  std::string key;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key)) return false;
    const bool read = key == "metadata"                        ? metadata(in, out["metadata"])
                      : key == "kind" || key == "apiVersion" ? string_member(in, out, key)
                                                               : in.skip();
    if (!read) return false;
  }
  return !in.failed();
}

bool cells(JsonCursor& in, json& out) {
  if (!in.begin_array()) return false;
  out = json::array();
  while (in.next_element()) {
    json cell;
    if (!in.scalar(cell)) return false;
    out.push_back(std::move(cell));
  }
  return !in.failed();
}

bool row(JsonCursor& in, Item& out) {
  if (!in.begin_object()) return false;
  std::string key;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key)) return false;
    const bool read = key == "cells" ? cells(in, out.cells) : key == "object" ? row_object(in, out.object) : in.skip();
    if (!read) return false;
  }
  if (out.object.is_null()) out.object = json::object();  // as collect_items() fills in
  if (out.cells.is_null()) out.cells = json::array();
  return !in.failed();
}

bool table(JsonCursor& in, std::vector<Item>& rows) {
  if (!in.begin_object()) return false;
  std::string key;
  bool is_table = false;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key)) return false;
    bool read = true;
    if (key == "kind") {
      std::string kind;
      if (!in.string(kind) || kind != "Table") return false;
      is_table = true;
    } else if (key == "columnDefinitions") {
      // Column definitions change what the printer shows: the full decoder takes those.
      if (in.null()) continue;
      if (!in.begin_array() || in.next_element()) return false;
    } else if (key == "rows") {
      rows.clear();
      if (in.null()) continue;
      if (!in.begin_array()) return false;
      while (in.next_element()) {
        rows.push_back(Item{{}, nullptr, nullptr});
        if (!row(in, rows.back())) return false;
      }
      read = !in.failed();
    } else {
      read = in.skip();
    }
    if (!read) return false;
  }
  return is_table && !in.failed();
}

}  // namespace

std::optional<RawEvent> decode_thin_table_event(std::string_view frame) {
  JsonCursor in(frame);
  if (!in.begin_object()) return std::nullopt;
  RawEvent event;
  std::vector<Item> rows;
  bool has_type = false;
  bool has_object = false;
  std::string key;
  while (auto raw = in.next_key()) {
    if (!key_text(*raw, key)) return std::nullopt;
    if (key == "type") {
      if (has_type || !in.string(event.type)) return std::nullopt;
      // Bookmarks and errors are rare and read in full.
      if (event.type != "ADDED" && event.type != "MODIFIED" && event.type != "DELETED") return std::nullopt;
      has_type = true;
    } else if (key == "object") {
      if (has_object || !table(in, rows)) return std::nullopt;
      has_object = true;
    } else if (!in.skip()) {
      return std::nullopt;
    }
  }
  if (in.failed() || !in.at_end() || !has_type || !has_object) return std::nullopt;
  for (Item& item : rows) item.type = event.type;
  event.rows = std::move(rows);
  return event;
}

}  // namespace kw::cli
