// kw events: the events of a namespace (or all, or of one object with --for), oldest first,
// in kubectl events' table; -w follows new ones through the client's watch loop.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/client/discovery.hpp"
#include "cli/client/watch.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/verbs.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;
namespace print = api::print;

struct EventsOptions {
  ConnectionFlags connection;
  std::string for_object;  // TYPE/NAME
  std::vector<std::string> types;
  bool all_namespaces = false;
  bool watch = false;
  std::string output;  // -o: json, yaml, name, jsonpath=...
};

// When the event last happened (the order of the listing): the series' last observation,
// else lastTimestamp, else eventTime.
std::optional<print::TimePoint> last_seen(const json& event) {
  if (auto t = print::time_of(print::at(event, {"series", "lastObservedTime"}))) return t;
  if (auto t = print::time_of(print::at(event, {"lastTimestamp"}))) return t;
  return print::time_of(print::at(event, {"eventTime"}));
}

// LAST SEEN: when it first happened, or for a repeated event "LAST (xCOUNT over FIRST)".
std::string seen_cell(const json& event, print::TimePoint now) {
  auto first_time = print::time_of(print::at(event, {"firstTimestamp"}));
  if (!first_time) first_time = print::time_of(print::at(event, {"eventTime"}));
  const std::string first = print::since(first_time, now);
  const auto last_time = print::time_of(print::at(event, {"lastTimestamp"}));
  const std::string last = last_time ? print::since(last_time, now) : first;
  std::int64_t count = 0;
  if (const json& series = print::at(event, {"series", "count"}); series.is_number_integer())
    count = series.get<std::int64_t>();
  else if (const json& plain = print::at(event, {"count"}); plain.is_number_integer() && plain.get<std::int64_t>() > 1)
    count = plain.get<std::int64_t>();
  if (count == 0) return first;
  return last + " (x" + std::to_string(count) + " over " + first + ")";
}

std::vector<std::string> event_row(const json& event, bool with_namespace, print::TimePoint now) {
  const std::string seen = seen_cell(event, now);
  const json& involved = print::at(event, {"involvedObject"});
  std::vector<std::string> row;
  if (with_namespace) row.push_back(meta_string(event, "namespace"));
  for (std::string cell : {seen, print::str(print::at(event, {"type"})), print::str(print::at(event, {"reason"})),
                           print::str(print::at(involved, {"kind"})) + "/" + print::str(print::at(involved, {"name"})),
                           print::str(print::at(event, {"message"}))})
    row.push_back(escape_terminal(cell));
  return row;
}

