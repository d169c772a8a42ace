#ifndef TRIBUTARY_COMMON_RPC_OPENSSL_HANDLES_H_
#define TRIBUTARY_COMMON_RPC_OPENSSL_HANDLES_H_

// OpenSSL objects owned by unique_ptrs that free them the way OpenSSL
// wants, and OpenSSL's error queue as text: what transport_security.cc
// (checking PEM files) and throwaway_pki.cc (making them) share.

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <memory>
#include <string>

namespace tributary {
namespace openssl {

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct StoreDeleter {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreCtxDeleter {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};
struct CertStackDeleter {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};

using BioPtr = std::unique_ptr<BIO, BioDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using StorePtr = std::unique_ptr<X509_STORE, StoreDeleter>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, StoreCtxDeleter>;
using CertStackPtr = std::unique_ptr<STACK_OF(X509), CertStackDeleter>;

// The oldest error in OpenSSL's queue as text ("" when there is none),
// clearing the queue.
inline std::string TakeError() {
  const unsigned long code = ERR_get_error();  // NOLINT(runtime/int)
  ERR_clear_error();
  if (code == 0) return "";
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof(buffer));
  return buffer;
}

// The contents of a memory BIO.
inline std::string MemoryBioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);  // NOLINT(runtime/int)
  return std::string(data, size);
}

}  // namespace openssl
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_OPENSSL_HANDLES_H_
