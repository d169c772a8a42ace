// `tributary run --output FILE`: the fetched tensors as NumPy files, for
// outputs too large to read back from JSON.
//
//   FILE.npz  every fetch as the entry NAME.npy (NAME as given to --fetch,
//             so numpy.load(FILE)["NAME"]); stored, not compressed;
//   FILE.npy  the one fetch, when exactly one (distinct) tensor is fetched.
//
// A fetch given twice is written once. Dtypes as npy_format.h writes them.
#ifndef TRIBUTARY_TOOLS_CLI_OUTPUT_FILE_H_
#define TRIBUTARY_TOOLS_CLI_OUTPUT_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"

namespace tributary {

// Checked before any step runs: InvalidArgument naming --output for another
// extension, or .npy with other than one fetch.
absl::Status CheckOutputPath(const std::string& path,
                             const std::vector<std::string>& fetches);

// `outputs[i]` is the value of `fetches[i]`. InvalidArgument for a dtype
// .npy cannot hold, Internal when the file cannot be written.
absl::Status WriteOutputFile(const std::string& path,
                             const std::vector<std::string>& fetches,
                             const std::vector<Tensor>& outputs);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_OUTPUT_FILE_H_
