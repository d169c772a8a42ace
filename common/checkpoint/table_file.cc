#include "common/checkpoint/table_file.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"

namespace tributary {
namespace {

// TensorFlow's table::Options defaults (tensorflow/core/lib/io/table_options.h).
constexpr size_t kBlockSize = 262144;
constexpr int kBlockRestartInterval = 16;

leveldb::Options TableOptions() {
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  options.block_size = kBlockSize;
  options.block_restart_interval = kBlockRestartInterval;
  options.filter_policy = nullptr;
  options.block_cache = nullptr;
  options.paranoid_checks = true;
  return options;
}

class StringSink : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    out_.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class StringSource : public leveldb::RandomAccessFile {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    (void)scratch;
    if (offset > data_.size()) {
      *result = leveldb::Slice();
      return leveldb::Status::InvalidArgument("read past the end");
    }
    const size_t len = std::min<size_t>(n, data_.size() - offset);
    *result = leveldb::Slice(data_.data() + offset, len);
    return leveldb::Status::OK();
  }

 private:
  const std::string data_;
};

absl::Status FromLevelDb(const leveldb::Status& s, absl::string_view path) {
  if (s.ok()) return absl::OkStatus();
  return errors::DataLoss(path, ": not a valid checkpoint index table (",
                          s.ToString(), ")");
}

}  // namespace

absl::StatusOr<std::string> BuildTable(
    const std::map<std::string, std::string>& entries) {
  StringSink sink;
  leveldb::TableBuilder builder(TableOptions(), &sink);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  const leveldb::Status s = builder.Finish();
  if (!s.ok()) return errors::Internal("building a table: ", s.ToString());
  return sink.Take();
}

struct TableReader::Impl {
  std::string path;
  std::unique_ptr<StringSource> file;
  std::unique_ptr<leveldb::Table> table;
  leveldb::ReadOptions read_options;
};

TableReader::TableReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableReader::~TableReader() = default;

absl::StatusOr<std::unique_ptr<TableReader>> TableReader::Open(
    std::string path, std::string contents) {
  auto impl = std::make_unique<Impl>();
  impl->path = std::move(path);
  const uint64_t size = contents.size();
  impl->file = std::make_unique<StringSource>(std::move(contents));
  impl->read_options.verify_checksums = true;
  impl->read_options.fill_cache = false;
  leveldb::Table* table = nullptr;
  TRIB_RETURN_IF_ERROR(FromLevelDb(
      leveldb::Table::Open(TableOptions(), impl->file.get(), size, &table),
      impl->path));
  impl->table.reset(table);
  return std::unique_ptr<TableReader>(new TableReader(std::move(impl)));
}

absl::StatusOr<std::string> TableReader::Get(absl::string_view key) const {
  std::unique_ptr<leveldb::Iterator> it(
      impl_->table->NewIterator(impl_->read_options));
  it->Seek(leveldb::Slice(key.data(), key.size()));
  TRIB_RETURN_IF_ERROR(FromLevelDb(it->status(), impl_->path));
  if (!it->Valid() || it->key() != leveldb::Slice(key.data(), key.size())) {
    return errors::NotFound("no key '", key, "' in ", impl_->path);
  }
  return it->value().ToString();
}

absl::Status TableReader::ForEach(
    absl::FunctionRef<absl::Status(absl::string_view, absl::string_view)> fn)
    const {
  std::unique_ptr<leveldb::Iterator> it(
      impl_->table->NewIterator(impl_->read_options));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    TRIB_RETURN_IF_ERROR(
        fn(absl::string_view(it->key().data(), it->key().size()),
           absl::string_view(it->value().data(), it->value().size())));
  }
  return FromLevelDb(it->status(), impl_->path);
}

}  // namespace tributary
