// The POSIX file operations the checkpoint code needs, with errors as
// absl::Status naming the path (ENOENT -> NOT_FOUND, EACCES -> PERMISSION_DENIED,
// ENOSPC/EDQUOT -> RESOURCE_EXHAUSTED, others INTERNAL). Paths are local to
// the process that runs the op: a checkpoint op on a ps task writes on that
// task's filesystem, as in TensorFlow.
//
// BufferedFileWriter streams a large file with two 8 MiB buffers: the caller
// copies into one (and checksums the copy) while a writer thread hands the
// other to write(2), so copying and the kernel's work overlap. The checksum is
// taken over the copied bytes, not the source, so a tensor written to while
// it is saved still gives a file whose checksums hold (TensorFlow's rule).
#ifndef TRIBUTARY_COMMON_CHECKPOINT_FILE_IO_H_
#define TRIBUTARY_COMMON_CHECKPOINT_FILE_IO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tributary {

// The status for a failed call `what` on `path` with errno `error`.
absl::Status IOError(absl::string_view what, absl::string_view path, int error);

bool FileExists(const std::string& path);
absl::StatusOr<uint64_t> FileSize(const std::string& path);
absl::StatusOr<std::string> ReadFileToString(const std::string& path);
absl::Status WriteStringToFile(const std::string& path, absl::string_view data);
absl::Status RenameFile(const std::string& from, const std::string& to);
absl::Status DeleteFile(const std::string& path);
// rmdir(2): only an empty directory goes.
absl::Status DeleteDir(const std::string& path);
// mkdir -p; an existing directory is fine.
absl::Status CreateDirs(const std::string& path);

// A file read at offsets (pread), shareable between threads.
class RandomAccessFile {
 public:
  static absl::StatusOr<std::unique_ptr<RandomAccessFile>> Open(
      const std::string& path);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads exactly n bytes at offset into dst; DATA_LOSS when the file ends
  // first (a truncated file).
  absl::Status ReadExactly(uint64_t offset, size_t n, char* dst) const;
  const std::string& path() const { return path_; }

 private:
  RandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

class BufferedFileWriter {
 public:
  static constexpr size_t kBufferSize = 8 << 20;

  // Creates (truncates) `path`.
  static absl::StatusOr<std::unique_ptr<BufferedFileWriter>> Create(
      const std::string& path);
  // Without Close, the file is closed and left as far as it was written.
  ~BufferedFileWriter();
  BufferedFileWriter(const BufferedFileWriter&) = delete;
  BufferedFileWriter& operator=(const BufferedFileWriter&) = delete;

  // Appends n bytes, extending *crc (when not null) with the crc32c of the
  // bytes as copied. Returns the first write error seen so far.
  absl::Status Append(const void* data, size_t n, uint32_t* crc);
  // Writes what is buffered and closes the file.
  absl::Status Close();
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  BufferedFileWriter(std::string path, int fd);
  // Hands the current buffer to the writer thread (waiting for it to finish
  // the previous one) and switches buffers.
  void Submit();
  void WaitIdle();
  void WriterLoop();

  const std::string path_;
  int fd_;
  std::vector<char> buffers_[2];
  int current_ = 0;      // the buffer the caller fills
  size_t fill_ = 0;      // bytes in it
  uint64_t size_ = 0;    // bytes appended in all
  bool closed_ = false;

  absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_) = -1;  // buffer being written, or -1
  size_t pending_size_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread writer_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_FILE_IO_H_
