// A pod's volumes (server/registry/kinds/pod_volumes.cpp) and the downward API references in
// them (downward_api.cpp), through the Pod row's create validation.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

// The causes a new pod with `volumes` (and a container mounting `mounts`) gets, as
// "field|message" lines.
std::string vol_causes(json volumes, json mounts = json::array(), std::string name = "web") {
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", std::move(name)}, {"namespace", "default"}}},
              {"spec",
               {{"serviceAccountName", "default"},
                {"volumes", std::move(volumes)},
                {"containers", {{{"name", "web"}, {"image", "nginx"}, {"volumeMounts", std::move(mounts)}}}}}}};
  default_object(*row, pod);
  row->strategy.prepare_create(pod);
  Causes causes = json::array();
  row->strategy.validate_create(pod, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

const char* k_mode_error = "must be a number between 0 and 0777 (octal), both inclusive";

}  // namespace

TEST_CASE("pod volumes: each volume has one source, checked before its name") {
  CHECK(vol_causes({{{"name", "a"}, {"emptyDir", json::object()}}}).empty());
  // (a volume with no source gets an emptyDir by default, so "must specify a volume type" is never said)
  CHECK(vol_causes({{{"name", "a"}}}).empty());
  CHECK(vol_causes({{{"name", "a"}, {"emptyDir", json::object()}, {"hostPath", {{"path", "/x"}}}}}) ==
        "spec.volumes[0].hostPath|Forbidden: may not specify more than 1 volume type\n");
  CHECK(vol_causes({{{"name", "A"}, {"secret", json::object()}}, {{"name", "b"}, {"emptyDir", json::object()}},
                    {{"name", "b"}, {"emptyDir", json::object()}}}) ==
        "spec.volumes[0].secret.secretName|Required value\n"
        "spec.volumes[0].name|Invalid value: \"A\": a lowercase RFC 1123 label must consist of lower case "
        "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
        "spec.volumes[2].name|Duplicate value: \"b\"\n");
}

TEST_CASE("pod volumes: a mount may only name a volume that passed its checks") {
  CHECK(vol_causes({{{"name", "a"}, {"secret", json::object()}}}, {{{"name", "a"}, {"mountPath", "/a"}}}) ==
        "spec.volumes[0].secret.secretName|Required value\n"
        "spec.containers[0].volumeMounts[0].name|Not found: \"a\"\n");
}

TEST_CASE("pod volumes: secret and config map items and modes") {
  json items = {{{"key", "k"}, {"path", "../x"}},
                {{"key", ""}, {"path", "/abs"}},
                {{"key", "k"}, {"path", "..x"}, {"mode", 512}},
                {{"key", "k"}, {"path", ""}}};
  CHECK(vol_causes({{{"name", "a"}, {"configMap", {{"name", "c"}, {"defaultMode", -1}, {"items", items}}}}}) ==
        "spec.volumes[0].configMap.defaultMode|Invalid value: -1: " + std::string(k_mode_error) + "\n" +
            "spec.volumes[0].configMap.items[0].path|Invalid value: \"../x\": must not contain '..'\n"
            "spec.volumes[0].configMap.items[1].key|Required value\n"
            "spec.volumes[0].configMap.items[1].path|Invalid value: \"/abs\": must be a relative path\n"
            "spec.volumes[0].configMap.items[2].path|Invalid value: \"..x\": must not start with '..'\n"
            "spec.volumes[0].configMap.items[2].mode|Invalid value: 512: " + k_mode_error + "\n" +
            "spec.volumes[0].configMap.items[3].path|Required value\n");
}

TEST_CASE("pod volumes: host paths, empty dirs, NFS and the cloud disks") {
  CHECK(vol_causes({{{"name", "a"}, {"hostPath", {{"path", "/x/../y"}, {"type", "Dir"}}}}}) ==
        "spec.volumes[0].hostPath.path|Invalid value: \"/x/../y\": must not contain '..'\n"
        "spec.volumes[0].hostPath.type|Unsupported value: \"Dir\": supported values: \"\", \"BlockDevice\", "
        "\"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", \"FileOrCreate\", \"Socket\"\n");
  CHECK(vol_causes({{{"name", "a"}, {"emptyDir", {{"sizeLimit", "-1Gi"}}}}}) ==
        "spec.volumes[0].emptyDir.sizeLimit|Forbidden: SizeLimit field must be a valid resource quantity\n");
  CHECK(vol_causes({{{"name", "a"}, {"nfs", {{"server", "s"}, {"path", "rel"}}}}}) ==
        "spec.volumes[0].nfs.path|Invalid value: \"rel\": must be an absolute path\n");
  CHECK(vol_causes({{{"name", "a"}, {"gcePersistentDisk", {{"partition", 300}}}}}) ==
        "spec.volumes[0].persistentDisk.pdName|Required value\n"
        "spec.volumes[0].persistentDisk.partition|Invalid value: 300: must be between 1 and 255, inclusive\n");
}

