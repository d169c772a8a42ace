// TensorFlow's OrderedCode, the subset the checkpoint format uses: the keys of
// a partitioned variable's slices in a `.index` table are
//   num(0) string(name) num(rank) then signed(start) signed(length) per dim
// (common/checkpoint/tensor_slice.h, EncodeTensorNameSlice). The encodings
// sort like the values they encode, which is why TensorFlow chose them; we
// need them only to produce and parse byte-identical keys.
//
//  * WriteNumIncreasing(uint64): one length byte, then the value big-endian
//    without leading zero bytes (0 is the single byte 0x00).
//  * WriteSignedNumIncreasing(int64): 1 to 10 bytes; the leading bits give the
//    sign and the length (see the .cc), the rest the two's complement value.
//  * WriteString: the bytes with 0x00 -> 00 ff and 0xff -> ff 00 escaped,
//    terminated by 00 01.
#ifndef TRIBUTARY_COMMON_CHECKPOINT_ORDERED_CODE_H_
#define TRIBUTARY_COMMON_CHECKPOINT_ORDERED_CODE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tributary {
namespace ordered_code {

void WriteNumIncreasing(std::string* dest, uint64_t value);
void WriteSignedNumIncreasing(std::string* dest, int64_t value);
void WriteString(std::string* dest, absl::string_view s);

// Each consumes its encoding from the front of *src; false (src unspecified)
// when *src does not start with a valid one.
bool ReadNumIncreasing(absl::string_view* src, uint64_t* value);
bool ReadSignedNumIncreasing(absl::string_view* src, int64_t* value);
bool ReadString(absl::string_view* src, std::string* value);

}  // namespace ordered_code
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_ORDERED_CODE_H_
