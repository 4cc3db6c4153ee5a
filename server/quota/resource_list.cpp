#include "server/quota/resource_list.hpp"

namespace kw::quota {

using nlohmann::json;

ResourceList resource_list(const json& list) {
  ResourceList out;
  if (list.is_object())
    for (const auto& [name, value] : list.items())
      if (auto q = api::parse_go_quantity(value)) out.emplace(name, std::move(*q));
  return out;
}

json to_json(const ResourceList& list) {
  json out = json::object();
  for (const auto& [name, value] : list) out[name] = value.string();
  return out;
}

std::vector<std::string> names(const ResourceList& list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const auto& [name, value] : list) out.push_back(name);
  return out;
}

std::set<std::string> name_set(const ResourceList& list) {
  std::set<std::string> out;
  for (const auto& [name, value] : list) out.insert(out.end(), name);
  return out;
}

ResourceList add(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, value] : b) {
    auto [at, inserted] = out.emplace(name, value);
    if (!inserted) at->second.add(value);
  }
  return out;
}

ResourceList subtract_non_negative(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (auto& [name, value] : out) {
    if (const auto other = b.find(name); other != b.end()) value.subtract(other->second);
    if (value.negative || value.zero()) value = api::GoQuantity{};
  }
  for (const auto& [name, value] : b) out.try_emplace(name);
  return out;
}

ResourceList max(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, value] : b) {
    auto [at, inserted] = out.emplace(name, value);
    if (!inserted && value.compare(at->second) > 0) at->second = value;
  }
  return out;
}

ResourceList mask(const ResourceList& list, const std::set<std::string>& keep) {
  ResourceList out;
  for (const auto& [name, value] : list)
    if (keep.contains(name)) out.emplace(name, value);
  return out;
}

ResourceList remove_zeros(const ResourceList& list) {
  ResourceList out;
  for (const auto& [name, value] : list)
    if (!value.zero()) out.emplace(name, value);
  return out;
}

bool equals(const ResourceList& a, const ResourceList& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, value] : a) {
    const auto other = b.find(name);
    if (other == b.end() || value.compare(other->second) != 0) return false;
  }
  return true;
}

std::set<std::string> exceeded(const ResourceList& a, const ResourceList& b) {
  std::set<std::string> out;
  for (const auto& [name, value] : a)
    if (const auto limit = b.find(name); limit != b.end() && value.compare(limit->second) > 0) out.insert(name);
  return out;
}

std::string pretty_print_names(const std::set<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

std::string pretty_print(const ResourceList& list) {
  std::string out;
  for (const auto& [name, value] : list) {
    if (!out.empty()) out += ',';
    out += name;
    out += '=';
    out += value.string();
  }
  return out;
}

}  // namespace kw::quota
