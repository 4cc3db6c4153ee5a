#pragma once
// A CustomResourceDefinition (apiextensions.k8s.io/v1) as the server uses it: validated,
// turned into the resource-table entries of its served versions, and given the status
// kube-apiserver's controllers would set (NamesAccepted, Established, acceptedNames).
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "server/crd/validation_rules.hpp"

namespace kw::crd {

struct Version {
  std::string name;     // "v1"
  bool served = true;
  bool storage = false;
  nlohmann::json schema;  // openAPIV3Schema; null when the version has none
  bool status_subresource = false;
  nlohmann::json scale;   // subresources.scale (specReplicasPath...) or null
  std::vector<api::ColumnDefinition> columns;  // Table columns, NAME first
  std::shared_ptr<const ValidationRules> rules;  // the schema's x-kubernetes-validations
};

struct Definition {
  std::string name;  // metadata.name: <plural>.<group>
  std::string group;
  std::string kind, list_kind, plural, singular;
  std::vector<std::string> short_names, categories;
  bool namespaced = true;
  std::vector<Version> versions;
  // spec.conversion.webhook (clientConfig, conversionReviewVersions) when the strategy is
  // Webhook; null for None (versions differ in apiVersion only).
  nlohmann::json conversion_webhook;

  const Version* find_version(const std::string& name) const;
  const Version& storage_version() const;  // exactly one exists once parsed
  // One table entry per served version, marked as a custom resource.
  std::vector<api::ResourceInfo> resource_infos() const;
};

// The `causes` ({reason, message, field}) of a CRD object; empty when valid.
nlohmann::json validate_definition(const nlohmann::json& crd);
// A validated CRD object as a Definition (call validate_definition first).
std::shared_ptr<const Definition> parse_definition(const nlohmann::json& crd);
// `crd` with the status a serving CRD has: conditions NamesAccepted and Established True,
// acceptedNames from spec.names, storedVersions including the storage version.
nlohmann::json with_established_status(nlohmann::json crd, const std::string& now_rfc3339);

}  // namespace kw::crd
