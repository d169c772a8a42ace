#ifndef TRIBUTARY_COMMON_RPC_THROWAWAY_PKI_H_
#define TRIBUTARY_COMMON_RPC_THROWAWAY_PKI_H_

// A throwaway certificate authority, made with OpenSSL: what
// `tributary cluster up --tls auto` gives a local cluster (a CA, one
// certificate per task, one for the client) and what the TLS tests make
// their PKI with. Keys are ECDSA P-256, certificates X.509 v3 signed with
// SHA-256; every issued certificate serves as both TLS server and client
// (extended key usage serverAuth + clientAuth), since a task is both.
//
// Not a production CA: no revocation, no persistence of serials. Keys are
// held in memory as PEM and written with mode 0600.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tributary {

// A certificate and its key, PEM.
struct PemPair {
  std::string certificate;
  std::string private_key;
};

class ThrowawayCa {
 public:
  // A self-signed CA named `common_name`, valid for `validity`.
  static absl::StatusOr<ThrowawayCa> Create(
      const std::string& common_name,
      absl::Duration validity = absl::Hours(24 * 365));

  // A certificate for `common_name` whose subject alternative names are
  // `hosts` (each an IPv4/IPv6 address or a DNS name), signed by this CA.
  // `not_before_offset` shifts its validity window (tests make expired
  // certificates with a negative offset larger than `validity`).
  absl::StatusOr<PemPair> Issue(
      const std::string& common_name, const std::vector<std::string>& hosts,
      absl::Duration validity = absl::Hours(24 * 365),
      absl::Duration not_before_offset = absl::ZeroDuration()) const;

  const PemPair& ca() const { return ca_; }

 private:
  PemPair ca_;
};

// Writes `contents` to `path` readable and writable by this user only.
absl::Status WritePrivateFile(const std::string& path,
                              const std::string& contents);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_THROWAWAY_PKI_H_
