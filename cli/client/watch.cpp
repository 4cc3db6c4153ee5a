#include "cli/client/watch.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "cli/client/event_pipeline.hpp"
#include "cli/print/table_event.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

using nlohmann::json;

// ---- SeenSet ------------------------------------------------------------------------------

namespace {
std::string uid_of(const json& object) { return meta_string(object, "uid"); }

// The bookmark that ends a watch-list's initial events carries this annotation; in a Table
// stream it is on the row's object, the bookmark object made into a table row.
bool ends_initial_events(const json& object) {
  auto marked = [](const json& item) {
    const auto meta = item.find("metadata");
    if (meta == item.end() || !meta->is_object()) return false;
    const auto annotations = meta->find("annotations");
    return annotations != meta->end() && annotations->is_object() &&
           annotations->value("k8s.io/initial-events-end", "") == "true";
  };
  if (!object.is_object()) return false;
  if (object.value("kind", "") == "Table") {
    const auto rows = object.find("rows");
    if (rows == object.end() || !rows->is_array()) return false;
    return std::any_of(rows->begin(), rows->end(), [&](const json& row) {
      return row.is_object() && row.contains("object") && marked(row["object"]);
    });
  }
  return marked(object);
}
}  // namespace

bool watch_list_enabled() {
  const char* value = std::getenv("KUBE_FEATURE_WatchListClient");
  if (value == nullptr) return true;
  const std::string text = util::to_lower(value);
  return !(text == "false" || text == "0");
}

std::string SeenSet::key_of(const json& object) {
  return meta_string(object, "namespace") + "/" + meta_string(object, "name");
}

std::string SeenSet::resource_version_of(const json& object) { return meta_string(object, "resourceVersion"); }

void SeenSet::reset(std::vector<Item> listed) {
  m_entries.clear();
  m_entries.reserve(listed.size());
  for (auto& item : listed) {
    std::string key = key_of(item.object);
    Entry entry{resource_version_of(item.object), uid_of(item.object), std::move(item)};
    m_entries.insert_or_assign(std::move(key), std::move(entry));
  }
  m_complete = true;
}

bool SeenSet::is_new(const Item& item, const std::string& key, const std::string& resource_version) const {
  const auto it = m_entries.find(key);
  if (item.type == "DELETED") return it != m_entries.end() || !m_complete;
  return it == m_entries.end() || resource_version.empty() || it->second.resource_version != resource_version;
}

void SeenSet::record(Item item, std::string key, std::string resource_version) {
  if (item.type == "DELETED") {
    m_entries.erase(key);
    return;
  }
  std::string uid = uid_of(item.object);
  m_entries.insert_or_assign(std::move(key), Entry{std::move(resource_version), std::move(uid), std::move(item)});
}

bool SeenSet::apply(const Item& item) {
  std::string key = key_of(item.object);
  std::string resource_version = resource_version_of(item.object);
  if (!is_new(item, key, resource_version)) return false;
  record(item, std::move(key), std::move(resource_version));
  return true;
}

std::vector<Item> SeenSet::diff(const std::vector<Item>& listed) {
  std::vector<Item> events;
  std::unordered_map<std::string, Entry> next;
  for (const auto& item : listed) {
    const std::string key = key_of(item.object);
    Entry entry{resource_version_of(item.object), uid_of(item.object), item};
    auto it = m_entries.find(key);
    if (it == m_entries.end()) {
      events.push_back(Item{"ADDED", item.object, item.cells});
    } else if (!entry.uid.empty() && !it->second.uid.empty() && entry.uid != it->second.uid) {
      events.push_back(Item{"DELETED", it->second.item.object, it->second.item.cells});
      events.push_back(Item{"ADDED", item.object, item.cells});
    } else if (it->second.resource_version != entry.resource_version) {
      events.push_back(Item{"MODIFIED", item.object, item.cells});
    }
    next[key] = std::move(entry);
  }
  // Deletions in key order, so the same change prints the same way every time.
  std::vector<const std::pair<const std::string, Entry>*> gone;
  for (const auto& entry : m_entries)
    if (!next.contains(entry.first)) gone.push_back(&entry);
  std::sort(gone.begin(), gone.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : gone) events.push_back(Item{"DELETED", entry->second.item.object, entry->second.item.cells});
  m_entries = std::move(next);
  m_complete = true;
  return events;
}

