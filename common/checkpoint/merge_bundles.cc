#include "common/checkpoint/merge_bundles.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/bundle_format.h"
#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/bundle_reader.h"
#include "common/checkpoint/file_io.h"
#include "common/checkpoint/table_file.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

struct MergeState {
  int num_shards = 0;
  bool seen_first = false;
  tensorflow::BundleHeaderProto first_header;
  std::map<std::string, tensorflow::BundleEntryProto> entries;
  // Input data file -> its shard number in the merged bundle, in order.
  std::vector<std::string> data_files;
  std::map<std::string, int> shard_ids;
};

absl::Status MergeOne(const BundleReader& reader, MergeState* merge) {
  const tensorflow::BundleHeaderProto& header = reader.header();
  if (!merge->seen_first) {
    merge->seen_first = true;
    merge->first_header = header;
  } else {
    if (header.endianness() != merge->first_header.endianness()) {
      return errors::InvalidArgument(
          "Merging bundles with conflicting endianness; inputs corrupted? (",
          reader.prefix(), ")");
    }
    if (header.version().SerializeAsString() !=
        merge->first_header.version().SerializeAsString()) {
      return errors::InvalidArgument(
          "Merging bundles with different format versions (", reader.prefix(),
          ")");
    }
  }
  merge->num_shards += header.num_shards();
  return reader.ForEachEntry(
      [&](absl::string_view key_view,
          const tensorflow::BundleEntryProto& entry_in) -> absl::Status {
        const std::string key(key_view);
        tensorflow::BundleEntryProto entry = entry_in;
        auto it = merge->entries.find(key);
        if (it != merge->entries.end()) {
          // Only a partitioned tensor's full entry may come from several
          // inputs; their slice lists are joined.
          if (it->second.slices().empty() || entry.slices().empty()) {
            return errors::InvalidArgument(
                "Duplicate tensor keyed by ", key,
                " encountered, when merging prefix: ", reader.prefix());
          }
          if (it->second.dtype() != entry.dtype() ||
              it->second.shape().SerializeAsString() !=
                  entry.shape().SerializeAsString()) {
            return errors::InvalidArgument(
                "Slices of tensor ", key, " disagree on dtype or shape when ",
                "merging prefix: ", reader.prefix());
          }
          for (const auto& slice : entry.slices()) {
            *it->second.add_slices() = slice;
          }
          return absl::OkStatus();
        }
        if (entry.slices().empty()) {
          const std::string data = DataFilename(
              reader.prefix(), entry.shard_id(), header.num_shards());
          auto [shard, inserted] = merge->shard_ids.emplace(
              data, static_cast<int>(merge->data_files.size()));
          if (inserted) merge->data_files.push_back(data);
          entry.set_shard_id(shard->second);
        }
        merge->entries.emplace(key, std::move(entry));
        return absl::OkStatus();
      });
}

}  // namespace

absl::Status MergeBundles(const std::vector<std::string>& prefixes,
                          const std::string& merged_prefix,
                          bool allow_missing_files) {
  MergeState merge;
  std::vector<std::string> merged_inputs;
  for (const std::string& prefix : prefixes) {
    if (allow_missing_files && !FileExists(MetaFilename(prefix))) continue;
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open(prefix));
    TRIB_RETURN_IF_ERROR(MergeOne(*reader, &merge));
    merged_inputs.push_back(prefix);
  }
  if (merged_inputs.empty()) {
    return errors::InvalidArgument(
        "MergeV2Checkpoints: none of the checkpoints to merge exists: ",
        absl::StrJoin(prefixes, ", "));
  }
  TRIB_RETURN_IF_ERROR(CreateDirs(Dirname(merged_prefix)));
  const int total = static_cast<int>(merge.data_files.size());
  for (int i = 0; i < total; ++i) {
    TRIB_RETURN_IF_ERROR(RenameFile(merge.data_files[i],
                                    DataFilename(merged_prefix, i, total)));
  }
  std::map<std::string, std::string> table;
  tensorflow::BundleHeaderProto header = merge.first_header;
  header.set_num_shards(merge.num_shards);
  table.emplace(std::string(kHeaderEntryKey), header.SerializeAsString());
  for (const auto& [key, entry] : merge.entries) {
    table.emplace(key, entry.SerializeAsString());
  }
  TRIB_ASSIGN_OR_RETURN(const std::string bytes, BuildTable(table));
  TRIB_RETURN_IF_ERROR(WriteStringToFile(MetaFilename(merged_prefix), bytes));
  // The inputs' indexes are now stale; removing them is best effort, as in
  // TensorFlow.
  for (const std::string& prefix : merged_inputs) {
    if (prefix != merged_prefix) DeleteFile(MetaFilename(prefix)).IgnoreError();
  }
  return absl::OkStatus();
}

}  // namespace tributary
