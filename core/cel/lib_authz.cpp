// Kubernetes' authorizer library (authz.hpp): the builder objects behind `authorizer`, their
// methods, and decisions.
#include "core/cel/authz.hpp"

#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

// What every step of a check carries: the host, and the question so far.
class AuthzObject : public Object {
 public:
  enum class Step { authorizer, path, group, resource };
  AuthzObject(Step step, std::shared_ptr<const AuthzHost> host, AuthzCheck check)
      : m_step(step), m_host(std::move(host)), m_check(std::move(check)) {}

  std::string_view type_name() const override {
    switch (m_step) {
      case Step::authorizer: return "kubernetes.authorization.Authorizer";
      case Step::path: return "kubernetes.authorization.PathCheck";
      case Step::group: return "kubernetes.authorization.GroupCheck";
      case Step::resource: return "kubernetes.authorization.ResourceCheck";
    }
    return "kubernetes.authorization.Authorizer";
  }
  bool equals(const Object& other) const override { return this == &other; }
  std::optional<Value> field(std::string_view name) const override {
    if (m_step != Step::authorizer || name != "requestResource" || !m_request_resource) return std::nullopt;
    return *m_request_resource;
  }

  Step step() const { return m_step; }
  const std::shared_ptr<const AuthzHost>& host() const { return m_host; }
  const AuthzCheck& check() const { return m_check; }
  void set_request_resource(Value value) { m_request_resource = std::move(value); }

 private:
  Step m_step;
  std::shared_ptr<const AuthzHost> m_host;
  AuthzCheck m_check;
  std::optional<Value> m_request_resource;
};

class DecisionObject : public Object {
 public:
  explicit DecisionObject(AuthzDecision decision) : m_decision(std::move(decision)) {}
  std::string_view type_name() const override { return "kubernetes.authorization.Decision"; }
  bool equals(const Object& other) const override { return this == &other; }
  const AuthzDecision& decision() const { return m_decision; }

 private:
  AuthzDecision m_decision;
};

Value wrap(AuthzObject::Step step, const AuthzObject& from, AuthzCheck check) {
  return Value(std::shared_ptr<const Object>(std::make_shared<AuthzObject>(step, from.host(), std::move(check))));
}

// The receiver when it is the wanted step of a check, else null.
const AuthzObject* step_of(const Value& v, AuthzObject::Step step) {
  if (v.kind() != Kind::object) return nullptr;
  const auto* object = dynamic_cast<const AuthzObject*>(&v.as_object());
  return object != nullptr && object->step() == step ? object : nullptr;
}

const DecisionObject* decision_of(const Value& v) {
  if (v.kind() != Kind::object) return nullptr;
  return dynamic_cast<const DecisionObject*>(&v.as_object());
}

Value path(Args args, CallContext&) {
  const auto* authorizer = step_of(args[0], AuthzObject::Step::authorizer);
  if (authorizer == nullptr || args[1].kind() != Kind::string) return no_such_overload();
  AuthzCheck check = authorizer->check();
  check.resource_request = false;
  check.path = args[1].as_string();
  return wrap(AuthzObject::Step::path, *authorizer, std::move(check));
}

Value group(Args args, CallContext&) {
  const auto* authorizer = step_of(args[0], AuthzObject::Step::authorizer);
  if (authorizer == nullptr || args[1].kind() != Kind::string) return no_such_overload();
  AuthzCheck check = authorizer->check();
  check.resource_request = true;
  check.group = args[1].as_string();
  return wrap(AuthzObject::Step::group, *authorizer, std::move(check));
}

Value service_account(Args args, CallContext&) {
  const auto* authorizer = step_of(args[0], AuthzObject::Step::authorizer);
  if (authorizer == nullptr || args[1].kind() != Kind::string || args[2].kind() != Kind::string)
    return no_such_overload();
  AuthzCheck check;
  check.service_account = std::pair{args[1].as_string(), args[2].as_string()};
  return wrap(AuthzObject::Step::authorizer, *authorizer, std::move(check));
}

