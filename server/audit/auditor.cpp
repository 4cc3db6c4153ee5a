#include "server/audit/auditor.hpp"

#include "core/codec/json_limits.hpp"

namespace kw::audit {
namespace {

using json = nlohmann::json;

constexpr std::size_t k_max_user_agent = 1024;

std::string text_at(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// The object without metadata.managedFields (in each item of a list), when the policy omits them.
json without_managed_fields(const json& object) {
  json copy = object;
  auto strip = [](json& item) {
    if (item.is_object())
      if (auto meta = item.find("metadata"); meta != item.end() && meta->is_object()) meta->erase("managedFields");
  };
  strip(copy);
  if (auto items = copy.find("items"); items != copy.end() && items->is_array())
    for (auto& item : *items) strip(item);
  if (auto rows = copy.find("rows"); rows != copy.end() && rows->is_array())
    for (auto& row : *rows)
      if (row.is_object())
        if (auto inner = row.find("object"); inner != row.end()) strip(*inner);
  return copy;
}

}  // namespace

RequestAudit::RequestAudit(Event event, RequestConfig config, std::shared_ptr<LogBackend> log, bool long_running,
                           bool failed_authentication)
    : m_event(std::move(event)),
      m_config(config),
      m_log(std::move(log)),
      m_long_running(long_running),
      m_failed_authentication(failed_authentication) {}

void RequestAudit::annotate(const std::string& key, const std::string& value) {
  std::lock_guard lock(m_mutex);
  m_event.annotations.emplace(key, value);  // the first value stays, as kube keeps it
}

void RequestAudit::impersonating(const auth::UserInfo& user) {
  std::lock_guard lock(m_mutex);
  m_event.impersonated_user = user;
  m_event.identity.clear();
}

void RequestAudit::request_object(const json& object) {
  std::lock_guard lock(m_mutex);
  if (!m_event.object_ref) m_event.object_ref.emplace();
  m_event.identity.clear();
  auto& ref = *m_event.object_ref;
  if (const auto meta = object.find("metadata"); object.is_object() && meta != object.end() && meta->is_object()) {
    if (ref.namespace_.empty()) ref.namespace_ = text_at(*meta, "namespace");
    if (ref.name.empty()) ref.name = text_at(*meta, "name");
    if (ref.uid.empty()) ref.uid = text_at(*meta, "uid");
    if (ref.resource_version.empty()) ref.resource_version = text_at(*meta, "resourceVersion");
  }
  if (m_config.level < Level::request) return;
  m_event.request_object = m_config.omit_managed_fields ? without_managed_fields(object) : object;
}

void RequestAudit::request_patch(std::string_view body) {
  std::lock_guard lock(m_mutex);
  if (m_config.level < Level::request) return;
  // Written into the line as it is: only a JSON body keeps the line valid JSON.
  auto parsed = codec::parse_json(body);
  if (!parsed) return;
  m_event.request_object = std::move(*parsed);
}

void RequestAudit::response_object(const json& object) {
  std::lock_guard lock(m_mutex);
  if (object.is_object() && text_at(object, "kind") == "Status") {
    auto& status = m_event.response_status.emplace();
    status.status = text_at(object, "status");
    status.reason = text_at(object, "reason");
    if (const auto code = object.find("code"); code != object.end() && code->is_number_integer())
      status.code = code->get<int>();
  }
  if (m_config.level < Level::request_response) return;
  m_event.response_object = m_config.omit_managed_fields ? without_managed_fields(object) : object;
}

void RequestAudit::received() {
  std::lock_guard lock(m_mutex);
  emit(Stage::request_received);
}

void RequestAudit::started(int code) {
  std::lock_guard lock(m_mutex);
  if (m_started || m_completed) return;
  m_started = true;
  if (!m_event.response_status) m_event.response_status.emplace();
  m_event.response_status->code = code;
  if (m_failed_authentication) {
    emit(Stage::response_started);
    m_completed = true;
  } else if (m_long_running) {
    emit(Stage::response_started);
  }
}

void RequestAudit::complete() {
  std::lock_guard lock(m_mutex);
  if (m_completed) return;
  m_completed = true;
  if (m_failed_authentication) return;
  if (!m_event.response_status) {
    m_event.response_status = ResponseStatus{.code = 200, .status = "Success", .reason = {},
                                             .message = "Connection closed early"};
    if (m_long_running) emit(Stage::response_started);
  }
  emit(Stage::response_complete);
}

void RequestAudit::emit(Stage stage) {
  if (m_config.omits(stage)) return;
  m_event.stage = stage;
  if (m_event.identity.empty()) append_identity(m_event.identity, m_event);
  m_event.stage_time = stage == Stage::request_received ? m_event.received : Event::Clock::now();
  m_log->process(m_event);
}

Auditor::Auditor(Policy policy, std::unique_ptr<LogBackend> log) : m_policy(std::move(policy)), m_log(std::move(log)) {}

std::shared_ptr<RequestAudit> Auditor::make(RequestFacts facts, const auth::Attributes& a, bool authenticated) const {
  const RequestConfig config = m_policy.evaluate(a, authenticated);
  if (config.level == Level::none) return nullptr;
  Event event;
  event.level = config.level;
  event.audit_id = std::move(facts.audit_id);
  event.request_uri = std::move(facts.request_uri);
  event.verb = a.verb;
  if (authenticated) event.user = a.user;
  event.source_ips = std::move(facts.source_ips);
  event.user_agent = std::move(facts.user_agent);
  if (event.user_agent.size() > k_max_user_agent) {
    event.user_agent.resize(k_max_user_agent);
    event.user_agent += "...TRUNCATED";
  }
  if (a.resource_request) {
    event.object_ref = ObjectRef{.resource = a.resource,
                                 .namespace_ = a.namespace_,
                                 .name = a.name,
                                 .uid = {},
                                 .api_group = a.api_group,
                                 .api_version = std::move(facts.api_version),
                                 .resource_version = {},
                                 .subresource = a.subresource};
  }
  event.received = facts.received;
  return std::make_shared<RequestAudit>(std::move(event), config, m_log, facts.long_running, !authenticated);
}

std::shared_ptr<RequestAudit> Auditor::begin(RequestFacts facts, const auth::Attributes& attributes) const {
  auto record = make(std::move(facts), attributes, true);
  if (record) record->received();
  return record;
}

std::shared_ptr<RequestAudit> Auditor::begin_unauthenticated(RequestFacts facts, const auth::Attributes& attributes) const {
  return make(std::move(facts), attributes, false);
}

}  // namespace kw::audit