TEST_CASE("pod volumes: projected sources, one kind each, no path twice, bounded token lifetimes") {
  json sources = {{{"configMap", {{"name", "c"}, {"items", {{{"key", "k"}, {"path", "p"}}}}}}},
                  {{"secret", {{"name", "s"}, {"items", {{{"key", "k"}, {"path", "p"}}}}}}},
                  {{"serviceAccountToken", {{"path", "t"}, {"expirationSeconds", 60}}}},
                  {{"serviceAccountToken", {{"path", "u"}}}, {"configMap", {{"name", "d"}}}}};
  CHECK(vol_causes({{{"name", "a"}, {"projected", {{"sources", sources}}}}}) ==
        "spec.volumes[0].projected|Invalid value: \"s\": conflicting duplicate paths\n"
        "spec.volumes[0].projected.sources[2].serviceAccountToken.expirationSeconds|Invalid value: 60: may not "
        "specify a duration less than 10 minutes\n"
        "spec.volumes[0].projected.sources[3]|Forbidden: may not specify more than 1 volume type\n");
}

TEST_CASE("pod volumes: downward API files name pod fields and container resources as Kubernetes allows") {
  json items = {{{"path", "a"}, {"fieldRef", {{"fieldPath", "spec.nodeName"}}}},
                {{"path", "b"}, {"fieldRef", {{"fieldPath", "metadata.labels['a b']"}}}},
                {{"path", "c"}, {"fieldRef", {{"fieldPath", "metadata.name['x']"}}}},
                {{"path", "d"}, {"resourceFieldRef", {{"resource", "limits.cpu"}}}},
                {{"path", "e"}, {"resourceFieldRef", {{"containerName", "web"}, {"resource", "limits.gpu"}}}},
                {{"path", "f"},
                 {"resourceFieldRef", {{"containerName", "web"}, {"resource", "limits.cpu"}, {"divisor", "2"}}}},
                {{"path", "g"}}};
  CHECK(vol_causes({{{"name", "a"}, {"downwardAPI", {{"items", items}}}}}) ==
        "spec.volumes[0].downwardAPI.fieldRef.fieldPath|Unsupported value: \"spec.nodeName\": supported values: "
        "\"metadata.annotations\", \"metadata.labels\", \"metadata.name\", \"metadata.namespace\", \"metadata.uid\"\n"
        "spec.volumes[0].downwardAPI.fieldRef|Invalid value: \"a b\": name part must consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
        "spec.volumes[0].downwardAPI.fieldRef.fieldPath|Invalid value: \"metadata.name['x']\": error converting "
        "fieldPath: field label does not support subscript: metadata.name['x']\n"
        "spec.volumes[0].downwardAPI.resourceFieldRef.containerName|Required value\n"
        "spec.volumes[0].downwardAPI.resourceFieldRef.resource|Unsupported value: \"limits.gpu\": supported values: "
        "\"limits.cpu\", \"limits.ephemeral-storage\", \"limits.memory\", \"requests.cpu\", "
        "\"requests.ephemeral-storage\", \"requests.memory\"\n"
        "spec.volumes[0].downwardAPI.resourceFieldRef.divisor|Invalid value: \"limits.cpu\": only divisor's values "
        "1m and 1 are supported with the cpu resource\n"
        "spec.volumes[0].downwardAPI|Required value: one of fieldRef and resourceFieldRef is required\n");
}

TEST_CASE("pod volumes: CSI, ephemeral volumes and the claims they create") {
  CHECK(vol_causes({{{"name", "a"}, {"csi", {{"driver", "d.example.com"}, {"nodePublishSecretRef", json::object()}}}}}) ==
        "spec.volumes[0].csi.nodePublishSecretRef.name|Required value\n");
  CHECK(vol_causes({{{"name", "a"}, {"ephemeral", json::object()}}}) ==
        "spec.volumes[0].ephemeral.volumeClaimTemplate|Required value\n");
  json bad_template = {{"metadata", {{"name", "x"}, {"labels", {{"a", "b"}}}, {"uid", "u"}}},
                       {"spec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  CHECK(vol_causes({{{"name", "a"}, {"ephemeral", {{"volumeClaimTemplate", bad_template}}}}}) ==
        "spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name|Forbidden: cannot be set for an ephemeral "
        "volume\n"
        "spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.uID|Forbidden: cannot be set for an ephemeral "
        "volume\n"
        "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes|Required value: at least 1 access mode is "
        "required\n");
  json claim_template = {{"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  CHECK(vol_causes({{{"name", "data"}, {"ephemeral", {{"volumeClaimTemplate", claim_template}}}},
                    {{"name", "b"}, {"persistentVolumeClaim", {{"claimName", "web-data"}}}}}) ==
        "spec.volumes[1].persistentVolumeClaim.claimName|Invalid value: \"web-data\": must not reference a PVC that "
        "gets created for an ephemeral volume\n");
  const std::string long_name(250, 'p');
  CHECK(vol_causes({{{"name", "data"}, {"ephemeral", {{"volumeClaimTemplate", claim_template}}}}}, json::array(),
                   long_name) ==
        "spec.volumes[0].name|Invalid value: \"data\": PVC name \"" + long_name +
            "-data\": must be no more than 253 characters\n");
}
