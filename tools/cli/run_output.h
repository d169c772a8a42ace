// What `tributary run` prints, shared by its GraphDef and SavedModel forms:
// the fetched tensors as one JSON line,
//   {"fetches": {"NAME": {"dtype": "DT_FLOAT", "shape": [2,2], "values": [...]}}}
// (with --output the values go to the .npz/.npy file and the JSON names it),
// or an error as
//   {"error": {"code": "INVALID_ARGUMENT", "message": "..."}}
// with the code as TensorFlow's error enum names it.
#ifndef TRIBUTARY_TOOLS_CLI_RUN_OUTPUT_H_
#define TRIBUTARY_TOOLS_CLI_RUN_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"

namespace tributary {

// Exit codes of `tributary run`.
inline constexpr int kRunStepError = 1;   // a session or step failed
inline constexpr int kRunInputError = 2;  // bad flags, files or feeds

// Prints the error JSON; returns `exit_code`.
int PrintRunError(const absl::Status& status, int exit_code, std::ostream& out);

// Prints `outputs` under `names` (same order), writing them to `output_path`
// first when it is not empty. Returns the exit code (0, or kRunStepError
// after printing the error when the file cannot be written).
int PrintRunFetches(const std::vector<std::string>& names,
                    const std::vector<Tensor>& outputs,
                    const std::string& output_path, std::ostream& out);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_RUN_OUTPUT_H_
