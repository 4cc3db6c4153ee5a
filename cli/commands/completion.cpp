// The completion model of the CLI11 definition and the bash/zsh scripts printed from it.
// Both scripts share one candidate function written in the common subset of bash and zsh.
#include "cli/commands/completion.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <set>
#include <sstream>

namespace kw::cli {

namespace {

// The -o values of the commands whose -o is free text (kw get / kw watch).
constexpr std::string_view k_output_values = "json yaml wide name jsonpath= custom-columns=";

// The commands whose positionals are TYPE [NAME...].
const std::set<std::string>& resource_commands() {
  static const std::set<std::string> k_commands = {"get",   "watch", "describe", "delete", "edit",
                                                   "label", "annotate", "patch", "scale", "wait"};
  return k_commands;
}

bool visible(const CLI::App* app) { return !app->get_group().empty(); }

// "{a,b,c}" inside a type name such as "TEXT:{a,b,c}" -> "a b c".
std::string member_values(const std::string& type_name) {
  const auto open = type_name.find('{');
  const auto close = type_name.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::string values = type_name.substr(open + 1, close - open - 1);
  for (char& c : values)
    if (c == ',') c = ' ';
  return values;
}

std::string option_values(const CLI::Option* option) {
  if (auto fixed = member_values(option->get_type_name()); !fixed.empty()) return fixed;
  const auto& long_names = option->get_lnames();
  const std::string name = long_names.empty() ? std::string() : long_names.front();
  if (name == "output") return std::string(k_output_values);
  if (name == "namespace") return "@namespaces";
  if (name == "context") return "@contexts";
  if (name == "cluster") return "@clusters";
  if (name == "user") return "@users";
  for (std::string_view part : {"file", "kubeconfig", "certificate", "key", "dir"})
    if (name.find(part) != std::string::npos) return "@files";
  return {};
}

void collect(const CLI::App* app, const std::string& path, std::vector<CommandCompletion>& out) {
  CommandCompletion command;
  command.path = path;
  const auto subcommands = app->get_subcommands([](const CLI::App*) { return true; });
  for (const auto* sub : subcommands)
    if (visible(sub)) command.subcommands.push_back(sub->get_name());
  for (const auto* option : app->get_options()) {
    if (option->get_positional() && !option->nonpositional()) {
      if (auto fixed = member_values(option->get_type_name()); !fixed.empty()) command.positional = fixed;
      continue;
    }
    OptionCompletion entry;
    for (const auto& s : option->get_snames()) entry.names.push_back("-" + s);
    for (const auto& l : option->get_lnames()) entry.names.push_back("--" + l);
    command.flags.insert(command.flags.end(), entry.names.begin(), entry.names.end());
    if (option->get_items_expected_max() > 0) {
      entry.values = option_values(option);
      command.valued.push_back(std::move(entry));
    }
  }
  if (resource_commands().contains(path)) command.positional = "@resources";
  else if (path == "config use-context" || path == "config get-contexts") command.positional = "@contexts";
  out.push_back(std::move(command));
  for (const auto* sub : subcommands)
    if (visible(sub)) collect(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// __kw_spec PATH: the tables of one command path.
std::string spec_function(const std::vector<CommandCompletion>& model) {
  std::ostringstream out;
  out << "# __kw_spec PATH: subcommands, flags, flags taking a value and positional kind of one command.\n"
         "__kw_spec() {\n"
         "  __kw_subs=\"\"; __kw_flags=\"\"; __kw_valued=\"\"; __kw_args=\"\"\n"
         "  case \"$1\" in\n";
  for (const auto& command : model) {
    std::vector<std::string> valued;
    for (const auto& option : command.valued) valued.insert(valued.end(), option.names.begin(), option.names.end());
    out << "    \"" << command.path << "\")\n";
    if (!command.subcommands.empty()) out << "      __kw_subs=\"" << join(command.subcommands) << "\"\n";
    out << "      __kw_flags=\"" << join(command.flags) << "\"\n";
    if (!valued.empty()) out << "      __kw_valued=\"" << join(valued) << "\"\n";
    if (!command.positional.empty()) out << "      __kw_args=\"" << command.positional << "\"\n";
    out << "      ;;\n";
  }
  out << "  esac\n}\n\n";
  return out.str();
}

// __kw_option_values OPTION: the values of an option of the current command, grouped so each
// distinct value list is written once.
std::string values_function(const std::vector<CommandCompletion>& model) {
  std::map<std::string, std::vector<std::string>> patterns;  // values -> "path:option" patterns
  std::vector<std::string> order;
  for (const auto& command : model)
    for (const auto& option : command.valued) {
      if (option.values.empty()) continue;
      if (!patterns.contains(option.values)) order.push_back(option.values);
      for (const auto& name : option.names) patterns[option.values].push_back("\"" + command.path + ":" + name + "\"");
    }
  std::ostringstream out;
  out << "# __kw_option_values OPTION: candidates for the value of OPTION of the current command.\n"
         "__kw_option_values() {\n"
         "  case \"$__kw_cmd:$1\" in\n";
  for (const auto& values : order) {
    const auto& list = patterns[values];
    out << "    ";
    for (std::size_t i = 0; i < list.size(); ++i) out << (i == 0 ? "" : "|") << list[i];
    out << ")\n      __kw_values \"" << values << "\"\n      ;;\n";
  }
  out << "  esac\n}\n\n";
  return out.str();
}

// The command-line walk, shared by both shells (no arrays, no word splitting).
constexpr std::string_view k_walk = R"SH(# __kw_has LIST WORD: whether WORD is one of the space-separated LIST.
__kw_has() {
  case " $1 " in
    *" $2 "*) return 0 ;;
  esac
  return 1
}

# __kw_remember OPTION VALUE: connection flags are passed on to `kw __complete`.
__kw_remember() {
  case "$1" in
    -s|--server) __kw_c_server="$2" ;;
    --kubeconfig) __kw_c_kubeconfig="$2" ;;
    --context) __kw_c_context="$2" ;;
    --cluster) __kw_c_cluster="$2" ;;
    --user) __kw_c_user="$2" ;;
    --token) __kw_c_token="$2" ;;
    -n|--namespace) __kw_c_namespace="$2" ;;
  esac
}

