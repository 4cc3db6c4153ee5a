#pragma once
// The watch loop of kw get -w / kw watch: the state of the collection, then its changes from
// that state's resourceVersion; reconnect with exponential backoff and jitter from the last
// seen resourceVersion, and on 410 Expired fetch the state again and print only the
// differences, so each change is printed once. The state comes from one watch-list stream
// (sendInitialEvents, ended by the initial-events-end bookmark) where the server has it, else
// from a paged LIST.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli/client/list.hpp"

namespace kw::cli {

// What the consumer has been shown, keyed by namespace/name.
class SeenSet {
 public:
  // Replaces the contents with a full listing (nothing printed).
  void reset(std::vector<Item> listed);
  // An event from the stream; false when the consumer has already seen it (a duplicate).
  bool apply(const Item& item);
  // apply() in two steps, so the item can be printed before it is moved in: whether the
  // consumer has not seen it yet, then remember it. `key` and `resource_version` are the
  // item's key_of() and resource_version_of(), read once by the caller.
  bool is_new(const Item& item, const std::string& key, const std::string& resource_version) const;
  void record(Item item, std::string key, std::string resource_version);
  // After a relist: the synthesized ADDED / MODIFIED / DELETED events that bring the
  // consumer from what it saw to `listed`; the set then equals `listed`.
  std::vector<Item> diff(const std::vector<Item>& listed);
  // Whether the set holds a full listing (else a DELETED of an unknown object is printed).
  bool complete() const { return m_complete; }
  std::size_t size() const { return m_entries.size(); }

  static std::string key_of(const nlohmann::json& object);
  static std::string resource_version_of(const nlohmann::json& object);

 private:
  struct Entry {
    std::string resource_version;
    std::string uid;
    Item item;
  };
  // Hashed: a watch looks up every event, and keys of one namespace share long prefixes.
  // diff() sorts what it reports.
  std::unordered_map<std::string, Entry> m_entries;
  bool m_complete = false;
};

// Shared stop switch: SIGINT, a closed stdout or a fatal error in one stream ends them all.
class StopState {
 public:
  void request_stop();
  bool stopped() const { return m_stopped.load(); }
  // Sleeps up to `duration`; false when stopped meanwhile.
  bool sleep_for(std::chrono::milliseconds duration);
  void add_client(ApiClient* client);
  void remove_client(ApiClient* client);

 private:
  std::atomic<bool> m_stopped{false};
  std::mutex m_mutex;  // guards m_clients and the sleep condition
  std::condition_variable m_cv;
  std::vector<ApiClient*> m_clients;
};

// Output shared by several watch streams: printing is serialized and flushed per event.
struct SharedOutput {
  Printer& printer;
  std::ostream& out;
  std::mutex mutex;  // guards printer and out
  bool closed = false;  // stdout went away: end quietly
};

// Whether the environment allows watch-list (KUBE_FEATURE_WatchListClient, default true).
bool watch_list_enabled();

struct WatchOptions {
  bool list_first = true;      // list, then watch from its resourceVersion
  bool print_initial = true;   // print the listed objects (false with --watch-only)
  std::string resume_file;     // stores the last resourceVersion; resumed from on start
  std::string single_name;     // watch one object (fieldSelector metadata.name)
  // Hand the initial listing to Printer::print_list whole, even when it is empty (as a table
  // printer gets it), so the consumer learns what was there at the start.
  bool initial_as_list = false;
  // Fetch the state through watch-list (falls back to LIST where the server refuses it);
  // KUBE_FEATURE_WatchListClient=false in the environment turns it off, as for client-go.
  bool watch_list = watch_list_enabled();
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{30'000};
};

class WatchSession {
 public:
  WatchSession(ApiClient& api, KindInfo kind, Query query, WatchOptions options, SharedOutput& output,
               StopState& stop);
  // Runs until stopped or a fatal error; returns the exit code.
  int run();

 private:
  // Unsupported: the server refused a watch-list request (it has no watch-list).
  enum class StreamOutcome { Ended, Expired, Failed, Fatal, Stopped, Unsupported };
  ApiResult<Listing> list();
  bool relist(bool initial);
  StreamOutcome watch_once();
  bool handle_event(RawEvent& event);
  // The initial-events-end bookmark came: the collected state replaces a LIST's.
  bool finish_sync();
  // What the first fetch of the state failing ends the session with.
  int initial_failure();
  // After the events of one read: flushes the output and saves the resume file.
  bool end_batch();
  bool emit(const Item& item, bool flush = true);
  // Prints the first state (its items become ADDED events).
  bool emit_initial(std::vector<Item>& items);
  // A table printer without --sort-by uses only the cells and metadata of Table rows.
  bool thin_tables() const;
  // What is kept of the objects shown is a thin row's object (thin_row_object).
  bool thin_objects() const;
  void save_resume();
  std::chrono::milliseconds next_backoff();

  ApiClient& m_api;
  KindInfo m_kind;
  Query m_query;
  WatchOptions m_options;
  SharedOutput& m_output;
  StopState& m_stop;
  SeenSet m_seen;
  std::string m_resource_version;
  std::string m_error;
  int m_fatal_code = k_exit_ok;
  int m_failures = 0;
  bool m_expired = false;
  bool m_resume_pending = false;
  bool m_watch_list = true;    // the state is fetched by watch-list (until the server refuses it)
  bool m_syncing = false;      // the stream is sending the state (before initial-events-end)
  bool m_sync_initial = false;  // that state is the first: printed whole, as a LIST's would be
  std::vector<Item> m_sync_items;  // the state received so far
  int m_status = 0;                // the HTTP status of the last watch request
};

}  // namespace kw::cli