// ---- StopState ----------------------------------------------------------------------------

void StopState::request_stop() {
  std::lock_guard lock(m_mutex);
  m_stopped = true;
  for (ApiClient* client : m_clients) client->cancel();
  m_cv.notify_all();
}

bool StopState::sleep_for(std::chrono::milliseconds duration) {
  std::unique_lock lock(m_mutex);
  m_cv.wait_for(lock, duration, [this] { return m_stopped.load(); });
  return !m_stopped;
}

void StopState::add_client(ApiClient* client) {
  std::lock_guard lock(m_mutex);
  m_clients.push_back(client);
  if (m_stopped) client->cancel();
}

void StopState::remove_client(ApiClient* client) {
  std::lock_guard lock(m_mutex);
  std::erase(m_clients, client);
}

// ---- WatchSession -------------------------------------------------------------------------

WatchSession::WatchSession(ApiClient& api, KindInfo kind, Query query, WatchOptions options, SharedOutput& output,
                           StopState& stop)
    : m_api(api), m_kind(std::move(kind)), m_query(std::move(query)), m_options(std::move(options)),
      m_output(output), m_stop(stop) {
  if (!m_options.single_name.empty()) {
    const std::string by_name = "metadata.name=" + m_options.single_name;
    m_query.field_selector = m_query.field_selector.empty() ? by_name : m_query.field_selector + "," + by_name;
  }
}

bool WatchSession::thin_tables() const {
  return m_query.want_table && !m_query.include_object && m_output.printer.wants_table();
}

bool WatchSession::thin_objects() const { return thin_tables() || !m_output.printer.needs_objects(); }

ApiResult<Listing> WatchSession::list() {
  // Kept as the stream's rows are kept: the printer and the seen-set need no more.
  if (!thin_objects()) return list_objects(m_api, m_kind, m_query);
  return list_objects(m_api, m_kind, m_query, [](Item& item) { thin_row_object(item.object); });
}

bool WatchSession::emit(const Item& item, bool flush) {
  std::lock_guard lock(m_output.mutex);
  if (m_output.closed) return false;
  auto printed = m_output.printer.print_event(m_kind, item, m_output.out);
  if (flush) m_output.out.flush();
  if (!m_output.out) {
    m_output.closed = true;
    m_stop.request_stop();
    return false;
  }
  if (!printed) {
    std::cerr << "error: " << printed.error().message << '\n';
  }
  return true;
}

bool WatchSession::emit_initial(std::vector<Item>& items) {
  for (auto& item : items) item.type = "ADDED";
  if (!m_output.printer.wants_table() && !m_options.initial_as_list) {
    for (const auto& item : items)
      if (!emit(item)) return false;
    return true;
  }
  std::lock_guard lock(m_output.mutex);
  if (m_output.closed) return false;
  auto printed = m_output.printer.print_list(m_kind, items, false, m_output.out);
  m_output.out.flush();
  if (!m_output.out) {
    m_output.closed = true;
    m_stop.request_stop();
    return false;
  }
  return true;
}

bool WatchSession::relist(bool initial) {
  auto listing = list();
  if (!listing) {
    m_error = listing.error().message;
    if (listing.error().http_status != 0 && listing.error().http_status != 429 && listing.error().http_status < 500)
      m_fatal_code = k_exit_server;
    else if (initial && !m_stop.stopped())
      m_fatal_code = listing.error().exit_code();
    return false;
  }
  m_resource_version = listing->resource_version;
  if (initial) {
    const bool printed = !m_options.print_initial || emit_initial(listing->items);
    m_seen.reset(std::move(listing->items));
    if (!printed) return false;
  } else {
    for (const auto& item : m_seen.diff(listing->items))
      if (!emit(item)) return false;
  }
  save_resume();
  return true;
}

