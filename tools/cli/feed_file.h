// `tributary run --feed NAME=@PATH`: the tensor a file holds, for inputs too
// large for the command line (an image batch, an embedding table).
//
//   PATH ending in .npy (or starting with numpy's magic): a NumPy array,
//     its dtype and shape taken from the file (npy_format.h);
//   PATH ending in .json: one JSON value in the inline syntax of
//     value_parsing.h, of `json_dtype` when given (else inferred).
//
// Errors are InvalidArgument without the feed's name (the caller adds it):
// an unreadable file, another extension, a malformed array or value.
#ifndef TRIBUTARY_TOOLS_CLI_FEED_FILE_H_
#define TRIBUTARY_TOOLS_CLI_FEED_FILE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"

namespace tributary {

absl::StatusOr<Tensor> ReadFeedFile(const std::string& path,
                                    std::optional<DataType> json_dtype);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_FEED_FILE_H_
