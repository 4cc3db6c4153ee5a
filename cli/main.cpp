// kw: a Kubernetes API server (`kw serve`) and a kubectl-style watch client in one binary.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kw: a Kubernetes watch stack"};
  app.require_subcommand(1);
  int exit_code = 0;
  kw::cli::add_serve_command(app, &exit_code);
  kw::cli::add_version_command(app);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
