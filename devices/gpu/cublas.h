#ifndef TRIBUTARY_DEVICES_GPU_CUBLAS_H_
#define TRIBUTARY_DEVICES_GPU_CUBLAS_H_

// cuBLAS, opened at run time (libcublas.so.13), one handle per GPU bound to
// its compute stream, for the matrix products of MatMul and BatchMatMulV2.
//
// Products are of row-major matrices, as TensorFlow's tensors are:
//   C[b] (m x n) = op(A[b]) (m x k) * op(B[b]) (k x n),  b < batch,
// where op transposes when asked, and A[b] starts stride_a elements after
// A[b-1] (0: every product uses the same A). float products accumulate in
// float without TF32 (TensorFlow's default: exact float results); half and
// bfloat16 products accumulate in float; double in double.

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/types.h"
#include "devices/gpu/gpu_context.h"

namespace tributary {

struct GemmArgs {
  DataType dtype = DT_FLOAT;  // DT_FLOAT, DT_DOUBLE, DT_HALF or DT_BFLOAT16
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;  // device memory
  const void* b = nullptr;
  void* c = nullptr;
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // in elements
};

class Cublas {
 public:
  // The handle of `gpu`, created on first use and kept for the process.
  // FailedPrecondition when libcublas.so.13 cannot be opened.
  static absl::StatusOr<Cublas*> For(GpuContext* gpu);

  // Enqueues the product(s) on the GPU's compute stream. The context must
  // be current. InvalidArgument for a dtype cuBLAS is not asked to do or a
  // dimension over 2^31-1; the library's error otherwise.
  absl::Status Gemm(const GemmArgs& args);

 private:
  struct Library;
  Cublas(const Library* library, void* handle, GpuContext* gpu)
      : library_(library), handle_(handle), gpu_(gpu) {}

  const Library* const library_;
  absl::Mutex mu_;  // a cuBLAS handle is not to be used by two threads at once
  void* const handle_ ABSL_GUARDED_BY(mu_);
  GpuContext* const gpu_;
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_CUBLAS_H_
