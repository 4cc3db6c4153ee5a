// MapActivation and LazyFields.
#include "core/cel/cel.hpp"

namespace kw::cel {

MapActivation& MapActivation::bind(std::string name, Value value) {
  m_json.erase(name);
  m_values.insert_or_assign(std::move(name), std::move(value));
  return *this;
}

MapActivation& MapActivation::bind_json(std::string name, const nlohmann::json& value) {
  m_values.erase(name);
  m_json.insert_or_assign(std::move(name), &value);
  return *this;
}

std::optional<Value> MapActivation::find(std::string_view name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) return std::nullopt;
  return it->second;
}

const nlohmann::json* MapActivation::find_json(std::string_view name) const {
  auto it = m_json.find(name);
  return it == m_json.end() ? nullptr : it->second;
}

void LazyFields::add(std::string name, Compute compute) {
  m_fields.insert_or_assign(std::move(name), Entry{std::move(compute)});
}

std::optional<Value> LazyFields::field(std::string_view name) const {
  auto it = m_fields.find(name);
  if (it == m_fields.end()) return std::nullopt;
  if (!it->second.value) it->second.value = it->second.compute();
  return it->second.value;
}

}  // namespace kw::cel