void WatchSession::save_resume() {
  if (m_options.resume_file.empty() || m_resource_version.empty()) return;
  const std::string temp = m_options.resume_file + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << m_resource_version << '\n';
    if (!out) return;
  }
  std::error_code ec;
  std::filesystem::rename(temp, m_options.resume_file, ec);
}

bool WatchSession::handle_event(RawEvent& event) {
  if (event.type == "ERROR") {
    const int code = event.object.value("code", 0);
    m_error = event.object.value("message", std::string("watch error"));
    if (code == 410) m_expired = true;
    return false;
  }
  if (event.type == "BOOKMARK") {
    std::string rv = SeenSet::resource_version_of(event.object);
    if (rv.empty()) rv = event.object.value("metadata", json::object()).value("resourceVersion", "");
    // A Table bookmark may be the stream's first event, the one with the column definitions.
    if (event.object.value("kind", "") == "Table") read_columns(event.object, m_kind);
    if (m_syncing) {
      // Only the bookmark that ends the initial events says where the state stands.
      if (!ends_initial_events(event.object)) return true;
      if (!rv.empty()) m_resource_version = rv;
      return finish_sync();
    }
    if (!rv.empty()) m_resource_version = rv;
    save_resume();
    return true;
  }
  std::vector<Item> items;
  if (event.rows)
    items = std::move(*event.rows);
  else
    collect_items(std::move(event.object), m_kind, event.type, items);
  const bool thin = !event.rows && thin_objects();
  if (m_syncing) {
    // Part of the state: shown when it is complete, as a listing would be.
    for (auto& item : items) {
      if (thin) thin_row_object(item.object);
      m_sync_items.push_back(std::move(item));
    }
    return true;
  }
  for (auto& item : items) {
    std::string key = SeenSet::key_of(item.object);
    std::string rv = SeenSet::resource_version_of(item.object);
    if (!rv.empty()) m_resource_version = rv;
    if (!m_seen.is_new(item, key, rv)) continue;
    if (!emit(item, false)) return false;
    if (thin) thin_row_object(item.object);
    m_seen.record(std::move(item), std::move(key), std::move(rv));
  }
  m_resume_pending = true;
  return true;
}

bool WatchSession::finish_sync() {
  m_syncing = false;
  std::vector<Item> state = std::move(m_sync_items);
  m_sync_items.clear();
  if (m_sync_initial) {
    const bool printed = !m_options.print_initial || emit_initial(state);
    m_seen.reset(std::move(state));
    if (!printed) return false;
  } else {
    for (const auto& item : m_seen.diff(state))
      if (!emit(item, false)) return false;
  }
  m_resume_pending = true;
  return true;
}

int WatchSession::initial_failure() {
  if (m_stop.stopped() || m_output.closed) return k_exit_ok;
  std::cerr << "error: " << m_error << '\n';
  if (m_fatal_code != k_exit_ok) return m_fatal_code;
  return m_status != 0 && m_status != 200 && m_status != 101 ? k_exit_server : k_exit_unreachable;
}

bool WatchSession::end_batch() {
  if (m_resume_pending) {
    m_resume_pending = false;
    save_resume();
  }
  std::lock_guard lock(m_output.mutex);
  if (m_output.closed) return false;
  m_output.out.flush();
  if (!m_output.out) {
    m_output.closed = true;
    m_stop.request_stop();
    return false;
  }
  return true;
}

