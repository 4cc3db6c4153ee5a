#include "cli/print/table_event.hpp"

#include <iterator>

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

// Reads an object member by member: `member(key)` reads each value (keys decoded).
template <class Member>  // bool(const std::string& key)
bool members(JsonCursor& in, Member&& member) {
  if (!in.begin_object()) return false;
  std::string key;
  while (auto raw = in.next_key())
    if (!key_text(*raw, key) || !member(key)) return false;
  return !in.failed();
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

// An object of strings (labels); anything else in its place is skipped.
bool labels(JsonCursor& in, json& out) {
  if (in.peek() != '{') return in.skip();
  out = json::object();
  return members(in, [&](const std::string& key) { return string_member(in, out, key); });
}

// The metadata fields a thin row keeps (labels aside) as strings.
bool kept_metadata_string(std::string_view key) {
  return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" || key == "generateName" ||
         key == "creationTimestamp" || key == "deletionTimestamp";
}

bool kept_object_string(std::string_view key) { return key == "kind" || key == "apiVersion"; }

bool metadata(JsonCursor& in, json& out) {
  if (in.peek() != '{') return in.skip();
  out = json::object();
  return members(in, [&](const std::string& key) {
    if (key == "labels") return labels(in, out["labels"]);
    if (kept_metadata_string(key)) return string_member(in, out, key);
    return in.skip();
  });
}

// kind, apiVersion and thin metadata of a row's object (a PartialObjectMetadata).
bool row_object(JsonCursor& in, json& out) {
  out = json::object();
  return members(in, [&](const std::string& key) {
    if (key == "metadata") return metadata(in, out["metadata"]);
    if (kept_object_string(key)) return string_member(in, out, key);
    return in.skip();
  });
}

// Keeps the string members `keep` names (the rest, and non-strings, go).
template <class Keep>
void keep_strings(json& object, Keep&& keep) {
  for (auto it = object.begin(); it != object.end();)
    it = keep(it.key()) && it->is_string() ? std::next(it) : object.erase(it);
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
  const bool read = members(in, [&](const std::string& key) {
    if (key == "cells") return cells(in, out.cells);
    if (key == "object") return row_object(in, out.object);
    return in.skip();
  });
  if (out.object.is_null()) out.object = json::object();  // as collect_items() fills in
  if (out.cells.is_null()) out.cells = json::array();
  return read;
}

bool table(JsonCursor& in, std::vector<Item>& rows) {
  bool is_table = false;
  const bool read = members(in, [&](const std::string& key) {
    if (key == "kind") {
      std::string kind;
      is_table = in.string(kind) && kind == "Table";
      return is_table;
    }
    if (key == "columnDefinitions")  // they change what the printer shows: the full decoder takes those
      return in.null() || (in.begin_array() && !in.next_element() && !in.failed());
    if (key == "rows") {
      rows.clear();
      if (in.null()) return true;
      if (!in.begin_array()) return false;
      while (in.next_element()) {
        rows.push_back(Item{{}, nullptr, nullptr});
        if (!row(in, rows.back())) return false;
      }
      return !in.failed();
    }
    return in.skip();
  });
  return read && is_table;
}

}  // namespace

void thin_row_object(json& object) {
  if (!object.is_object()) return;
  json meta = object.contains("metadata") ? std::move(object["metadata"]) : json();
  keep_strings(object, kept_object_string);
  if (!meta.is_object()) return;
  json labels_of = meta.contains("labels") ? std::move(meta["labels"]) : json();
  keep_strings(meta, kept_metadata_string);
  if (labels_of.is_object()) {
    keep_strings(labels_of, [](std::string_view) { return true; });
    meta["labels"] = std::move(labels_of);
  }
  object["metadata"] = std::move(meta);
}

std::optional<RawEvent> decode_thin_table_event(std::string_view frame) {
  JsonCursor in(frame);
  RawEvent event;
  std::vector<Item> rows;
  bool has_type = false;
  bool has_object = false;
  const bool read = members(in, [&](const std::string& key) {
    if (key == "type") {
      if (has_type || !in.string(event.type)) return false;
      has_type = true;
      // Bookmarks and errors are rare and read in full.
      return event.type == "ADDED" || event.type == "MODIFIED" || event.type == "DELETED";
    }
    if (key == "object") {
      if (has_object) return false;
      has_object = true;
      return table(in, rows);
    }
    return in.skip();
  });
  if (!read || !in.at_end() || !has_type || !has_object) return std::nullopt;
  for (Item& item : rows) item.type = event.type;
  event.rows = std::move(rows);
  return event;
}

}  // namespace kw::cli
