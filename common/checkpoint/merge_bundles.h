// Merges the bundles a sharded save wrote (one per device, under temporary
// prefixes such as "<dir>/model_temp/part-00000-of-00002") into one bundle
// under `merged_prefix`, as TensorFlow's MergeBundles does: the data files are
// renamed to "<merged_prefix>.data-<i>-of-<n>" (numbered in the order the
// inputs list them), one index is written with every entry (the slice lists
// of a partitioned tensor saved from several devices are joined), and the
// inputs' index files are deleted.
//
// The data files are renamed, not copied: every input must be on the same
// filesystem as the merged prefix. On a cluster that means a filesystem every
// task writing a shard shares (docs/operations.md, "Checkpoints on a cluster").
#ifndef TRIBUTARY_COMMON_CHECKPOINT_MERGE_BUNDLES_H_
#define TRIBUTARY_COMMON_CHECKPOINT_MERGE_BUNDLES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tributary {

// INVALID_ARGUMENT for a tensor saved by two inputs (other than slices of one
// partitioned tensor), inputs of different byte order or format version;
// NOT_FOUND for a missing input unless `allow_missing_files` (then inputs
// without an index are skipped; at least one must exist).
absl::Status MergeBundles(const std::vector<std::string>& prefixes,
                          const std::string& merged_prefix,
                          bool allow_missing_files);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_MERGE_BUNDLES_H_
