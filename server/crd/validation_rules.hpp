#pragma once
// The x-kubernetes-validations rules of a CRD version's schema: CEL expressions compiled once
// when the CRD is read, then evaluated on every write of a custom object, as kube-apiserver's
// apiextensions validator does:
//   - `self` is the value at the rule's place in the schema (only non-null values are checked);
//   - a rule that uses `oldSelf` (a transition rule) runs on updates only, and only where the old
//     object has a value that correlates with the new one (object properties by name, map
//     entries by key, list-type=map items by their keys, set items by value); with
//     optionalOldSelf it runs on creates too, oldSelf then an empty optional;
//   - each rule may cost at most 1,000,000 and a request's rules 10,000,000 in all (kube's
//     PerCallLimit and RuntimeCELCostBudget);
//   - failures are field causes in kube's words: the rule's message (or "failed rule: RULE"),
//     its messageExpression, reason and fieldPath.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace kw::crd {

class ValidationRules {
 public:
  // Compiles every rule of `schema` (an openAPIV3Schema). A rule that does not compile keeps
  // its error, reported when an object is checked (the CRD itself is refused by check_rules).
  static std::shared_ptr<const ValidationRules> compile(const nlohmann::json& schema);
  ~ValidationRules();

  // Appends to `causes` ({reason, message, field}) the rules `object` breaks; `old` is the
  // stored object on an update, null on a create.
  void validate(const nlohmann::json& object, const nlohmann::json* old, nlohmann::json& causes) const;
  bool empty() const;

  struct Node;

 private:
  explicit ValidationRules(std::unique_ptr<Node> root);
  std::unique_ptr<Node> m_root;
};

// The problems of the rules in `schema` as CRD validation causes, at `path`
// (".../schema.openAPIV3Schema"): a missing rule, a bad message or reason, a rule or
// messageExpression that does not compile, oldSelf where nothing correlates.
void check_rules(const nlohmann::json& schema, const std::string& path, nlohmann::json& causes);

}  // namespace kw::crd