std::vector<std::string> header(bool with_namespace) {
  std::vector<std::string> row;
  if (with_namespace) row.push_back("NAMESPACE");
  for (const char* title : {"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}) row.push_back(title);
  return row;
}

bool wanted(const json& event, const std::vector<std::string>& types) {
  if (types.empty()) return true;
  const std::string type = print::str(print::at(event, {"type"}));
  return std::ranges::any_of(types, [&](const std::string& t) {
    return t.size() == type.size() && std::equal(t.begin(), t.end(), type.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

// An event of the listing as kubectl's typed list holds it: with its apiVersion and kind, and
// without managedFields, which kubectl's printers leave out.
json typed_event(json event) {
  event["apiVersion"] = "v1";
  event["kind"] = "Event";
  if (auto meta = event.find("metadata"); meta != event.end() && meta->is_object()) meta->erase("managedFields");
  return event;
}

// The listing in an -o format: for -o name one line per event, otherwise the EventList
// kubectl builds (no list metadata) as one document.
Result<void> print_listing(Printer& printer, const KindInfo& kind, const std::string& output,
                           const std::vector<json>& events) {
  std::vector<Item> items;
  if (output == "name") {
    for (const auto& event : events) items.push_back(Item{"", typed_event(event), nullptr});
    if (auto printed = printer.print_list(kind, items, false, std::cout); !printed) return printed;
    return printer.finish(std::cout);
  }
  json list = {{"apiVersion", "v1"}, {"items", json::array()}, {"kind", "EventList"}, {"metadata", json::object()}};
  for (const auto& event : events) list["items"].push_back(typed_event(event));
  items.push_back(Item{"", std::move(list), nullptr});
  if (auto printed = printer.print_list(kind, items, true, std::cout); !printed) return printed;
  return printer.finish(std::cout);
}

// Prints each watched event as one row (the header came with the listing).
class EventRowPrinter final : public Printer {
 public:
  EventRowPrinter(bool with_namespace, std::vector<std::string> types)
      : m_with_namespace(with_namespace), m_types(std::move(types)) {}
  Result<void> print_list(const KindInfo&, const std::vector<Item>&, bool, std::ostream&) override { return {}; }
  Result<void> print_event(const KindInfo&, const Item& item, std::ostream& out) override {
    if (item.type == "DELETED" || !wanted(item.object, m_types)) return {};
    out << tabulate({event_row(item.object, m_with_namespace, std::chrono::system_clock::now())});
    return {};
  }

 private:
  bool m_with_namespace;
  std::vector<std::string> m_types;
};

int run_events(const EventsOptions& options) {
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto info = resolver.resolve_kind("v1", "Event");
  if (!info) return report(info.error());
  const std::string namespace_name = options.all_namespaces ? std::string() : (*api)->config().namespace_name;
  std::string selector;
  if (!options.for_object.empty()) {
    const auto slash = options.for_object.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == options.for_object.size())
      return report_usage("--for must be in resource/name form");
    auto target = resolver.resolve(options.for_object.substr(0, slash));
    if (!target) {
      // kubectl prints this one without its "error: " prefix.
      VerbError error = target.error();
      if (error.message.starts_with("error: ")) error.message.erase(0, 7);
      return report(error);
    }
    const std::string api_version = target->group.empty() ? target->version : target->group + "/" + target->version;
    selector = "involvedObject.kind=" + target->kind + ",involvedObject.apiVersion=" + api_version +
               ",involvedObject.name=" + options.for_object.substr(slash + 1);
  }
  std::string path = object_path(*info, namespace_name, "");
  if (!selector.empty()) path += "?fieldSelector=" + url_escape(selector);
  auto listing = call_json(**api, "GET", path, {}, {});
  if (!listing) return report(listing.error());
  std::vector<json> events;
  for (const auto& event : listing->value("items", json::array()))
    if (wanted(event, options.types)) events.push_back(event);
  std::ranges::stable_sort(events, [](const json& a, const json& b) { return last_seen(a) < last_seen(b); });
  if (events.empty() && !options.watch) {
    std::cerr << (options.all_namespaces ? std::string("No events found.")
                                         : "No events found in " + namespace_name + " namespace.")
              << '\n';
    return k_exit_ok;
  }
  std::unique_ptr<Printer> printer;
  if (options.output.empty()) {
    const auto now = std::chrono::system_clock::now();
    std::vector<std::vector<std::string>> rows = {header(options.all_namespaces)};
    for (const auto& event : events) rows.push_back(event_row(event, options.all_namespaces, now));
    std::cout << tabulate(rows) << std::flush;
    printer = std::make_unique<EventRowPrinter>(options.all_namespaces, options.types);
  } else {
    PrintOptions print;
    print.output = options.output;
    auto chosen = make_printer(print);
    if (!chosen) return report_usage(chosen.error().message);
    printer = std::move(*chosen);
    const KindInfo kind = kind_info(*info);
    if (auto printed = print_listing(*printer, kind, options.output, events); !printed)
      return report_usage(printed.error().message);
    std::cout << std::flush;
  }
  if (!options.watch) return k_exit_ok;
  StopState stop;
  SharedOutput output{*printer, std::cout, {}, false};
  Query query;
  query.namespace_name = namespace_name;
  query.field_selector = selector;
  query.want_table = false;
  WatchOptions watch;
  watch.print_initial = false;
  WatchSession session(**api, kind_info(*info), query, watch, output, stop);
  return session.run();
}

}  // namespace

void add_events_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<EventsOptions>();
  CLI::App* command = app.add_subcommand("events", "List events, oldest first, and follow new ones with -w (kubectl events)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("--for", options->for_object, "Only the events of this object (TYPE/NAME)");
  command->add_option("--types", options->types, "Only events of these types (Normal, Warning; comma-separated)")
      ->delimiter(',');
  command->add_flag("-A,--all-namespaces", options->all_namespaces, "Events of every namespace");
  command->add_flag("-w,--watch", options->watch, "After the listing, print new events as they come");
  command->add_option("-o,--output", options->output, "Output format: json, yaml, name, jsonpath=..., go-template=...");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_events(*options); });
}

}  // namespace kw::cli
