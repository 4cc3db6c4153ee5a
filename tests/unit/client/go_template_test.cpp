#include <doctest/doctest.h>

#include <span>
#include <string>
#include <string_view>

#include "cli/print/go_template.hpp"

namespace {

using nlohmann::json;

// A Pod as kubectl hands it to the template: decoded from JSON, so every number is a float64.
const json k_go_template_pod = json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web", "tier": "frontend"}, "annotations": {}},
  "spec": {"replicas": 3, "containers": [
    {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]},
    {"name": "sidecar", "image": "busybox"}]},
  "status": {"phase": "Running", "ready": true, "ratio": 1.5, "restarts": 0, "message": "", "reason": null,
             "conditions": [], "capacity": {}},
  "data": {"password": "czNjcjN0", "user": "YWRtaW4="},
  "big": 1000000, "small": 0.0001, "huge": 123456789, "neg": -2.5,
  "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]
})");

// One row: the template, what it prints, and Go's error when it fails (output before it stays).
// The expected texts are what Go's text/template prints for the same template and object.
struct GoTemplateCase {
  std::string_view tmpl;
  std::string_view out;
  std::string_view err = {};
};

struct GoTemplateRun {
  std::string out;
  std::string err;
};

GoTemplateRun run_go_template(std::string_view text, const json& data, bool missing_keys_allowed = true) {
  GoTemplateRun run;
  auto tmpl = kw::cli::parse_go_template(text);
  if (!tmpl) return {"", tmpl.error().message};
  if (auto done = kw::cli::execute(*tmpl, data, run.out, missing_keys_allowed); !done) run.err = done.error().message;
  return run;
}

void check_go_templates(std::span<const GoTemplateCase> cases, bool missing_keys_allowed = true) {
  for (const GoTemplateCase& c : cases) {
    CAPTURE(c.tmpl);
    GoTemplateRun run = run_go_template(c.tmpl, k_go_template_pod, missing_keys_allowed);
    CHECK(run.out == c.out);
    CHECK(run.err == c.err);
  }
}

}  // namespace

