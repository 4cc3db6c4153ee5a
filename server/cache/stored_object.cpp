// StoredObject: the tree made on first use, and the lean copies the cache keeps.
#include <iostream>

#include "core/codec/protobuf_wire.hpp"
#include "server/cache/watcher.hpp"

namespace kw::cache {

StoredObject::StoredObject(const StoredObject& other)
    : key(other.key),
      namespace_(other.namespace_),
      name(other.name),
      revision(other.revision),
      labels(other.labels),
      fields(other.fields),
      protobuf(other.protobuf),
      source(other.source) {
  if (other.keeps_tree()) set_object(other.object());
}

void StoredObject::set_object(nlohmann::json tree) {
  m_tree = std::move(tree);
  m_tree_ready.store(true, std::memory_order_release);
}

const nlohmann::json& StoredObject::object() const {
  if (m_tree_ready.load(std::memory_order_acquire)) return m_tree;
  std::lock_guard lock(m_tree_mutex);
  if (!m_tree_ready.load(std::memory_order_relaxed)) {
    m_tree = rebuilt_tree();
    m_tree_ready.store(true, std::memory_order_release);
  }
  return m_tree;
}

nlohmann::json StoredObject::rebuilt_tree() const {
  if (can_be_lean()) {
    auto tree = source->decode(protobuf);
    if (tree) return std::move(*tree);
    // The same bytes decoded when the object was first stored; this cannot happen short of
    // memory corruption. What identifies the object is still served.
    std::cerr << "kw: cannot rebuild the cached object " << key << ": " << tree.error().message << "\n";
  }
  nlohmann::json metadata = {{"name", name}, {"resourceVersion", std::to_string(revision)}};
  if (!namespace_.empty()) metadata["namespace"] = namespace_;
  nlohmann::json out = {{"metadata", std::move(metadata)}};
  if (source) {
    out["apiVersion"] = source->api_version;
    out["kind"] = source->kind;
  }
  return out;
}

void StoredObject::append_json(std::string& out) const {
  if (const std::string* made = m_json.made()) out += *made;
  else if (keeps_tree()) out += json();
  else out += rebuilt_tree().dump();
}

std::size_t StoredObject::json_size_hint() const {
  if (const std::string* made = m_json.made()) return made->size();
  return protobuf.empty() ? 1024 : protobuf.size() * 3 / 2;
}

void StoredObject::set_revision(Revision to) {
  revision = to;
  const std::string text = std::to_string(to);
  if (!protobuf.empty()) {
    auto moved = codec::with_resource_version(protobuf, text);
    if (moved) {
      protobuf = std::move(*moved);
    } else {
      static_cast<void>(object());  // the tree must hold the object once the protobuf is gone
      protobuf.clear();
    }
  }
  if (holds_tree()) m_tree["metadata"]["resourceVersion"] = text;
}

std::shared_ptr<const StoredObject> StoredObject::lean() const {
  auto copy = std::make_shared<StoredObject>();
  copy->key = key;
  copy->namespace_ = namespace_;
  copy->name = name;
  copy->revision = revision;
  copy->labels = labels;
  copy->fields = fields;
  copy->protobuf = protobuf;
  copy->source = source;
  return copy;
}

}  // namespace kw::cache
