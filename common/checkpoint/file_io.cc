#include "common/checkpoint/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/crc32c.h"
#include "common/framework/status.h"

namespace tributary {

absl::Status IOError(absl::string_view what, absl::string_view path,
                     int error) {
  const std::string message =
      absl::StrCat(path, ": ", what, " failed: ", strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return errors::NotFound(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return errors::PermissionDenied(message);
    case ENOSPC:
    case EDQUOT:
      return errors::ResourceExhausted(message);
    case EEXIST:
      return errors::AlreadyExists(message);
    default:
      return errors::Internal(message);
  }
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

absl::StatusOr<uint64_t> FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return IOError("stat", path, errno);
  return static_cast<uint64_t>(st.st_size);
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                        RandomAccessFile::Open(path));
  TRIB_ASSIGN_OR_RETURN(const uint64_t size, FileSize(path));
  std::string data(size, '\0');
  TRIB_RETURN_IF_ERROR(file->ReadExactly(0, size, data.data()));
  return data;
}

absl::Status WriteStringToFile(const std::string& path,
                               absl::string_view data) {
  // Small files (indexes): one write loop, no buffers or thread.
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IOError("open for writing", path, errno);
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return IOError("write", path, error);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return IOError("close", path, errno);
  return absl::OkStatus();
}

absl::Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return IOError(absl::StrCat("rename to ", to), from, errno);
  }
  return absl::OkStatus();
}

absl::Status DeleteFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return IOError("unlink", path, errno);
  return absl::OkStatus();
}

absl::Status DeleteDir(const std::string& path) {
  if (::rmdir(path.c_str()) != 0) return IOError("rmdir", path, errno);
  return absl::OkStatus();
}

absl::Status CreateDirs(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  std::string partial;
  size_t pos = 0;
  while (pos <= path.size()) {
    const size_t slash = path.find('/', pos);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    partial = path.substr(0, end);
    pos = end + 1;
    if (partial.empty()) continue;  // the root of an absolute path
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return IOError("mkdir", partial, errno);
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return errors::FailedPrecondition(path, " exists and is not a directory");
  }
  return absl::OkStatus();
}

// ---- RandomAccessFile ----------------------------------------------------

absl::StatusOr<std::unique_ptr<RandomAccessFile>> RandomAccessFile::Open(
    const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IOError("open", path, errno);
  return std::unique_ptr<RandomAccessFile>(new RandomAccessFile(path, fd));
}

RandomAccessFile::~RandomAccessFile() { ::close(fd_); }

absl::Status RandomAccessFile::ReadExactly(uint64_t offset, size_t n,
                                           char* dst) const {
  size_t done = 0;
  while (done < n) {
    // Linux moves at most ~2 GiB per call; ask for 1 GiB at a time.
    const size_t want = std::min<size_t>(n - done, size_t{1} << 30);
    const ssize_t got = ::pread(fd_, dst + done, want, offset + done);
    if (got < 0) {
      if (errno == EINTR) continue;
      return IOError("read", path_, errno);
    }
    if (got == 0) {
      return errors::DataLoss(path_, ": file is truncated: wanted ", n,
                              " bytes at offset ", offset, ", the file ends ",
                              "after ", offset + done);
    }
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

// ---- BufferedFileWriter --------------------------------------------------

absl::StatusOr<std::unique_ptr<BufferedFileWriter>> BufferedFileWriter::Create(
    const std::string& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IOError("open for writing", path, errno);
  return std::unique_ptr<BufferedFileWriter>(new BufferedFileWriter(path, fd));
}

BufferedFileWriter::BufferedFileWriter(std::string path, int fd)
    : path_(std::move(path)), fd_(fd) {
  buffers_[0].resize(kBufferSize);
  buffers_[1].resize(kBufferSize);
  writer_ = std::thread([this] { WriterLoop(); });
}

BufferedFileWriter::~BufferedFileWriter() {
  if (!closed_) Close().IgnoreError();
}

void BufferedFileWriter::WriterLoop() {
  while (true) {
    int index = -1;
    size_t size = 0;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](BufferedFileWriter* w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(w->mu_) {
            return w->pending_ >= 0 || w->stop_;
          },
          this));
      if (pending_ < 0) return;  // stopped with nothing left
      index = pending_;
      size = pending_size_;
    }
    absl::Status status;
    const char* p = buffers_[index].data();
    size_t left = size;
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        status = IOError("write", path_, errno);
        break;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    absl::MutexLock lock(&mu_);
    if (status_.ok()) status_ = status;
    pending_ = -1;
  }
}

void BufferedFileWriter::WaitIdle() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](BufferedFileWriter* w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(w->mu_) {
        return w->pending_ < 0;
      },
      this));
}

void BufferedFileWriter::Submit() {
  if (fill_ == 0) return;
  WaitIdle();
  {
    absl::MutexLock lock(&mu_);
    pending_ = current_;
    pending_size_ = fill_;
  }
  current_ ^= 1;
  fill_ = 0;
}

absl::Status BufferedFileWriter::Append(const void* data, size_t n,
                                        uint32_t* crc) {
  const char* src = static_cast<const char*>(data);
  while (n > 0) {
    if (fill_ == kBufferSize) Submit();
    const size_t chunk = std::min(n, kBufferSize - fill_);
    char* dst = buffers_[current_].data() + fill_;
    std::memcpy(dst, src, chunk);
    if (crc != nullptr) *crc = crc32c::Extend(*crc, dst, chunk);
    fill_ += chunk;
    size_ += chunk;
    src += chunk;
    n -= chunk;
  }
  absl::MutexLock lock(&mu_);
  return status_;
}

absl::Status BufferedFileWriter::Close() {
  if (closed_) return errors::FailedPrecondition(path_, " is closed");
  closed_ = true;
  Submit();
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](BufferedFileWriter* w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(w->mu_) {
          return w->pending_ < 0;
        },
        this));
    stop_ = true;
  }
  writer_.join();
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    status = status_;
  }
  if (::close(fd_) != 0 && status.ok()) status = IOError("close", path_, errno);
  fd_ = -1;
  return status;
}

}  // namespace tributary
