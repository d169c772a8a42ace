#include "common/rpc/throwaway_pki.h"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/rpc/openssl_handles.h"

namespace tributary {
namespace {

using openssl::BioPtr;
using openssl::KeyPtr;
using openssl::X509Ptr;

absl::Status OpenSslFailure(const std::string& what) {
  std::string why = openssl::TakeError();
  if (why.empty()) why = "unknown error";
  return errors::Internal("OpenSSL could not ", what, ": ", why);
}

absl::StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                               nullptr) != 1) {
    return OpenSslFailure("write a private key");
  }
  return openssl::MemoryBioText(bio.get());
}

absl::StatusOr<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(bio.get(), cert) != 1) {
    return OpenSslFailure("write a certificate");
  }
  return openssl::MemoryBioText(bio.get());
}

absl::StatusOr<KeyPtr> ParseKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return OpenSslFailure("read the CA key");
  return key;
}

absl::StatusOr<X509Ptr> ParseCertificate(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) return OpenSslFailure("read the CA certificate");
  return cert;
}

// Adds extension `nid` = `value` (OpenSSL's config syntax), in the context
// of `issuer` signing `subject`.
absl::Status AddExtension(X509* issuer, X509* subject, int nid,
                          const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, subject, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return OpenSslFailure("make extension " + value);
  X509_add_ext(subject, ext, -1);
  X509_EXTENSION_free(ext);
  return absl::OkStatus();
}

// A certificate for `subject_key` named `common_name`, unsigned, with a
// random serial and the given validity.
absl::StatusOr<X509Ptr> NewCertificate(EVP_PKEY* subject_key,
                                       const std::string& common_name,
                                       absl::Duration validity,
                                       absl::Duration not_before_offset) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) {
    return OpenSslFailure("draw a serial number");
  }
  serial[0] &= 0x7f;  // Positive.
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  const long offset =  // NOLINT(runtime/int)
      static_cast<long>(absl::ToInt64Seconds(not_before_offset));  // NOLINT
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), offset - 60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                  offset + static_cast<long>(  // NOLINT(runtime/int)
                               absl::ToInt64Seconds(validity)));
  X509_set_pubkey(cert.get(), subject_key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(
      name, "O", MBSTRING_UTF8,
      reinterpret_cast<const unsigned char*>("Tributary"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_UTF8,
      reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  return cert;
}

absl::StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) return OpenSslFailure("generate a P-256 key");
  return key;
}

bool IsIpAddress(const std::string& host) {
  ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str());
  ERR_clear_error();  // A DNS name reads as an error.
  if (ip == nullptr) return false;
  ASN1_OCTET_STRING_free(ip);
  return true;
}

}  // namespace

absl::StatusOr<ThrowawayCa> ThrowawayCa::Create(const std::string& common_name,
                                                absl::Duration validity) {
  TRIB_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  TRIB_ASSIGN_OR_RETURN(
      X509Ptr cert,
      NewCertificate(key.get(), common_name, validity, absl::ZeroDuration()));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  TRIB_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(),
                                    NID_basic_constraints,
                                    "critical,CA:TRUE,pathlen:0"));
  TRIB_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_key_usage,
                                    "critical,keyCertSign,cRLSign"));
  TRIB_RETURN_IF_ERROR(
      AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return OpenSslFailure("sign the CA certificate");
  }
  ThrowawayCa ca;
  TRIB_ASSIGN_OR_RETURN(ca.ca_.certificate, CertificatePem(cert.get()));
  TRIB_ASSIGN_OR_RETURN(ca.ca_.private_key, KeyPem(key.get()));
  return ca;
}

absl::StatusOr<PemPair> ThrowawayCa::Issue(
    const std::string& common_name, const std::vector<std::string>& hosts,
    absl::Duration validity, absl::Duration not_before_offset) const {
  TRIB_ASSIGN_OR_RETURN(KeyPtr ca_key, ParseKey(ca_.private_key));
  TRIB_ASSIGN_OR_RETURN(X509Ptr ca_cert, ParseCertificate(ca_.certificate));
  TRIB_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  TRIB_ASSIGN_OR_RETURN(
      X509Ptr cert,
      NewCertificate(key.get(), common_name, validity, not_before_offset));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  TRIB_RETURN_IF_ERROR(AddExtension(
      ca_cert.get(), cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  TRIB_RETURN_IF_ERROR(AddExtension(ca_cert.get(), cert.get(), NID_key_usage,
                                    "critical,digitalSignature"));
  TRIB_RETURN_IF_ERROR(AddExtension(
      ca_cert.get(), cert.get(), NID_ext_key_usage, "serverAuth,clientAuth"));
  TRIB_RETURN_IF_ERROR(AddExtension(ca_cert.get(), cert.get(),
                                    NID_authority_key_identifier, "keyid"));
  if (!hosts.empty()) {
    std::vector<std::string> names;
    for (const std::string& host : hosts) {
      names.push_back(absl::StrCat(IsIpAddress(host) ? "IP:" : "DNS:", host));
    }
    TRIB_RETURN_IF_ERROR(AddExtension(ca_cert.get(), cert.get(),
                                      NID_subject_alt_name,
                                      absl::StrJoin(names, ",")));
  }
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) {
    return OpenSslFailure("sign a certificate");
  }
  PemPair pair;
  TRIB_ASSIGN_OR_RETURN(pair.certificate, CertificatePem(cert.get()));
  TRIB_ASSIGN_OR_RETURN(pair.private_key, KeyPem(key.get()));
  return pair;
}

absl::Status WritePrivateFile(const std::string& path,
                              const std::string& contents) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return errors::Internal("Cannot write ", path, ": ", std::strerror(errno));
  }
  fchmod(fd, 0600);  // An existing file keeps its mode otherwise.
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n =
        write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return errors::Internal("Cannot write ", path, ": ", std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    return errors::Internal("Cannot write ", path, ": ", std::strerror(errno));
  }
  return absl::OkStatus();
}

}  // namespace tributary
