#include "cli/commands/manpage.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands/verbs.hpp"

namespace kw::cli {

namespace {

constexpr std::string_view k_generic_exit_status = "0 on success, non-zero when the command failed.";

struct Page {
  const CLI::App* app;
  std::vector<std::string> path;  // {"config", "view"}
};

std::string dashed(const std::vector<std::string>& path) {
  std::string out = "kw";
  for (const auto& part : path) out += "-" + part;
  return out;
}

std::string spaced(const std::vector<std::string>& path) {
  std::string out = "kw";
  for (const auto& part : path) out += " " + part;
  return out;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App* app) {
  std::vector<const CLI::App*> out;
  for (const auto* sub : app->get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    out.push_back(sub);
  return out;
}

void collect(const CLI::App* app, std::vector<std::string> path, std::vector<Page>& out) {
  out.push_back(Page{app, path});
  for (const auto* sub : visible_subcommands(app)) {
    auto next = path;
    next.push_back(sub->get_name());
    collect(sub, next, out);
  }
}

// The "Exit status: ..." sentence of a command's footer (or of its nearest parent).
std::string exit_status_of(const CLI::App* app) {
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) {
    const std::string footer = a->get_footer();
    if (auto at = footer.find("Exit status:"); at != std::string::npos) {
      std::string text = footer.substr(at + 12);
      while (!text.empty() && (text.front() == ' ')) text.erase(0, 1);
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      return text;
    }
  }
  return std::string(k_generic_exit_status);
}

// The footer without its exit-status sentence: extra description.
std::string footer_notes(const CLI::App* app) {
  std::string footer = app->get_footer();
  if (auto at = footer.find("Exit status:"); at != std::string::npos) footer.erase(at);
  while (!footer.empty() && (footer.back() == '\n' || footer.back() == ' ')) footer.pop_back();
  return footer;
}

std::string value_name(const CLI::Option* option) {
  std::string type = option->get_type_name();
  if (auto colon = type.find(':'); colon != std::string::npos) type.erase(colon);
  return type.empty() ? std::string("VALUE") : type;
}

void write_option(std::ostream& out, const CLI::Option* option) {
  out << ".TP\n";
  if (option->get_positional() && !option->nonpositional()) {
    out << "\\fI" << roff_escape(option->get_name()) << "\\fR";
    if (option->get_items_expected_max() > 1) out << "...";
    out << "\n";
  } else {
    std::string names;
    for (const auto& s : option->get_snames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-" + roff_escape(s) + "\\fR");
    for (const auto& l : option->get_lnames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + roff_escape(l) + "\\fR");
    out << names;
    if (option->get_items_expected_max() > 0) out << " \\fI" << roff_escape(value_name(option)) << "\\fR";
    out << "\n";
  }
  out << roff_escape(option->get_description().empty() ? std::string("(no description)") : option->get_description());
  const std::string type = option->get_type_name();
  if (auto open = type.find('{'); open != std::string::npos) out << ". One of: " << roff_escape(type.substr(open));
  std::string fallback = option->get_default_str();
  // Defaults computed from $HOME are written the way they read on every machine.
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0' && fallback.starts_with(home) &&
                                              (fallback.size() == std::strlen(home) || fallback[std::strlen(home)] == '/'))
    fallback = "~" + fallback.substr(std::strlen(home));
  if (!fallback.empty()) out << ". Default: \\fB" << roff_escape(fallback) << "\\fR";
  out << ".\n";
}

std::string synopsis(const Page& page) {
  std::ostringstream out;
  out << ".B " << roff_escape(spaced(page.path)) << "\n";
  const auto subs = visible_subcommands(page.app);
  if (!subs.empty()) out << "\\fICOMMAND\\fR\n";
  out << "[\\fIOPTIONS\\fR]";
  for (const auto* option : page.app->get_options()) {
    if (!option->get_positional() || option->nonpositional()) continue;
    const bool many = option->get_items_expected_max() > 1;
    const bool required = option->get_required();
    out << " " << (required ? "" : "[") << "\\fI" << roff_escape(option->get_name()) << "\\fR" << (many ? "..." : "")
        << (required ? "" : "]");
  }
  out << "\n";
  return out.str();
}

std::string render(const Page& page, const std::vector<Page>& all) {
  std::ostringstream out;
  const std::string name = dashed(page.path);
  const std::string description =
      page.app->get_description().empty() ? std::string("kw command") : page.app->get_description();
  out << ".TH \"" << roff_escape(upper(name)) << "\" \"1\" \"\" \"kw\" \"kw Manual\"\n";
  out << ".SH NAME\n" << roff_escape(name) << " \\- " << roff_escape(description) << "\n";
  out << ".SH SYNOPSIS\n" << synopsis(page);
  out << ".SH DESCRIPTION\n" << roff_escape(description) << ".\n";
  if (const std::string notes = footer_notes(page.app); !notes.empty()) out << ".PP\n" << roff_escape(notes) << "\n";
  const auto subs = visible_subcommands(page.app);
  if (!subs.empty()) {
    out << ".SH COMMANDS\n";
    for (const auto* sub : subs) {
      auto path = page.path;
      path.push_back(sub->get_name());
      out << ".TP\n\\fB" << roff_escape(sub->get_name()) << "\\fR\n" << roff_escape(sub->get_description())
          << ". See \\fB" << roff_escape(dashed(path)) << "\\fR(1).\n";
    }
  }
  out << ".SH OPTIONS\n";
  for (const auto* option : page.app->get_options()) write_option(out, option);
  out << ".SH EXIT STATUS\n" << roff_escape(exit_status_of(page.app)) << "\n";
  out << ".SH SEE ALSO\n";
  std::vector<std::string> related;
  if (!page.path.empty()) {
    related.push_back(dashed({page.path.begin(), page.path.end() - 1}));
  }
  for (const auto& other : all) {
    if (other.path.size() == page.path.size() + 1 &&
        std::equal(page.path.begin(), page.path.end(), other.path.begin()))
      related.push_back(dashed(other.path));
  }
  for (std::size_t i = 0; i < related.size(); ++i)
    out << "\\fB" << roff_escape(related[i]) << "\\fR(1)" << (i + 1 < related.size() ? ",\n" : "\n");
  return out.str();
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out.push_back(c);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> man_pages(const CLI::App& app) {
  std::vector<Page> pages;
  collect(&app, {}, pages);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& page : pages) out.emplace_back(dashed(page.path) + ".1", render(page, pages));
  return out;
}

Result<void> write_man_pages(const CLI::App& app, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail("cannot create " + dir + ": " + ec.message());
  for (const auto& [file, text] : man_pages(app)) {
    const std::string path = (std::filesystem::path(dir) / file).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return fail("cannot write " + path);
  }
  return {};
}

void add_manpage_command(CLI::App& app, int* exit_code) {
  auto dir = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("__manpage", "Write the man pages of kw into a directory");
  command->group("");
  command->add_option("dir", *dir, "The output directory (the project keeps them in man/)")->required();
  CLI::App* root = &app;
  command->callback([dir, root, exit_code] {
    if (auto written = write_man_pages(*root, *dir); !written) {
      std::cerr << "error: " << written.error().message << '\n';
      *exit_code = 1;
    }
  });
}

}  // namespace kw::cli
