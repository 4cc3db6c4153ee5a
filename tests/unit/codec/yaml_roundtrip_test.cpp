#include <doctest/doctest.h>

#include "core/codec/yaml.hpp"

using kw::codec::json_to_yaml;
using kw::codec::yaml_to_json;
using nlohmann::json;

namespace {

const char* const k_corpus[] = {
    // A pod with probes, volumes, affinity, resources.
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default",
      "labels":{"app.kubernetes.io/name":"web","tier":"frontend"},
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"a\":1}\n","note":"multi\nline"},
      "creationTimestamp":"2024-05-01T10:00:00Z","uid":"7d3b1c1e-0000-4000-8000-000000000001","resourceVersion":"12345"},
     "spec":{"containers":[{"name":"app","image":"registry.example.com:5000/web@sha256:abcdef","command":["/bin/sh","-c"],
       "args":["echo start && exec server --port=8080 # not a comment"],
       "env":[{"name":"MODE","value":"true"},{"name":"COUNT","value":"0123"},{"name":"EMPTY","value":""},
              {"name":"POD_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}}],
       "ports":[{"containerPort":8080,"protocol":"TCP","name":"http"}],
       "resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"0.25","memory":"64Mi"}},
       "livenessProbe":{"httpGet":{"path":"/healthz","port":"http"},"initialDelaySeconds":3,"periodSeconds":10},
       "readinessProbe":{"exec":{"command":["cat","/tmp/ready"]},"failureThreshold":3},
       "volumeMounts":[{"name":"config","mountPath":"/etc/config","readOnly":true}]}],
      "volumes":[{"name":"config","configMap":{"name":"web-config","defaultMode":420}},{"name":"tmp","emptyDir":{}}],
      "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]}]}]}},
        "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
          "labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}},
      "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
      "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeSelector":{}},
     "status":{"phase":"Running","podIP":"10.0.0.5","conditions":[{"type":"Ready","status":"True","lastProbeTime":null}]}})",
    // A deployment with intOrString values.
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","generation":3},
     "spec":{"replicas":3,"selector":{"matchLabels":{"app":"api"}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
      "template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"api","image":"api:v2",
        "ports":[{"containerPort":80}],"resources":{}}]}}},
     "status":{"replicas":3,"readyReplicas":2,"conditions":[]}})",
    // A configmap full of strings that look like other things.
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"tricky"},
     "data":{"bool":"true","False":"False","yes":"yes","on":"on","octal":"0123","exp":"1e3","float":"3.14","int":"42",
      "neg":"-1","null":"null","tilde":"~","empty":"","colon":": ","dash":"- x","dashes":"---","dots":"...",
      "hash":"# not a comment","amp":"&anchor","star":"*alias","bang":"!tag","pipe":"| x","gt":"> x","pct":"%x",
      "at":"@x","tick":"`x","quote":"\"q\"","squote":"'s'","brace":"{a: b}","bracket":"[1, 2]","comma":",x",
      "question":"? x","unicode":"héllo wörld — 日本語 🚀","nel":"a\u0085b","ls":"a\u2028b","bom":"\ufeffx",
      "ctrl":"bell\u0007","tab":"\tx","cr":"line\r","ts":"2024-01-01","ver":"1.2.3","ip":"10.0.0.1:80",
      "url":"http://example.com/a?b=c#d","windows":"C:\\path\\file","backslash":"\\","spaces":"  ",
      "script":"#!/bin/bash\nset -e\n\necho \"done\"\n","nochomp":"a\n  b\nc","keep":"x\n\n\n",
      "leading-nl":"\nfirst","only-nl":"\n","props":"a=1\nb: 2\n- c\n","key: with colon":"v",
      "0x1F":"hex key","1_000":"underscore"}})",
    // A secret and a list with mixed values.
    R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds","labels":{}},"type":"kubernetes.io/tls",
     "data":{"tls.crt":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==","tls.key":"c2VjcmV0"},
     "stringData":{"password":"p@ss: w#rd"}})",
    R"({"apiVersion":"v1","kind":"List","items":[[],{},[[1,2],[3]],[{"a":null}],null,true,1.5,-0.25,1e300,
      9223372036854775807,-9223372036854775808,18446744073709551615,"x"]})",
};

}  // namespace

TEST_CASE("yaml round trip: json -> yaml -> json is identical for realistic manifests") {
  for (const char* text : k_corpus) {
    json original = json::parse(text);
    std::string yaml = json_to_yaml(original);
    CAPTURE(yaml);
    auto back = yaml_to_json(yaml);
    REQUIRE_MESSAGE(back, (back ? "" : back.error().message));
    REQUIRE(back->size() == 1);
    CHECK(back->front() == original);
    // And the YAML is stable: converting again gives the same text.
    CHECK(json_to_yaml(back->front()) == yaml);
  }
}

TEST_CASE("yaml round trip: strings that must keep their type") {
  for (const char* s : {"true", "false", "True", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "",
                        "0", "0123", "0x10", "0o7", "0b101", "1_000", "+1", "-1", "1.", ".5", "1e3", "1E-3",
                        ".inf", "-.Inf", ".nan", "2001-12-14t21:59:43.10-05:00", "2002-12-14", "=", "<<"}) {
    json j = {{"v", s}, {s, "key"}};
    std::string yaml = json_to_yaml(j);
    CAPTURE(yaml);
    auto back = yaml_to_json(yaml);
    REQUIRE_MESSAGE(back, (back ? "" : back.error().message));
    CHECK(back->front() == j);
  }
}

TEST_CASE("yaml output of deeply nested objects grows linearly and reads back") {
  auto nested = [](int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += i % 3 == 2 ? "[" : "{\"k\":";
    text += "\"leaf\"";
    for (int i = depth - 1; i >= 0; --i) text += i % 3 == 2 ? "]" : "}";
    return json::parse(text);
  };
  const json deep = nested(300);  // yaml-cpp reads flow collections a few hundred levels deep
  const std::string yaml = json_to_yaml(deep);
  CHECK(yaml.size() < 20 * deep.dump().size());
  auto back = yaml_to_json(yaml);
  REQUIRE_MESSAGE(back, (back ? "" : back.error().message));
  CHECK(back->front() == deep);
  CHECK(json_to_yaml(nested(9000)).size() < 20 * nested(9000).dump().size());  // block style: ~100 MB
}
