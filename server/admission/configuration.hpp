#pragma once
// kube-apiserver's --admission-control-config-file: an AdmissionConfiguration
// (apiserver.config.k8s.io/v1, or apiserver.k8s.io/v1alpha1) naming plugins, each with its
// configuration inline (`configuration`) or in a file of its own (`path`, relative to the
// configuration file's folder), in YAML or JSON.
//
//   auto configurations = admission::read_admission_configuration("/etc/kw/admission.yaml");
//   (*configurations)["PodSecurity"] is then a PodSecurityConfiguration object.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::admission {

using PluginConfigurations = std::map<std::string, nlohmann::json>;  // by plugin name

Result<PluginConfigurations> read_admission_configuration(const std::string& path);

}  // namespace kw::admission
