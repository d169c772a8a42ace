// NumPy's .npy format (numpy.lib.format), read into and written from Tensors,
// for `tributary run --feed NAME=@file.npy` and `--output FILE.npy/.npz`.
//
// DecodeNpy reads versions 1.0, 2.0 and 3.0; little-, big-endian and
// byte-order-free ('|') descrs; C order, and Fortran order transposed into
// the C order a Tensor holds. Dtypes: b1 -> bool, i1..i8, u1..u8, f2 (half),
// f4, f8, c8, c16, and the fixed-width strings S<n> (bytes, trailing NULs
// stripped as numpy does) and U<n> (UTF-32, converted to UTF-8) -> string.
// Everything else (object arrays, which are pickles; structured dtypes;
// datetimes; long double) is InvalidArgument naming the descr.
//
// The input is untrusted: every inconsistency is InvalidArgument, never a
// CHECK. The header's shape is validated (no negative dims, at most
// kMaxTensorShapeDims, no overflow of the element count or byte count) and
// the byte count must equal the bytes after the header exactly, all before
// the tensor is allocated, so a header cannot make us allocate more than the
// file's own size (times the constant sizeof(std::string) / itemsize for
// string arrays).
//
// EncodeNpy writes version 1.0 (2.0 when the header outgrows 64 KiB),
// little-endian, C order, header padded to 64 bytes as numpy does: what
// numpy.load reads back as the same array. bfloat16, which numpy lacks, is
// widened to float32 (exact); strings become S<longest> (numpy strips their
// trailing NULs on reading). Other dtypes (resource, variant, quantized) are
// InvalidArgument.
#ifndef TRIBUTARY_TOOLS_CLI_NPY_FORMAT_H_
#define TRIBUTARY_TOOLS_CLI_NPY_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"

namespace tributary {

// `bytes` is a whole .npy file.
absl::StatusOr<Tensor> DecodeNpy(absl::string_view bytes);

// A whole .npy file holding `tensor`.
absl::StatusOr<std::string> EncodeNpy(const Tensor& tensor);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_NPY_FORMAT_H_