Value resource(Args args, CallContext&) {
  const auto* group_check = step_of(args[0], AuthzObject::Step::group);
  if (group_check == nullptr || args[1].kind() != Kind::string) return no_such_overload();
  AuthzCheck check = group_check->check();
  check.resource = args[1].as_string();
  return wrap(AuthzObject::Step::resource, *group_check, std::move(check));
}

// subresource, namespace and name: one more part of a resource check.
template <std::string AuthzCheck::*Part>
Value resource_part(Args args, CallContext&) {
  const auto* resource_check = step_of(args[0], AuthzObject::Step::resource);
  if (resource_check == nullptr || args[1].kind() != Kind::string) return no_such_overload();
  AuthzCheck check = resource_check->check();
  check.*Part = args[1].as_string();
  return wrap(AuthzObject::Step::resource, *resource_check, std::move(check));
}

Value check(Args args, CallContext& context) {
  const AuthzObject* object = step_of(args[0], AuthzObject::Step::resource);
  if (object == nullptr) object = step_of(args[0], AuthzObject::Step::path);
  if (object == nullptr || args[1].kind() != Kind::string) return no_such_overload();
  AuthzCheck question = object->check();
  question.verb = args[1].as_string();
  context.extra_cost += 350'000;  // as Kubernetes prices an authorization check
  return Value(std::shared_ptr<const Object>(std::make_shared<DecisionObject>(object->host()->check(question))));
}

Value allowed(Args args, CallContext&) {
  const auto* d = decision_of(args[0]);
  if (d == nullptr) return no_such_overload();
  return Value(d->decision().kind == AuthzDecision::Kind::allow);
}

Value reason(Args args, CallContext&) {
  const auto* d = decision_of(args[0]);
  if (d == nullptr) return no_such_overload();
  return Value(d->decision().reason);
}

Value errored(Args args, CallContext&) {
  const auto* d = decision_of(args[0]);
  if (d == nullptr) return no_such_overload();
  return Value(!d->decision().error.empty());
}

Value error_text(Args args, CallContext&) {
  const auto* d = decision_of(args[0]);
  if (d == nullptr) return no_such_overload();
  return Value(d->decision().error);
}

}  // namespace

Value authorizer_value(std::shared_ptr<const AuthzHost> host, AuthzCheck request_resource) {
  auto authorizer = std::make_shared<AuthzObject>(AuthzObject::Step::authorizer, host, AuthzCheck{});
  request_resource.resource_request = true;
  authorizer->set_request_resource(Value(std::shared_ptr<const Object>(
      std::make_shared<AuthzObject>(AuthzObject::Step::resource, std::move(host), std::move(request_resource)))));
  return Value(std::shared_ptr<const Object>(std::move(authorizer)));
}

void add_authz_functions(Functions& f) {
  f.add({"path", Style::receiver, 2, 2, path});
  f.add({"group", Style::receiver, 2, 2, group});
  f.add({"serviceAccount", Style::receiver, 3, 3, service_account});
  f.add({"resource", Style::receiver, 2, 2, resource});
  f.add({"subresource", Style::receiver, 2, 2, resource_part<&AuthzCheck::subresource>});
  f.add({"namespace", Style::receiver, 2, 2, resource_part<&AuthzCheck::namespace_>});
  f.add({"name", Style::receiver, 2, 2, resource_part<&AuthzCheck::name>});
  f.add({"check", Style::receiver, 2, 2, check});
  f.add({"allowed", Style::receiver, 1, 1, allowed});
  f.add({"reason", Style::receiver, 1, 1, reason});
  f.add({"errored", Style::receiver, 1, 1, errored});
  f.add({"error", Style::receiver, 1, 1, error_text});
}

}  // namespace kw::cel
