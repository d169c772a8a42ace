#ifndef TRIBUTARY_TESTS_FUZZ_FUZZ_TENSORS_H_
#define TRIBUTARY_TESTS_FUZZ_FUZZ_TENSORS_H_

// What the tensor fuzz targets share: an allocator with a budget, so a
// fuzzed shape is refused rather than allocated, and a way to compare
// tensors byte for byte.

#include <string>

#include "common/framework/allocator.h"
#include "common/framework/tensor.h"

namespace tributary {
namespace fuzz {

// The CPU allocator behind a 64 MiB MemoryBudget, as a worker session's
// kernels allocate behind theirs: a request past it fails (nullptr), and
// code under test must turn that into RESOURCE_EXHAUSTED.
Allocator* BudgetedAllocator();
// The same behind a budget of its own, for a differential target's oracle:
// what the code under test holds must not make the oracle's allocations fail.
Allocator* OracleAllocator();

// The tensor as a serialised TensorProto with tensor_content: equal tensors
// give equal strings (NaNs compare by their bits).
std::string TensorBytes(const Tensor& tensor);

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_FUZZ_TENSORS_H_