TEST_CASE("go-template: kubectl's documented templates") {
  const GoTemplateCase cases[] = {
      {"{{.status.phase}}", "Running"},
      {R"({{range .items}}{{.metadata.name}}{{"\n"}}{{end}})", "a\nb\n"},
      {R"({{index .metadata.labels "app"}})", "web"},
      {R"({{range $k, $v := .data}}{{$k}}={{$v | base64decode}}{{"\n"}}{{end}})", "password=s3cr3t\nuser=admin\n"},
      {R"({{if eq .status.phase "Running"}}up{{else}}down{{end}})", "up"},
      {"{{range .spec.containers}}{{.name}}:{{.image}} {{end}}", "nginx:nginx:1.25 sidecar:busybox "},
      {R"({{.metadata.name}}{{"\t"}}{{.status.phase}})", "web-1\tRunning"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: values print as Go prints decoded JSON") {
  const GoTemplateCase cases[] = {
      {"{{.spec.replicas}}", "3"},
      {"{{.big}}", "1e+06"},
      {"{{.status.ratio}}", "1.5"},
      {"{{.small}}", "0.0001"},
      {"{{.huge}}", "1.23456789e+08"},
      {"{{.neg}}", "-2.5"},
      {"{{.status.restarts}}", "0"},
      {"{{.status.ready}}", "true"},
      {"{{.metadata.labels}}", "map[app:web tier:frontend]"},
      {"{{.spec.containers}}",
       "[map[image:nginx:1.25 name:nginx ports:[map[containerPort:80]]] map[image:busybox name:sidecar]]"},
      {"{{.status.conditions}}", "[]"},
      {"{{.status.capacity}}", "map[]"},
      {"{{.status.reason}}", "<no value>"},
      {"{{print .status.reason}}", "<nil>"},
      {"{{.missing}}", "<no value>"},
      {"{{.metadata.missing}}", "<no value>"},
      {"{{.missing.deeper}}", "<no value>"},
      {"{{.status.message}}|", "|"},
      {"{{.items}}", "[map[metadata:map[name:a]] map[metadata:map[name:b]]]"},
      {"{{index .spec.containers 0}}", "map[image:nginx:1.25 name:nginx ports:[map[containerPort:80]]]"},
      {"{{1.5}} {{3}} {{'a'}} {{0x10}} {{1e3}} {{true}}", "1.5 3 97 16 1000 true"},
      {R"({{"\u00e9\t\"x\""}}|{{`raw\n`}})", "é\t\"x\"|raw\\n"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: text, trim markers, variables and control structures") {
  const GoTemplateCase cases[] = {
      {R"(a {{- " b " -}} c)", "a b c"},
      {"x {{/* a comment */}} y", "x  y"},
      {"x {{- /* trimmed */ -}} y", "xy"},
      {"{{$n := .metadata.name}}{{$n}}", "web-1"},
      {"{{$x := 1}}{{$x = 2}}{{$x}}", "2"},
      {"{{range $i, $c := .spec.containers}}{{$i}}:{{$c.name}} {{end}}", "0:nginx 1:sidecar "},
      {"{{range $c := .spec.containers}}{{$c.image}} {{end}}", "nginx:1.25 busybox "},
      {"{{range .metadata.labels}}{{.}},{{end}}", "web,frontend,"},
      {"{{range $k, $v := .metadata.labels}}{{$k}}={{$v}};{{end}}", "app=web;tier=frontend;"},
      {"{{range .status.conditions}}x{{else}}none{{end}}", "none"},
      {"{{range .missing}}x{{else}}missing{{end}}", "missing"},
      {R"({{range .spec.containers}}{{if eq .name "sidecar"}}{{break}}{{end}}{{.name}}{{end}})", "nginx"},
      {R"({{range .spec.containers}}{{if eq .name "nginx"}}{{continue}}{{end}}{{.name}}{{end}})", "sidecar"},
      {"{{with .status.phase}}phase={{.}}{{end}}", "phase=Running"},
      {"{{with .status.message}}yes{{else}}empty{{end}}", "empty"},
      {"{{if .status.restarts}}a{{else if .status.message}}b{{else if .status.ratio}}c{{end}}", "c"},
      {"{{if and .status.ready (gt .spec.replicas 2.0)}}ok{{end}}", "ok"},
      {"{{if not .status.reason}}no reason{{end}}", "no reason"},
      {"{{range .items}}{{$.metadata.name}}/{{.metadata.name}} {{end}}", "web-1/a web-1/b "},
      {"{{(index .spec.containers 1).name}}", "sidecar"},
      {R"({{.metadata.name | printf "%s!" | printf "<%s>"}})", "<web-1!>"},
      {R"({{define "c"}}[{{.name}}]{{end}}{{range .spec.containers}}{{template "c" .}}{{end}})", "[nginx][sidecar]"},
      {R"({{block "b" .kind}}<{{.}}>{{end}})", "<Pod>"},
      {R"({{define "t"}}{{.}}{{end}}{{template "t"}})", "<no value>"},
      // Newer Go: range over an integer, {{else with}}, and range assigning existing variables.
      {"{{range 3}}{{.}}{{end}}", "012"},
      {"{{range $i, $j := 3}}{{end}}", "",
       R"(template: output:1:18: executing "output" at <3>: can't use 3 to iterate over more than one variable)"},
      {"{{with .missing}}a{{else with .kind}}{{.}}{{end}}", "Pod"},
      {"{{$i := 0}}{{$c := 0}}{{range $i, $c = .items}}{{end}}{{$i}} {{$c}}", "1 map[metadata:map[name:b]]"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: builtin functions and kubectl's exists and base64decode") {
  const GoTemplateCase cases[] = {
      {"{{len .spec.containers}} {{len .metadata.labels}} {{len .kind}}", "2 2 3"},
      {R"({{index .spec.containers 0 "ports" 0 "containerPort"}})", "80"},
      {R"({{index .metadata.labels "nope"}})", "<no value>"},
      {"{{slice .items 1}}", "[map[metadata:map[name:b]]]"},
      {"{{slice .kind 1 3}}", "od"},
      {R"({{index "abc" 1}})", "98"},
      {R"({{print 1 2 "a" "b" 3 nil}})", "1 2ab3 <nil>"},
      {R"({{println "a" 1}})", "a 1\n"},
      {R"({{printf "%s has %d" .kind 2}})", "Pod has 2"},
      {R"({{eq .kind "Pod" "Service"}} {{eq 1 2 3}})", "true false"},
      {R"({{ne .kind "Pod"}})", "false"},
      {R"({{lt 1 2}} {{le 2 2}} {{gt 1.5 2.5}} {{ge "b" "a"}})", "true true false true"},
      {"{{eq .spec.replicas 3.0}}", "true"},
      {R"({{and 1 0 2}} {{and 1 2}} {{or 0 "" 3}} {{or 0 ""}} {{not 0}})", "0 2 3  true"},
      {R"({{html "<a href='x'>&\"</a>"}})", "&lt;a href=&#39;x&#39;&gt;&amp;&#34;&lt;/a&gt;"},
      {R"({{js "it's <b>\"=\u00e9\n"}})", R"(it\'s \u003Cb\u003E\"\u003Dé\u000A)"},
      {R"({{urlquery "a b&c=d/é"}})", "a+b%26c%3Dd%2F%C3%A9"},
      {"{{html .missing}}", "&lt;no value&gt;"},
      {R"({{exists . "kind"}} {{exists . "nope"}} {{exists .spec.containers 1}} {{exists .spec.containers 2}})",
       "true false true false"},
      {R"({{exists .status "reason"}} {{exists . "spec" "containers" 0 "ports"}} {{exists .missing}} {{exists )"
       R"(.spec.replicas "x"}})",
       "false true true false"},
      {R"({{base64decode "aGVsbG8="}})", "hello"},
      {R"({{"aGVs\nbG8=" | base64decode}})", "hello"},
      {R"({{base64decode ""}})", ""},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: printf follows Go's fmt") {
  const GoTemplateCase cases[] = {
      {R"({{printf "%d" .spec.replicas}})", "%!d(float64=3)"},
      {R"({{printf "%v %s" .spec.replicas .spec.replicas}})", "3 %!s(float64=3)"},
      {R"({{printf "%.0f|%.2f|%f" .spec.replicas .status.ratio .big}})", "3|1.50|1000000.000000"},
      {R"({{printf "%g|%e|%E|%G" .big .big 0.000012 1e-7}})", "1e+06|1.000000e+06|1.200000E-05|1E-07"},
      {R"({{printf "%5s|%-5s|%.2s|%5.1s|" "ab" "ab" "abc" "xyz"}})", "   ab|ab   |ab|    x|"},
      {R"({{printf "%05d|%+d|% d|%x|%X|%o|%b|%#x" 42 42 42 255 255 8 5 255}})", "00042|+42| 42|ff|FF|10|101|0xff"},
      {R"({{printf "%q|%x|% X|%+q" "a\"é\n" "hi" "hi" "é"}})", R"("a\"é\n"|6869|68 69|"\u00e9")"},
      {R"({{printf "%t|%5t" true false}})", "true|false"},
      {R"({{printf "%v|%d|%s" .metadata.labels .metadata.labels .spec.containers}})",
       "map[app:web tier:frontend]|map[%!d(string=app):%!d(string=web) "
       "%!d(string=tier):%!d(string=frontend)]|[map[image:nginx:1.25 name:nginx "
       "ports:[map[containerPort:%!s(float64=80)]]] map[image:busybox name:sidecar]]"},
      {R"({{printf "%T %T %T %T %T %T" 1 1.5 "s" true .metadata.labels .items}})",
       "int float64 string bool map[string]interface {} []interface {}"},
      {R"({{printf "%d %s" "x" 1}})", "%!d(string=x) %!s(int=1)"},
      {R"({{printf "%s"}})", "%!s(MISSING)"},
      {R"({{printf "%s" "a" "b" 1}})", "a%!(EXTRA string=b, int=1)"},
      {R"({{printf "100%%"}})", "100%"},
      {R"({{printf "%s %v %d" nil .missing .status.reason}})", "%!s(<nil>) <nil> %!d(<nil>)"},
      {R"({{printf "%8.3f|%-8.2f|%08.2f|%+.1e" 3.14159 2.5 -3.5 12345.678}})", "   3.142|2.50    |-0003.50|+1.2e+04"},
      {R"({{printf "%c%c|%U|%q" 72 0x1F600 0x1F600 65}})", "H😀|U+1F600|'A'"},
      {R"({{printf "%#.3g|%#g|%#e|%.0x|%#q|%#q" 1.0 100000.0 2.0 3.5 "hé" "a`b"}})",
       R"(1.00|100000.|2.000000e+00|0x1p+02|`hé`|"a`b")"},
      {R"({{printf "%z" 1}})", "%!z(int=1)"},
      {R"({{printf "%"}})", "%!(NOVERB)"},
      {R"({{printf "%#v" .items}})",
       R"([]interface {}{map[string]interface {}{"metadata":map[string]interface {}{"name":"a"}}, )"
       R"(map[string]interface {}{"metadata":map[string]interface {}{"name":"b"}}})"},
      {R"({{printf "%6.2f%%" .status.ratio}})", "  1.50%"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: parse errors are worded as Go's") {
  const GoTemplateCase cases[] = {
      {"{{.a}", "", "template: output:1: bad character U+007D '}'"},
      {"{{.a", "", "template: output:1: unclosed action"},
      {"{{foo}}", "", R"(template: output:1: function "foo" not defined)"},
      {"{{.x | foo 1}}", "", R"(template: output:1: function "foo" not defined)"},
      {"{{end}}", "", "template: output:1: unexpected {{end}}"},
      {"{{else}}", "", "template: output:1: unexpected {{else}}"},
      {"{{if .a}}x", "", "template: output:1: unexpected EOF"},
      {"{{if}}{{end}}", "", "template: output:1: missing value for if"},
      {"{{range .a}}{{else}}{{else}}{{end}}", "", "template: output:1: expected end; found {{else}}"},
      {"{{$x}}", "", R"(template: output:1: undefined variable "$x")"},
      {"{{.a!}}", "", "template: output:1: bad character U+0021 '!'"},
      {R"({{"unterminated}})", "", "template: output:1: unterminated quoted string"},
      {"{{`raw}}", "", "template: output:1: unterminated raw quoted string"},
      {"{{'ab'}}", "", "template: output:1: malformed character constant: 'ab'"},
      {"{{3x}}", "", R"(template: output:1: bad number syntax: "3x")"},
      {"{{(1}}", "", "template: output:1: unclosed left paren"},
      {"{{1)}}", "", "template: output:1: unexpected right paren"},
      {"{{/* unclosed", "", "template: output:1: unclosed comment"},
      {"{{/* x */ .a}}", "", "template: output:1: comment ends before closing delimiter"},
      {"{{break}}", "", "template: output:1: {{break}} outside {{range}}"},
      {"{{continue}}", "", "template: output:1: {{continue}} outside {{range}}"},
      {"{{range .a}}{{break 1}}{{end}}", "", R"(template: output:1: unexpected "1" in {{break}})"},
      {"{{.a | 1}}", "", "template: output:1: non executable command in pipeline stage 2"},
      {"{{$x := 1 := 2}}", "", R"(template: output:1: unexpected ":=" in operand)"},
      {"{{range $a, $b, $c := .x}}{{end}}", "", "template: output:1: too many declarations in range"},
      {"{{with $a, $b := .x}}{{end}}", "", "template: output:1: too many declarations in with"},
      {R"({{"a".b}})", "", R"(template: output:1: unexpected . after term "\"a\"")"},
      {"{{template 1}}", "", R"(template: output:1: unexpected "1" in template clause)"},
      {R"({{define "a"}}1{{end}}{{define "a"}}2{{end}})", "",
       R"(template: output:1: template: multiple definition of template "a")"},
      {"{{if 1}}\n\n{{.a\n\n", "", "template: output:5: unclosed action started at output:3"},
      {R"({{"\q"}})", "", "template: output:1: invalid syntax"},
      {"{{1e400}}", "", R"(template: output:1: illegal number syntax: "1e400")"},
      {"{{.a}} {{ @ }}", "", R"(template: output:1: unexpected "@" in command)"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: execution errors are worded as Go's") {
  const GoTemplateCase cases[] = {
      {"{{.kind.x}}", "",
       R"(template: output:1:7: executing "output" at <.kind.x>: can't evaluate field x in type interface {})"},
      {"{{.status.reason.x}}", "",
       R"(template: output:1:9: executing "output" at <.status.reason.x>: nil pointer evaluating interface {}.x)"},
      {"{{$k := .kind}}{{$k.x}}", "",
       R"(template: output:1:19: executing "output" at <$k.x>: can't evaluate field x in type string)"},
      {"{{range .spec.containers}}{{.name.first}}{{end}}", "",
       R"(template: output:1:33: executing "output" at <.name.first>: can't evaluate field first in type interface {})"},
      {"{{.metadata.name 1}}", "",
       R"(template: output:1:11: executing "output" at <.metadata.name>: name is not a method but has arguments)"},
      {"{{eq .spec.replicas 3}}", "",
       R"(template: output:1:2: executing "output" at <eq .spec.replicas 3>: error calling eq: incompatible types for )"
       "comparison: float64 and int"},
      {"{{lt .kind 1.0}}", "",
       R"(template: output:1:2: executing "output" at <lt .kind 1.0>: error calling lt: incompatible types for )"
       "comparison: string and float64"},
      {"{{lt .metadata.labels 1}}", "",
       R"(template: output:1:2: executing "output" at <lt .metadata.labels 1>: error calling lt: invalid type for )"
       "comparison"},
      {"{{len .spec.replicas}}", "",
       R"(template: output:1:2: executing "output" at <len .spec.replicas>: error calling len: len of type float64)"},
      {"{{len .status.reason}}", "",
       R"(template: output:1:2: executing "output" at <len .status.reason>: error calling len: len of nil pointer)"},
      {"{{index .spec.containers 5}}", "",
       R"(template: output:1:2: executing "output" at <index .spec.containers 5>: error calling index: index out of )"
       "range: 5"},
      {"{{index .spec.containers 2}}", "",
       R"(template: output:1:2: executing "output" at <index .spec.containers 2>: error calling index: reflect: slice )"
       "index out of range"},
      {"{{index .spec.containers 1.0}}", "",
       R"(template: output:1:2: executing "output" at <index .spec.containers 1.0>: error calling index: cannot index )"
       "slice/array with type float64"},
      {"{{index .metadata.labels 1}}", "",
       R"(template: output:1:2: executing "output" at <index .metadata.labels 1>: error calling index: value has type )"
       "int; should be string"},
      {"{{index .missing 0}}", "",
       R"(template: output:1:2: executing "output" at <index .missing 0>: error calling index: index of untyped nil)"},
      {"{{slice .items 2 1}}", "",
       R"(template: output:1:2: executing "output" at <slice .items 2 1>: error calling slice: invalid slice index: 2 )"
       "> 1"},
      {"{{range .kind}}x{{end}}", "",
       R"(template: output:1:8: executing "output" at <.kind>: range can't iterate over Pod)"},
      {"{{range .spec.replicas}}{{end}}", "",
       R"(template: output:1:13: executing "output" at <.spec.replicas>: range can't iterate over 3)"},
      {R"({{template "nope"}})", "",
       R"(template: output:1:11: executing "output" at <{{template "nope"}}>: template "nope" not defined)"},
      {R"({{base64decode "!!!"}})", "",
       R"(template: output:1:2: executing "output" at <base64decode "!!!">: error calling base64decode: base64 )"
       "decode failed: illegal base64 data at input byte 0"},
      {R"({{base64decode "aGVsbG8"}})", "",
       R"(template: output:1:2: executing "output" at <base64decode "aGVsbG8">: error calling base64decode: base64 )"
       "decode failed: illegal base64 data at input byte 4"},
      {"{{base64decode .spec.replicas}}", "",
       R"(template: output:1:20: executing "output" at <.spec.replicas>: wrong type for value; expected string; got )"
       "float64"},
      {"{{.missing | base64decode}}", "",
       R"(template: output:1:13: executing "output" at <base64decode>: invalid value; expected string)"},
      {"{{nil}}", "", R"(template: output:1:2: executing "output" at <nil>: nil is not a command)"},
      {R"({{"x" 1}})", "",
       R"(template: output:1:2: executing "output" at <"x">: can't give argument to non-function "x")"},
      {"{{len}}", "",
       R"(template: output:1:2: executing "output" at <len>: wrong number of args for len: want 1 got 0)"},
      {"{{not 1 2}}", "",
       R"(template: output:1:2: executing "output" at <not>: wrong number of args for not: want 1 got 2)"},
      {"{{printf 3}}", "", R"(template: output:1:9: executing "output" at <3>: expected string; found 3)"},
      {"x\n{{.status.phase.x}}", "x\n",
       R"(template: output:2:9: executing "output" at <.status.phase.x>: can't evaluate field x in type interface {})"},
      {R"({{define "t"}}{{.x}}{{end}}{{template "t" .kind}})", "",
       R"(template: output:1:16: executing "t" at <.x>: can't evaluate field x in type string)"},
      {"{{(.kind).x}}", "",
       R"(template: output:1:3: executing "output" at <.kind>: can't evaluate field x in type string)"},
      {"{{call .kind}}", "",
       R"(template: output:1:2: executing "output" at <call .kind>: error calling call: non-function .kind of type )"
       "string"},
  };
  check_go_templates(cases);
}

TEST_CASE("go-template: --allow-missing-template-keys=false makes a missing key an error") {
  const GoTemplateCase cases[] = {
      {"{{.missing}}", "",
       R"(template: output:1:2: executing "output" at <.missing>: map has no entry for key "missing")"},
      {"{{.metadata.missing}}", "",
       R"(template: output:1:11: executing "output" at <.metadata.missing>: map has no entry for key "missing")"},
      {"{{.missing.deeper}}", "",
       R"(template: output:1:10: executing "output" at <.missing.deeper>: map has no entry for key "missing")"},
      {R"({{index .metadata.labels "nope"}}x)", "<no value>x"},
      {"{{range .items}}{{.spec}}{{end}}", "",
       R"(template: output:1:18: executing "output" at <.spec>: map has no entry for key "spec")"},
      {R"({{exists . "nope"}})", "false"},
      {"{{.status.reason}}", "<no value>"},
      {"{{with .missing}}x{{end}}", "",
       R"(template: output:1:7: executing "output" at <.missing>: map has no entry for key "missing")"},
  };
  check_go_templates(cases, false);
}

TEST_CASE("go-template: nesting and recursion are bounded") {
  // Go stops runaway recursion at 100000 templates; this engine at 1000 nested templates or blocks.
  CHECK(run_go_template(R"({{define "r"}}{{template "r" .}}{{end}}{{template "r" .}})", k_go_template_pod).err ==
        R"(template: output:1:25: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (1000))");
  std::string ifs, ends, parens = "{{print ";
  for (int i = 0; i < 240; ++i) ifs += "{{if 1}}", ends += "{{end}}", parens += "(print ";
  CHECK(run_go_template(ifs + "x" + ends, k_go_template_pod).out == "x");
  CHECK(run_go_template(parens + "1" + std::string(240, ')') + "}}", k_go_template_pod).out == "1");
  for (int i = 0; i < 20; ++i) ifs += "{{if 1}}", ends += "{{end}}", parens += "(print ";
  CHECK(run_go_template(ifs + "x" + ends, k_go_template_pod).err ==
        "template: output:1: max expression depth exceeded");
  CHECK(run_go_template(parens + "1" + std::string(260, ')') + "}}", k_go_template_pod).err ==
        "template: output:1: max expression depth exceeded");
}

TEST_CASE("go-template: one parse runs on many objects") {
  auto tmpl = kw::cli::parse_go_template("{{.metadata.name}}{{if .spec}} {{.spec.x}}{{end}};");
  REQUIRE(tmpl.has_value());
  kw::cli::GoTemplate copy = *tmpl;
  std::string out;
  REQUIRE(kw::cli::execute(*tmpl, json::parse(R"({"metadata": {"name": "a"}})"), out).has_value());
  REQUIRE(kw::cli::execute(copy, json::parse(R"({"metadata": {"name": "b"}, "spec": {"x": 1}})"), out).has_value());
  CHECK(out == "a;b 1;");
  // What was printed before an error stays, as Go's writer received it; null data is an empty map.
  auto failing = kw::cli::parse_go_template("ok {{.a.b}}");
  REQUIRE(failing.has_value());
  out.clear();
  CHECK_FALSE(kw::cli::execute(*failing, json::parse(R"({"a": "s"})"), out).has_value());
  CHECK(out == "ok ");
  out.clear();
  CHECK(kw::cli::execute(*failing, json(), out).has_value());
  CHECK(out == "ok <no value>");
}