WatchSession::StreamOutcome WatchSession::watch_once() {
  std::optional<EventDecoder> decoder;
  std::string error_body;
  int status = 0;
  const bool websocket = m_api.transport() == net::client::Transport::WebSocket;
  Result<void> decode_error;
  // Events are decoded on this thread (it reads the stream) and handled on the pipeline's:
  // the events of one read, or of several when printing lags, are printed together and
  // flushed once, so output is never held back waiting for more bytes from the server.
  EventPipeline pipeline([this](std::vector<RawEvent>& batch) {
    for (auto& event : batch) {
      if (!handle_event(event)) {
        end_batch();
        return false;
      }
    }
    return end_batch();
  });
  net::client::StreamHandler handler{
      .on_head = [&](const net::client::ResponseHead& head) {
        status = head.status;
        if (status != 200 && status != 101) return true;
        m_failures = 0;
        const std::string* content_type = head.header("content-type");
        // A WebSocket upgrade (101) names no media type: the first message tells (below).
        if (!content_type && websocket) return true;
        auto created = EventDecoder::create(content_type ? *content_type : "application/json", websocket);
        if (!created) {
          decode_error = std::unexpected(created.error());
          return false;
        }
        decoder.emplace(std::move(*created));
        decoder->read_tables_thin(thin_tables());
        decoder->read_objects_thin(thin_objects());
        return true;
      },
      .on_data = [&](std::string_view bytes) {
        if (!decoder && websocket && (status == 101 || status == 200) && !bytes.empty()) {
          // JSON events start with '{', YAML documents with '-'; anything else is a protobuf
          // WatchEvent (binary message).
          const char first = bytes.front();
          const char* media = first == '{' ? "application/json"
                              : first == '-' ? "application/yaml"
                                             : "application/vnd.kubernetes.protobuf";
          decoder.emplace(std::move(*EventDecoder::create(media, true)));
          decoder->read_tables_thin(thin_tables());
          decoder->read_objects_thin(thin_objects());
        }
        if (!decoder) {
          error_body.append(bytes.substr(0, 4096));
          return true;
        }
        std::vector<RawEvent> events;
        auto fed = decoder->feed(bytes, events);
        // An ERROR event ends the stream: nothing after it is handled.
        const auto error = std::find_if(events.begin(), events.end(),
                                        [](const RawEvent& event) { return event.type == "ERROR"; });
        const bool ends = error != events.end();
        if (ends) events.erase(error + 1, events.end());
        if (!pipeline.push(events) || ends) return false;
        if (!fed) {
          decode_error = fed;
          return false;
        }
        return true;
      }};
  // A watch-list starts from the newest state (resourceVersion unset: as fresh as storage).
  std::string path = collection_path(m_kind, m_kind.info && m_kind.info->namespaced, m_query.namespace_name) +
                     query_string(m_query, true, m_syncing ? std::string() : m_resource_version, "");
  if (m_syncing) {
    path += "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
    m_sync_items.clear();
  }
  m_expired = false;
  auto result = m_api.stream(path, accept_for(m_query, true), handler);
  pipeline.finish();
  m_status = status;
  if (m_stop.stopped() || m_output.closed) return StreamOutcome::Stopped;
  if (m_expired) return StreamOutcome::Expired;
  if (!decode_error) {
    m_error = decode_error.error().message;
    return StreamOutcome::Failed;
  }
  if (status != 0 && status != 200 && status != 101) {
    net::client::Response response{{status, {}, ""}, error_body};
    m_error = error_message(response);
    if (status == 410) return StreamOutcome::Expired;
    // A server without watch-list refuses its parameters (400 or 422, as kube-apiserver
    // before 1.27 or with the WatchList feature off does).
    if (m_syncing && (status == 400 || status == 422)) return StreamOutcome::Unsupported;
    if (status == 406 && m_query.encoding == "yaml")
      m_error = "the server cannot stream YAML watch events; use --encoding=json";
    if (status == 429 || status >= 500) return StreamOutcome::Failed;
    m_fatal_code = k_exit_server;
    return StreamOutcome::Fatal;
  }
  if (!result) {
    m_error = result.error().message;
    return StreamOutcome::Failed;
  }
  if (decoder) {
    std::vector<RawEvent> events;
    (void)decoder->finish(events);
    for (auto& event : events)
      if (!handle_event(event)) break;
    end_batch();
    if (m_expired) return StreamOutcome::Expired;
  }
  if (!m_error.empty() && !m_expired) return StreamOutcome::Failed;
  return StreamOutcome::Ended;
}

