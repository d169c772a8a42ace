#include "devices/gpu/cublas.h"

#include <dlfcn.h>

#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "cublas_api.h"

namespace tributary {

// The functions we use, with the exported (versioned) symbols' signatures.
// Spelled out rather than decltype'd: cublas_api.h also declares C++
// overloads of some of them.
struct Cublas::Library {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t) = nullptr;
  const char* (*status_string)(cublasStatus_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void*, const void*, cudaDataType, int, long long, const void*,
      cudaDataType, int, long long, const void*, void*, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

namespace {

template <typename F>
bool Resolve(void* library, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(library, symbol));
  return *out != nullptr;
}

}  // namespace

absl::StatusOr<Cublas*> Cublas::For(GpuContext* gpu) {
  static absl::Mutex* const mu = new absl::Mutex();
  static auto* const handles = new std::map<int, Cublas*>();
  static const absl::StatusOr<const Library*>* const library = [] {
    auto* result = new absl::StatusOr<const Library*>(
        errors::FailedPrecondition("cuBLAS: not loaded"));
    void* so = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) so = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) {
      const char* why = dlerror();
      *result = errors::FailedPrecondition(
          "cuBLAS is not available: libcublas.so.13 could not be opened (",
          why ? why : "unknown reason",
          "); install CUDA 13's cuBLAS or add its folder to "
          "LD_LIBRARY_PATH");
      return result;
    }
    auto* lib = new Library();
    if (!Resolve(so, "cublasCreate_v2", &lib->create) ||
        !Resolve(so, "cublasSetStream_v2", &lib->set_stream) ||
        !Resolve(so, "cublasSetMathMode", &lib->set_math_mode) ||
        !Resolve(so, "cublasGetStatusString", &lib->status_string) ||
        !Resolve(so, "cublasGemmStridedBatchedEx",
                 &lib->gemm_strided_batched)) {
      *result = errors::FailedPrecondition(
          "cuBLAS in libcublas.so.13 lacks a function Tributary needs");
      return result;
    }
    *result = lib;
    return result;
  }();
  TRIB_ASSIGN_OR_RETURN(const Library* lib, *library);
  absl::MutexLock lock(mu);
  const int ordinal = gpu->properties().ordinal;
  auto it = handles->find(ordinal);
  if (it != handles->end()) return it->second;
  TRIB_RETURN_IF_ERROR(gpu->Activate());
  cublasHandle_t handle = nullptr;
  cublasStatus_t status = lib->create(&handle);
  if (status == CUBLAS_STATUS_SUCCESS) {
    status = lib->set_stream(handle, gpu->compute_stream());
  }
  if (status == CUBLAS_STATUS_SUCCESS) {
    // Pedantic-free default math: no TF32 for float, as TensorFlow.
    status = lib->set_math_mode(handle, CUBLAS_DEFAULT_MATH);
  }
  if (status != CUBLAS_STATUS_SUCCESS) {
    return errors::Internal("cuBLAS handle for GPU ", ordinal, ": ",
                            lib->status_string(status));
  }
  auto* cublas = new Cublas(lib, handle, gpu);
  (*handles)[ordinal] = cublas;
  return cublas;
}

absl::Status Cublas::Gemm(const GemmArgs& args) {
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();
  for (int64_t d : {args.m, args.n, args.k, args.batch}) {
    if (d < 0 || d > kMaxDim) {
      return errors::InvalidArgument("matrix product dimension ", d,
                                     " is out of cuBLAS' range");
    }
  }
  cudaDataType type;
  cublasComputeType_t compute;
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const void* alpha = &alpha_f;
  const void* beta = &beta_f;
  switch (args.dtype) {
    case DT_FLOAT:
      type = CUDA_R_32F;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case DT_DOUBLE:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha = &alpha_d;
      beta = &beta_d;
      break;
    case DT_HALF:
      type = CUDA_R_16F;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case DT_BFLOAT16:
      type = CUDA_R_16BF;
      compute = CUBLAS_COMPUTE_32F;
      break;
    default:
      return errors::InvalidArgument("no GPU matrix product for ",
                                     DataTypeString(args.dtype));
  }
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap
  // the operands, keep each one's transpose flag.
  const int lda = static_cast<int>(args.transpose_a ? args.m : args.k);
  const int ldb = static_cast<int>(args.transpose_b ? args.k : args.n);
  absl::MutexLock lock(&mu_);
  cublasStatus_t status = library_->gemm_strided_batched(
      static_cast<cublasHandle_t>(handle_),
      args.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
      args.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(args.n),
      static_cast<int>(args.m), static_cast<int>(args.k), alpha, args.b, type,
      ldb, args.stride_b, args.a, type, lda, args.stride_a, beta, args.c, type,
      static_cast<int>(args.n), args.stride_c, static_cast<int>(args.batch),
      compute, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS) {
    return errors::Internal("cuBLAS matrix product (", args.m, "x", args.k,
                            " by ", args.k, "x", args.n, ", batch ", args.batch,
                            ") on GPU ", gpu_->properties().ordinal, ": ",
                            library_->status_string(status));
  }
  return absl::OkStatus();
}

}  // namespace tributary
