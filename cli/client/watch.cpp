#include "cli/client/watch.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "cli/client/event_pipeline.hpp"

namespace kw::cli {

using nlohmann::json;

// ---- SeenSet ------------------------------------------------------------------------------

namespace {
std::string uid_of(const json& object) { return meta_string(object, "uid"); }
}  // namespace

std::string SeenSet::key_of(const json& object) {
  return meta_string(object, "namespace") + "/" + meta_string(object, "name");
}

std::string SeenSet::resource_version_of(const json& object) { return meta_string(object, "resourceVersion"); }

void SeenSet::reset(const std::vector<Item>& listed) {
  m_entries.clear();
  for (const auto& item : listed)
    m_entries[key_of(item.object)] = Entry{resource_version_of(item.object), uid_of(item.object), item};
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

ApiResult<Listing> WatchSession::list() { return list_objects(m_api, m_kind, m_query); }

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

bool WatchSession::emit_initial(const std::vector<Item>& items) {
  std::vector<Item> typed;
  for (const auto& item : items) typed.push_back(Item{"ADDED", item.object, item.cells});
  if (!m_output.printer.wants_table() && !m_options.initial_as_list) {
    for (const auto& item : typed)
      if (!emit(item)) return false;
    return true;
  }
  std::lock_guard lock(m_output.mutex);
  if (m_output.closed) return false;
  auto printed = m_output.printer.print_list(m_kind, typed, false, m_output.out);
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
    m_seen.reset(listing->items);
    if (m_options.print_initial && !emit_initial(listing->items)) return false;
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
    if (!rv.empty()) m_resource_version = rv;
    save_resume();
    return true;
  }
  std::vector<Item> items;
  if (event.rows)
    items = std::move(*event.rows);
  else
    collect_items(std::move(event.object), m_kind, event.type, items);
  for (auto& item : items) {
    std::string key = SeenSet::key_of(item.object);
    std::string rv = SeenSet::resource_version_of(item.object);
    if (!rv.empty()) m_resource_version = rv;
    if (!m_seen.is_new(item, key, rv)) continue;
    if (!emit(item, false)) return false;
    m_seen.record(std::move(item), std::move(key), std::move(rv));
  }
  m_resume_pending = true;
  return true;
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
  // A table printer without --sort-by uses only the cells and metadata of Table rows.
  const bool thin_tables = m_query.want_table && !m_query.include_object && m_output.printer.wants_table();
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
        decoder->read_tables_thin(thin_tables);
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
          decoder->read_tables_thin(thin_tables);
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
  const std::string path = collection_path(m_kind, m_kind.info && m_kind.info->namespaced, m_query.namespace_name) +
                           query_string(m_query, true, m_resource_version, "");
  m_expired = false;
  auto result = m_api.stream(path, accept_for(m_query, true), handler);
  pipeline.finish();
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
  if (!m_error.empty() && !m_expired) {
    m_error.clear();
    return StreamOutcome::Failed;
  }
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
  if (!listed && m_options.list_first) {
    if (!relist(true)) {
      if (m_stop.stopped() || m_output.closed) return k_exit_ok;
      std::cerr << "error: " << m_error << '\n';
      return m_fatal_code == k_exit_ok ? k_exit_unreachable : m_fatal_code;
    }
  }
  bool need_relist = false;
  while (!m_stop.stopped()) {
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
    switch (watch_once()) {
      case StreamOutcome::Stopped:
        return k_exit_ok;
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
