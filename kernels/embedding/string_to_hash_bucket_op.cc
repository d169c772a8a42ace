// StringToHashBucketFast: output[i] = Fingerprint64(input[i]) % num_buckets,
// with TensorFlow's Fingerprint64 (farmhash's Fingerprint64, taken from
// Debian's libfarmhash), so hashed categorical features land in the same
// embedding rows as under TensorFlow.

#include <cstdint>
#include <string>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "farmhash.h"

namespace tributary {
namespace {

class StringToHashBucketFastOp : public OpKernel {
 public:
  explicit StringToHashBucketFastOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("num_buckets", &num_buckets_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &output));
    const int64_t n = input.NumElements();
    if (n == 0) return;
    const std::string* in = input.flat<std::string>().data();
    int64_t* out = output->flat<int64_t>().data();
    const uint64_t buckets = static_cast<uint64_t>(num_buckets_);
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<int64_t>(
          util::Fingerprint64(in[i].data(), in[i].size()) % buckets);
    }
  }

 private:
  int64_t num_buckets_ = 1;
};

REGISTER_KERNEL_BUILDER(Name("StringToHashBucketFast").Device(DEVICE_CPU),
                        StringToHashBucketFastOp);

}  // namespace
}  // namespace tributary