# __kw_live WHAT [ARG]: names from the server (or kubeconfig) through `kw __complete`.
__kw_live() {
  __kw_out="$("$__kw_prog" __complete "$@" \
    ${__kw_c_server:+"--server=$__kw_c_server"} \
    ${__kw_c_kubeconfig:+"--kubeconfig=$__kw_c_kubeconfig"} \
    ${__kw_c_context:+"--context=$__kw_c_context"} \
    ${__kw_c_cluster:+"--cluster=$__kw_c_cluster"} \
    ${__kw_c_user:+"--user=$__kw_c_user"} \
    ${__kw_c_token:+"--token=$__kw_c_token"} \
    ${__kw_c_namespace:+"--namespace=$__kw_c_namespace"} \
    ${__kw_c_insecure:+"--insecure-skip-tls-verify"} 2>/dev/null)"
}

# __kw_values VALUES: fixed values, or @files / @namespaces / @contexts / @clusters / @users /
# @resources.
__kw_values() {
  case "$1" in
    @files) __kw_files=1 ;;
    @namespaces) __kw_live namespaces ;;
    @contexts) __kw_live contexts ;;
    @clusters) __kw_live clusters ;;
    @users) __kw_live users ;;
    @resources)
      if [ "$__kw_npos" -eq 0 ]; then
        __kw_live resource-types
      else
        __kw_live names "$__kw_type"
      fi
      ;;
    *) __kw_out="$1" ;;
  esac
}

