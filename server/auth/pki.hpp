#pragma once
// The certificates `kw serve` runs with: on first start a private CA, a serving certificate
// signed by it and an admin client certificate (CN kw-admin, O system:masters) are generated
// into a directory; later starts reuse them. Keys are mode 0600, the directory 0700.
#include <string>
#include <vector>

#include "core/util/error.hpp"

namespace kw::auth {

struct PkiFiles {
  std::string dir;
  std::string ca_cert;       // ca.crt: self-signed, CN kw-ca, 10 years
  std::string ca_key;        // ca.key
  std::string serving_cert;  // serving.crt: serverAuth, SANs localhost 127.0.0.1 ::1 + extras, 1 year
  std::string serving_key;   // serving.key
  std::string admin_cert;    // admin.crt: clientAuth, CN kw-admin, O system:masters, 1 year
  std::string admin_key;     // admin.key
};

// The paths ensure_pki() uses inside `dir` (nothing is read or written).
PkiFiles pki_paths(const std::string& dir);

// Makes `dir` hold a usable PKI. Generates what is missing; reuses what is there. The serving
// certificate is issued again when one of `extra_sans` (an IP literal becomes an IP SAN,
// anything else a DNS SAN) is not in it, when it expires within 30 days, or when the CA did
// not sign it; the admin certificate likewise. A CA with only one of its two files is an
// error (the message says what to remove), never silently replaced.
Result<PkiFiles> ensure_pki(const std::string& dir, const std::vector<std::string>& extra_sans);

}  // namespace kw::auth
