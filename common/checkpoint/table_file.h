// LevelDB's table format as TensorFlow writes its `.index` files: a sorted
// key -> value table, uncompressed, bytewise keys, no filter, 256 KiB data
// blocks and a restart point every 16 keys (TensorFlow's table::Options), so
// our index files are byte for byte TensorFlow's. Reading accepts whatever
// LevelDB accepts (snappy-compressed blocks included) and checks every
// block's masked crc32c.
#ifndef TRIBUTARY_COMMON_CHECKPOINT_TABLE_FILE_H_
#define TRIBUTARY_COMMON_CHECKPOINT_TABLE_FILE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tributary {

// The bytes of a table holding `entries` (sorted by the map).
absl::StatusOr<std::string> BuildTable(
    const std::map<std::string, std::string>& entries);

// A table read into memory (index files are small: one entry per tensor).
class TableReader {
 public:
  // DATA_LOSS (naming `path`) when `contents` is not a valid table.
  static absl::StatusOr<std::unique_ptr<TableReader>> Open(
      std::string path, std::string contents);
  ~TableReader();

  // The value of `key`: NOT_FOUND when absent, DATA_LOSS for a bad block.
  absl::StatusOr<std::string> Get(absl::string_view key) const;
  // Every entry in key order; stops at the first error of `fn` or of a block.
  absl::Status ForEach(
      absl::FunctionRef<absl::Status(absl::string_view key,
                                     absl::string_view value)> fn) const;

 private:
  struct Impl;
  explicit TableReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_TABLE_FILE_H_
