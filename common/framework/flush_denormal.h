// Flush-to-zero and denormals-are-zero, as TensorFlow runs every CPU kernel
// (its executor scopes port::ScopedFlushDenormal around each node, and its
// Eigen pool threads set the mode when they start): a denormal result
// becomes 0 and a denormal input reads as 0. Tributary does the same, so
// results that reach the denormal range equal TensorFlow's (Mul(1e-30,
// 1e-10) is 0, Exp(-100) is 0), and no kernel pays x86's slow path for
// denormal arithmetic.
//
//  * ScopedFlushDenormal: the mode for the current thread while in scope
//    (the executor's loop, wherever it runs; the samplers that rely on it).
//  * FlushDenormalThreadEnvironment<Base>: an Eigen thread-pool environment
//    whose threads run in the mode for their whole life (the CPU device's
//    intra-op pool, the inter-op pool).
//
// x86 (SSE MXCSR bits 15 and 6) only; elsewhere it does nothing.

#ifndef TRIBUTARY_COMMON_FRAMEWORK_FLUSH_DENORMAL_H_
#define TRIBUTARY_COMMON_FRAMEWORK_FLUSH_DENORMAL_H_

#include <functional>
#include <utility>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace tributary {

#if defined(__SSE__)
inline constexpr unsigned kMxcsrFlushToZero = 0x8000;
inline constexpr unsigned kMxcsrDenormalsAreZero = 0x0040;
#endif

// Sets the mode on the calling thread until something sets it back.
inline void FlushDenormalsOnThisThread() {
#if defined(__SSE__)
  _mm_setcsr(_mm_getcsr() | kMxcsrFlushToZero | kMxcsrDenormalsAreZero);
#endif
}

class ScopedFlushDenormal {
 public:
#if defined(__SSE__)
  ScopedFlushDenormal() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kMxcsrFlushToZero | kMxcsrDenormalsAreZero);
  }
  ~ScopedFlushDenormal() { _mm_setcsr(saved_); }
#else
  ScopedFlushDenormal() = default;
#endif
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
#if defined(__SSE__)
  unsigned saved_;
#endif
};

// Base is an Eigen thread environment (Eigen::StlThreadEnvironment or one
// derived from it); every thread it creates flushes denormals.
template <typename Base>
struct FlushDenormalThreadEnvironment : Base {
  using Base::Base;
  typename Base::EnvThread* CreateThread(std::function<void()> f) {
    return Base::CreateThread([f = std::move(f)] {
      FlushDenormalsOnThisThread();
      f();
    });
  }
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_FLUSH_DENORMAL_H_
