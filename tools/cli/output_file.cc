#include "tools/cli/output_file.h"

#include <fstream>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "tools/cli/npy_format.h"
#include "tools/cli/zip_writer.h"

namespace tributary {
namespace {

size_t DistinctCount(const std::vector<std::string>& fetches) {
  return std::set<std::string>(fetches.begin(), fetches.end()).size();
}

absl::StatusOr<std::string> Encode(const std::string& name, const Tensor& t) {
  absl::StatusOr<std::string> npy = EncodeNpy(t);
  if (!npy.ok()) {
    return errors::InvalidArgument("--output: fetch ", name, ": ",
                                   npy.status().message());
  }
  return npy;
}

}  // namespace

absl::Status CheckOutputPath(const std::string& path,
                             const std::vector<std::string>& fetches) {
  if (absl::EndsWith(path, ".npz")) return absl::OkStatus();
  if (absl::EndsWith(path, ".npy")) {
    if (DistinctCount(fetches) != 1) {
      return errors::InvalidArgument(
          "--output ", path, ": a .npy file holds one fetch but ",
          DistinctCount(fetches), " are fetched (use .npz)");
    }
    return absl::OkStatus();
  }
  return errors::InvalidArgument("--output ", path,
                                 ": must end in .npz (every fetch) or .npy "
                                 "(one fetch)");
}

absl::Status WriteOutputFile(const std::string& path,
                             const std::vector<std::string>& fetches,
                             const std::vector<Tensor>& outputs) {
  TRIB_RETURN_IF_ERROR(CheckOutputPath(path, fetches));
  if (outputs.size() != fetches.size()) {
    return errors::Internal("--output: ", outputs.size(), " values for ",
                            fetches.size(), " fetches");
  }
  std::string bytes;
  if (absl::EndsWith(path, ".npy")) {
    TRIB_ASSIGN_OR_RETURN(bytes, Encode(fetches[0], outputs[0]));
  }
  std::vector<ZipEntry> entries;
  if (absl::EndsWith(path, ".npz")) {
    absl::flat_hash_set<std::string> seen;
    for (size_t i = 0; i < fetches.size(); ++i) {
      if (!seen.insert(fetches[i]).second) continue;
      TRIB_ASSIGN_OR_RETURN(std::string npy, Encode(fetches[i], outputs[i]));
      entries.push_back({absl::StrCat(fetches[i], ".npy"), std::move(npy)});
    }
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return errors::Internal("--output: cannot write '", path, "'");
  if (entries.empty() && absl::EndsWith(path, ".npy")) {
    file.write(bytes.data(), bytes.size());
  } else {
    absl::Status s = WriteStoredZip(entries, file);
    if (!s.ok()) {
      return errors::InvalidArgument("--output ", path, ": ", s.message());
    }
  }
  file.close();
  if (!file) return errors::Internal("--output: writing '", path, "' failed");
  return absl::OkStatus();
}

}  // namespace tributary