std::chrono::milliseconds WatchSession::next_backoff() {
  const int shift = std::min(m_failures, 10);
  const std::chrono::milliseconds base = std::min<std::chrono::milliseconds>(m_options.max_backoff, m_options.initial_backoff * (1 << shift));
  ++m_failures;
  std::random_device seed;
  std::uniform_real_distribution<double> jitter(0.75, 1.25);
  return std::chrono::milliseconds(static_cast<long long>(static_cast<double>(base.count()) * jitter(seed)));
}

int WatchSession::run() {
  m_stop.add_client(&m_api);
  struct Remove {
    StopState& stop;
    ApiClient* api;
    ~Remove() { stop.remove_client(api); }
  } remove{m_stop, &m_api};

  bool listed = false;
  if (!m_options.resume_file.empty()) {
    std::ifstream in(m_options.resume_file);
    std::string rv;
    if (in && std::getline(in, rv) && !rv.empty()) {
      m_resource_version = rv;
      listed = true;
    }
  }
  m_watch_list = m_options.watch_list;
  if (!listed && m_options.list_first) {
    if (m_watch_list) {
      m_syncing = true;
      m_sync_initial = true;
    } else if (!relist(true)) {
      return initial_failure();
    }
  }
  bool need_relist = false;
  while (!m_stop.stopped()) {
    if (need_relist && m_watch_list) {
      m_syncing = true;
      m_sync_initial = false;
      need_relist = false;
    }
    if (need_relist) {
      if (!relist(false)) {
        if (m_stop.stopped() || m_output.closed) break;
        if (m_fatal_code != k_exit_ok) {
          std::cerr << "error: " << m_error << '\n';
          return m_fatal_code;
        }
        std::cerr << "kw: relist failed (" << m_error << "); retrying\n";
        if (!m_stop.sleep_for(next_backoff())) break;
        continue;
      }
      need_relist = false;
    }
    const bool first_state = m_syncing && m_sync_initial;
    const auto outcome = watch_once();
    // The first state failing to arrive ends the session, as a failed first LIST does.
    if (first_state && m_syncing && (outcome == StreamOutcome::Failed || outcome == StreamOutcome::Expired))
      return initial_failure();
    switch (outcome) {
      case StreamOutcome::Stopped:
        return k_exit_ok;
      case StreamOutcome::Unsupported:
        m_watch_list = false;
        m_syncing = false;
        m_error.clear();
        if (first_state) {
          if (!relist(true)) return initial_failure();
        } else {
          need_relist = true;
        }
        continue;
      case StreamOutcome::Ended:
        m_failures = 0;
        continue;
      case StreamOutcome::Expired:
        // Said on stderr, so a reader of the events knows the ones that follow until the
        // relist is done are differences against the listing, not changes from the stream.
        std::cerr << "kw: watch of " << m_kind.prefix() << " expired (" << m_error << "); relisting\n";
        need_relist = true;
        m_error.clear();
        continue;
      case StreamOutcome::Fatal:
        std::cerr << "error: " << m_error << '\n';
        return m_fatal_code;
      case StreamOutcome::Failed: {
        const auto delay = next_backoff();
        std::cerr << "kw: watch of " << m_kind.prefix() << " interrupted (" << m_error << "); reconnecting in "
                  << delay.count() << " ms\n";
        m_error.clear();
        if (!m_stop.sleep_for(delay)) return k_exit_ok;
        continue;
      }
    }
  }
  return k_exit_ok;
}

}  // namespace kw::cli
