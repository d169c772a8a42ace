// Flush-to-zero and denormals-are-zero for the current thread while in scope,
// as TensorFlow's executor sets them around every CPU kernel
// (port::ScopedFlushDenormal). Samplers whose results can fall into the
// denormal range (gamma with tiny alphas) need it to give TensorFlow's bits:
// there a denormal result becomes 0.
//
// x86 (SSE MXCSR bits 15 and 6) only; elsewhere it does nothing.

#ifndef TRIBUTARY_KERNELS_RANDOM_FLUSH_DENORMAL_H_
#define TRIBUTARY_KERNELS_RANDOM_FLUSH_DENORMAL_H_

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace tributary {
namespace random {

class ScopedFlushDenormal {
 public:
#if defined(__SSE__)
  ScopedFlushDenormal() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
  }
  ~ScopedFlushDenormal() { _mm_setcsr(saved_); }
#else
  ScopedFlushDenormal() = default;
#endif
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
#if defined(__SSE__)
  static constexpr unsigned kFlushToZero = 0x8000;
  static constexpr unsigned kDenormalsAreZero = 0x0040;
  unsigned saved_;
#endif
};

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_FLUSH_DENORMAL_H_
