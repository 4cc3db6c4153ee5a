#include <CLI/CLI.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "cli/commands/completion.hpp"
#include "cli/commands/get.hpp"
#include "cli/commands/manpage.hpp"
#include "cli/commands/verbs.hpp"

namespace {

struct TestApp {
  CLI::App app{"kw test"};
  int exit_code = 0;
  TestApp() {
    using namespace kw::cli;
    for (auto add : {add_get_command, add_create_command, add_apply_command, add_diff_command, add_delete_command, add_edit_command,
                     add_label_command, add_annotate_command, add_patch_command, add_scale_command, add_wait_command,
                     add_rollout_command, add_events_command, add_explain_command, add_api_resources_command, add_auth_command,
                     add_config_command, add_completion_commands, add_manpage_command})
      add(app, &exit_code);
  }
};

const kw::cli::CommandCompletion* find(const std::vector<kw::cli::CommandCompletion>& model, const std::string& path) {
  auto it = std::find_if(model.begin(), model.end(), [&](const auto& c) { return c.path == path; });
  return it == model.end() ? nullptr : &*it;
}

bool contains(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

}  // namespace

TEST_CASE("the completion model follows the CLI definition") {
  TestApp t;
  const auto model = kw::cli::completion_model(t.app);
  const auto* root = find(model, "");
  REQUIRE(root != nullptr);
  CHECK(contains(root->subcommands, "get"));
  CHECK(contains(root->subcommands, "apply"));
  CHECK_FALSE(contains(root->subcommands, "__complete"));
  CHECK_FALSE(contains(root->subcommands, "__manpage"));
  const auto* get = find(model, "get");
  REQUIRE(get != nullptr);
  CHECK(get->positional == "@resources");
  const auto* edit = find(model, "edit");
  REQUIRE(edit != nullptr);
  CHECK(edit->positional == "@resources");
  CHECK(contains(edit->flags, "--validate"));
  CHECK(contains(find(model, "apply")->flags, "--validate"));
  CHECK(contains(find(model, "create configmap")->flags, "--validate"));
  CHECK_FALSE(contains(find(model, "diff")->flags, "--validate"));
  CHECK(contains(get->flags, "--output"));
  auto output = std::find_if(get->valued.begin(), get->valued.end(),
                             [](const auto& o) { return contains(o.names, "-o"); });
  REQUIRE(output != get->valued.end());
  CHECK(output->values == "json yaml wide name jsonpath= custom-columns=");
  auto transport = std::find_if(get->valued.begin(), get->valued.end(),
                                [](const auto& o) { return contains(o.names, "--transport"); });
  REQUIRE(transport != get->valued.end());
  CHECK(transport->values == "auto h2 http1 websocket");
  const auto* use = find(model, "config use-context");
  REQUIRE(use != nullptr);
  CHECK(use->positional == "@contexts");
  const auto* completion = find(model, "completion");
  REQUIRE(completion != nullptr);
  CHECK(completion->positional == "bash zsh");
  const std::string bash = kw::cli::bash_completion_script(t.app);
  CHECK(bash.find("complete -F _kw kw") != std::string::npos);
  CHECK(kw::cli::zsh_completion_script(t.app).starts_with("#compdef kw\n"));
}

TEST_CASE("man pages: one per visible command, every option listed") {
  TestApp t;
  const auto pages = kw::cli::man_pages(t.app);
  REQUIRE_FALSE(pages.empty());
  CHECK(pages.front().first == "kw.1");
  auto page = [&](const std::string& name) {
    auto it = std::find_if(pages.begin(), pages.end(), [&](const auto& p) { return p.first == name; });
    return it == pages.end() ? std::string() : it->second;
  };
  const std::string get = page("kw-get.1");
  REQUIRE_FALSE(get.empty());
  for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH EXIT STATUS", ".SH SEE ALSO"})
    CHECK(get.find(section) != std::string::npos);
  CHECK(get.find("\\fB\\-\\-sort\\-by\\fR") != std::string::npos);
  CHECK(get.find("\\fB\\-w\\fR, \\fB\\-\\-watch\\fR") != std::string::npos);
  CHECK(page("kw-patch.1").find("Default: \\fBstrategic\\fR") != std::string::npos);
  CHECK_FALSE(page("kw-config-view.1").empty());
  CHECK(page("kw-__complete.1").empty());
  CHECK(kw::cli::roff_escape(".start -x \\") == "\\&.start \\-x \\e");
}
