#include "kernels/math/blas_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tributary {
namespace blas {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// XCR0 (which register state the OS saves on a context switch). Inline asm
// rather than _xgetbv so this file needs no -mxsave.
uint64_t ReadXcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}
#endif

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The OpenBLAS entry points we need, looked up in `handle`.
absl::StatusOr<OpenBlas> Bind(void* handle, const std::string& library) {
  OpenBlas blas;
  blas.library = library;
  blas.sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
  blas.dgemm = reinterpret_cast<DgemmFn>(dlsym(handle, "cblas_dgemm"));
  blas.set_num_threads = reinterpret_cast<void (*)(int)>(
      dlsym(handle, "openblas_set_num_threads"));
  blas.get_num_threads =
      reinterpret_cast<int (*)()>(dlsym(handle, "openblas_get_num_threads"));
  auto corename =
      reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"));
  auto config =
      reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_config"));
  if (blas.sgemm == nullptr || blas.dgemm == nullptr ||
      blas.set_num_threads == nullptr || blas.get_num_threads == nullptr ||
      corename == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        library, " is not OpenBLAS: it lacks cblas_sgemm, cblas_dgemm or the "
                 "openblas_* thread/core functions"));
  }
  blas.core = corename();
  if (config != nullptr) blas.config = config();
  // Our function pointer types pass 32-bit ints; an ILP64 build (Debian's
  // libopenblas64) would read garbage for every dimension.
  if (absl::StrContains(blas.config, "USE64BITINT")) {
    return absl::FailedPreconditionError(
        absl::StrCat(library, " uses 64-bit BLAS integers (", blas.config,
                     "); need the 32-bit interface (libopenblas.so.0)"));
  }
  return blas;
}

// op(a) * op(b) by the definition, for SelfCheck.
template <typename T>
std::vector<T> Naive(const std::vector<T>& a, const std::vector<T>& b, int m,
                     int n, int k, bool ta, bool tb) {
  std::vector<T> c(m * n, 0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      T sum = 0;
      for (int p = 0; p < k; ++p) {
        sum += (ta ? a[p * m + i] : a[i * k + p]) *
               (tb ? b[j * k + p] : b[p * n + j]);
      }
      c[i * n + j] = sum;
    }
  }
  return c;
}

// One small product per transpose combination, with edges in every
// dimension of OpenBLAS's register blocks, on small integers (exact in float
// and double, whatever the summation order). We force a core type OpenBLAS
// did not pick itself; should a build compute wrong results with it, MatMul
// must not use it.
template <typename T, typename Fn>
bool SelfCheck(Fn gemm) {
  constexpr int m = 37, n = 35, k = 70;
  std::vector<T> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<T>(i % 7 - 3);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<T>(i % 9 - 4);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      std::vector<T> c(m * n, static_cast<T>(99));
      gemm(kCblasRowMajor, ta ? kCblasTrans : kCblasNoTrans,
           tb ? kCblasTrans : kCblasNoTrans, m, n, k, T(1), a.data(),
           ta ? m : k, b.data(), tb ? k : n, T(0), c.data(), n);
      if (c != Naive(a, b, m, n, k, ta, tb)) return false;
    }
  }
  return true;
}

absl::StatusOr<OpenBlas> Load() {
  std::vector<std::string> candidates;
  const std::string forced = Getenv("TRIBUTARY_OPENBLAS_LIBRARY");
  if (!forced.empty()) {
    candidates.push_back(forced);
  } else {
    candidates = {"libopenblas.so.0", "libopenblas.so"};
  }

  // OpenBLAS reads OPENBLAS_CORETYPE in its load-time constructor, so it has
  // to be in the environment during dlopen. The user's own value wins. We
  // remove ours again afterwards so child processes see the environment the
  // user gave us. (setenv races with getenv in other threads; this runs once,
  // and the daemons and the CLI run it first thing in main, before any other
  // thread exists; elsewhere it runs at the first float MatMul.) An
  // empty value counts as unset, and is put back empty.
  const bool was_set = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  const std::string user_core = Getenv("OPENBLAS_CORETYPE");
  const std::string requested_core =
      user_core.empty() ? ChooseCoreType(DetectCpuFeatures()) : "";
  if (!requested_core.empty()) {
    setenv("OPENBLAS_CORETYPE", requested_core.c_str(), /*overwrite=*/1);
  }
  void* handle = nullptr;
  std::string library;
  std::vector<std::string> errors;
  for (const std::string& candidate : candidates) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      library = candidate;
      break;
    }
    const char* error = dlerror();
    errors.push_back(error != nullptr ? error : candidate);
  }
  if (!requested_core.empty()) {
    if (was_set) {
      setenv("OPENBLAS_CORETYPE", "", /*overwrite=*/1);
    } else {
      unsetenv("OPENBLAS_CORETYPE");
    }
  }
  if (handle == nullptr) {
    return absl::NotFoundError(absl::StrCat("OpenBLAS not loaded: ",
                                            absl::StrJoin(errors, "; ")));
  }

  absl::StatusOr<OpenBlas> blas = Bind(handle, library);
  if (!blas.ok()) {
    dlclose(handle);
    return blas.status();
  }
  blas->requested_core = requested_core;
  blas->user_core = user_core;
  // We split products across our own intra-op threads and call OpenBLAS on
  // each with one thread. (The handle stays open for the process's life:
  // OpenBLAS's threads cannot be unloaded safely.)
  blas->set_num_threads(1);
  if (!SelfCheck<float>(blas->sgemm) || !SelfCheck<double>(blas->dgemm)) {
    return absl::FailedPreconditionError(
        absl::StrCat(library, " with core ", blas->core,
                     " computed a wrong product in the load-time self-check"));
  }
  return blas;
}

}  // namespace

CpuFeatures DetectCpuFeatures() {
  CpuFeatures cpu;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  const unsigned max_leaf = eax;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  cpu.amd = std::strcmp(vendor, "AuthenticAMD") == 0 ||
            std::strcmp(vendor, "HygonGenuine") == 0;

  __get_cpuid(1, &eax, &ebx, &ecx, &edx);
  cpu.fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  if (osxsave) {
    const uint64_t xcr0 = ReadXcr0();
    cpu.os_saves_avx = avx && (xcr0 & 0x6) == 0x6;  // SSE + YMM
    cpu.os_saves_avx512 =
        cpu.os_saves_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM hi, ZMM 16+
  }
  if (max_leaf >= 7) {
    __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
    cpu.avx2 = (ebx >> 5) & 1;
    cpu.avx512f = (ebx >> 16) & 1;
    cpu.avx512dq = (ebx >> 17) & 1;
    cpu.avx512bw = (ebx >> 30) & 1;
    cpu.avx512vl = (ebx >> 31) & 1;
  }
#endif
  return cpu;
}

std::string ChooseCoreType(const CpuFeatures& cpu) {
  if (!cpu.avx2 || !cpu.fma || !cpu.os_saves_avx) return "";
  if (cpu.avx512f && cpu.avx512bw && cpu.avx512dq && cpu.avx512vl &&
      cpu.os_saves_avx512) {
    return "SkylakeX";
  }
  return cpu.amd ? "Zen" : "Haswell";
}

absl::StatusOr<const OpenBlas*> LoadOpenBlas() {
  // Loaded once: OpenBLAS cannot change its kernels after loading, and the
  // handle is never closed (its threads live as long as the process).
  static const absl::StatusOr<OpenBlas>* const loaded =
      new absl::StatusOr<OpenBlas>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace blas
}  // namespace tributary
