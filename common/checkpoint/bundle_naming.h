// File names of a tensor bundle (a V2 checkpoint) under its prefix, as
// TensorFlow names them: "<prefix>.index" and
// "<prefix>.data-<shard:05d>-of-<num_shards:05d>".
#ifndef TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_NAMING_H_
#define TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_NAMING_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace tributary {

inline std::string MetaFilename(absl::string_view prefix) {
  return absl::StrCat(prefix, ".index");
}

inline std::string DataFilename(absl::string_view prefix, int shard,
                                int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

// The directory part of a path ("" for a bare name, "/" for "/x").
inline std::string Dirname(absl::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_NAMING_H_