# __kw_candidates PROGRAM WORD... CURRENT: sets __kw_out (space or newline separated
# candidates) or __kw_files=1 (complete file names) for the last word.
__kw_candidates() {
  __kw_out=""
  __kw_files=""
  __kw_prog="$1"
  shift
  __kw_cmd=""
  __kw_pending=""
  __kw_npos=0
  __kw_type=""
  __kw_c_server=""; __kw_c_kubeconfig=""; __kw_c_context=""; __kw_c_cluster=""
  __kw_c_user=""; __kw_c_token=""; __kw_c_namespace=""; __kw_c_insecure=""
  __kw_spec ""
  while [ $# -gt 1 ]; do
    __kw_word="$1"
    shift
    if [ -n "$__kw_pending" ]; then
      __kw_remember "$__kw_pending" "$__kw_word"
      __kw_pending=""
      continue
    fi
    case "$__kw_word" in
      --) ;;
      --*=*) __kw_remember "${__kw_word%%=*}" "${__kw_word#*=}" ;;
      --insecure-skip-tls-verify) __kw_c_insecure=1 ;;
      -*)
        if __kw_has "$__kw_valued" "$__kw_word"; then
          __kw_pending="$__kw_word"
        fi
        ;;
      *)
        if [ "$__kw_npos" -eq 0 ] && __kw_has "$__kw_subs" "$__kw_word"; then
          __kw_cmd="${__kw_cmd:+$__kw_cmd }$__kw_word"
          __kw_spec "$__kw_cmd"
        else
          __kw_npos=$((__kw_npos + 1))
          if [ "$__kw_npos" -eq 1 ]; then
            __kw_type="${__kw_word%%,*}"
          fi
        fi
        ;;
    esac
  done
  __kw_cur="$1"
  if [ -n "$__kw_pending" ]; then
    __kw_option_values "$__kw_pending"
    return 0
  fi
  case "$__kw_cur" in
    -*)
      __kw_out="$__kw_flags"
      return 0
      ;;
  esac
  if [ -n "$__kw_subs" ]; then
    __kw_out="$__kw_subs"
  elif [ -n "$__kw_args" ]; then
    __kw_values "$__kw_args"
  fi
  return 0
}

)SH";

constexpr std::string_view k_bash_wrapper = R"SH(# _kw: the bash completion function. The command line is re-read from COMP_LINE when bash
# provides it, so values holding ':' or '=' (URLs) stay whole.
_kw() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local -a words
  if [[ -n "${COMP_LINE-}" ]]; then
    local line="${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}"
    read -r -a words <<< "$line"
    if [[ ${#words[@]} -eq 0 || "$line" =~ [[:space:]]$ ]]; then
      words+=("")
    fi
  else
    words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
  fi
  local word="${words[${#words[@]}-1]}"
  __kw_candidates "${words[@]}"
  COMPREPLY=()
  if [[ -n "$__kw_files" ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return 0
  fi
  local candidate
  for candidate in $__kw_out; do
    if [[ "$candidate" == "$word"* ]]; then
      COMPREPLY+=("${candidate:${#word}-${#cur}}")
    fi
  done
  if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == *= ]]; then
    compopt -o nospace 2>/dev/null
  fi
  return 0
}

complete -F _kw kw
)SH";

constexpr std::string_view k_zsh_wrapper = R"SH(# _kw: the zsh completion function.
_kw() {
  __kw_candidates "${(@)words[1,CURRENT]}"
  if [[ -n "$__kw_files" ]]; then
    _files
    return
  fi
  local -a candidates
  candidates=(${=__kw_out})
  local -a suffixed plain
  suffixed=(${(M)candidates:#*=})
  plain=(${candidates:#*=})
  (( ${#plain} )) && compadd -- "${plain[@]}"
  (( ${#suffixed} )) && compadd -S '' -- "${suffixed[@]}"
  return 0
}

if [[ "${funcstack[1]}" == "_kw" ]]; then
  _kw "$@"
else
  compdef _kw kw
fi
)SH";

std::string shared_functions(const CLI::App& app) {
  const auto model = completion_model(app);
  return spec_function(model) + values_function(model) + std::string(k_walk);
}

}  // namespace

std::vector<CommandCompletion> completion_model(const CLI::App& app) {
  std::vector<CommandCompletion> out;
  collect(&app, "", out);
  return out;
}

std::string bash_completion_script(const CLI::App& app) {
  return "# bash completion for kw. Generated by `kw completion bash` from the command definitions;\n"
         "# load it with: source <(kw completion bash)\n\n" +
         shared_functions(app) + std::string(k_bash_wrapper);
}

std::string zsh_completion_script(const CLI::App& app) {
  return "#compdef kw\n# zsh completion for kw. Generated by `kw completion zsh` from the command definitions;\n"
         "# install it as _kw in a directory of $fpath, or: source <(kw completion zsh)\n\n" +
         shared_functions(app) + std::string(k_zsh_wrapper);
}

}  // namespace kw::cli
