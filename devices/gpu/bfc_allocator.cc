#include "devices/gpu/bfc_allocator.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"

namespace tributary {

namespace {

// "256B", "4KiB", "128MiB": bin lower bounds are powers of two.
std::string BinLabel(size_t bytes) {
  if (bytes >= (size_t{1} << 30)) return absl::StrCat(bytes >> 30, "GiB");
  if (bytes >= (size_t{1} << 20)) return absl::StrCat(bytes >> 20, "MiB");
  if (bytes >= (size_t{1} << 10)) return absl::StrCat(bytes >> 10, "KiB");
  return absl::StrCat(bytes, "B");
}

}  // namespace

BFCAllocator::BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator,
                           const Options& options)
    : sub_allocator_(std::move(sub_allocator)),
      memory_limit_(options.memory_limit / kMinAllocationSize *
                    kMinAllocationSize),
      allow_growth_(options.allow_growth),
      name_(options.name) {
  CHECK(sub_allocator_ != nullptr);
}

BFCAllocator::~BFCAllocator() {
  absl::MutexLock lock(&mu_);
  for (const Region& region : regions_) {
    Chunk* chunk = region.first;
    while (chunk != nullptr) {
      Chunk* next = chunk->next;
      delete chunk;
      chunk = next;
    }
    sub_allocator_->Free(region.base, region.size);
  }
}

std::string BFCAllocator::Name() { return name_; }

int BFCAllocator::BinIndex(size_t size) {
  int index = 0;
  size_t bound = kMinAllocationSize * 2;
  while (index < kNumBins - 1 && size >= bound) {
    ++index;
    bound *= 2;
  }
  return index;
}

size_t BFCAllocator::RoundedBytes(size_t num_bytes) {
  if (num_bytes == 0) return kMinAllocationSize;
  return (num_bytes + kMinAllocationSize - 1) / kMinAllocationSize *
         kMinAllocationSize;
}

void* BFCAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  // Chunks are 256-aligned: anything that divides 256 comes for free, and
  // device tensors never need more (see the header).
  if (alignment == 0) alignment = 1;
  if (kMinAllocationSize % alignment != 0) return nullptr;
  // Also keeps RoundedBytes from overflowing.
  if (num_bytes > memory_limit_) return nullptr;
  const size_t rounded = RoundedBytes(num_bytes);

  absl::MutexLock lock(&mu_);
  Chunk* chunk = TakeBestFit(rounded);
  if (chunk == nullptr) {
    if (!Extend(rounded)) return nullptr;
    chunk = TakeBestFit(rounded);
    CHECK(chunk != nullptr) << "a new region of " << name_ << " cannot hold "
                            << rounded << " bytes";
  }
  if (chunk->size - rounded >= kMinAllocationSize) Split(chunk, rounded);
  chunk->in_use = true;
  chunk->requested_size = num_bytes;
  in_use_[chunk->ptr] = chunk;

  ++stats_.num_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(chunk->size);
  stats_.peak_bytes_in_use =
      std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size =
      std::max(stats_.largest_alloc_size, static_cast<int64_t>(chunk->size));
  return chunk->ptr;
}

void BFCAllocator::DeallocateRaw(void* ptr) {
  if (ptr == nullptr) return;
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  CHECK(it != in_use_.end())
      << "DeallocateRaw(" << ptr << "): pointer not allocated by " << name_
      << " (foreign, interior or already freed)";
  Chunk* chunk = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= static_cast<int64_t>(chunk->size);
  chunk->in_use = false;
  chunk->requested_size = 0;

  // Neighbours that are free are in bins; neither is adjacent to another
  // free chunk, so one merge each way restores the invariant.
  if (chunk->next != nullptr && !chunk->next->in_use) {
    Chunk* next = chunk->next;
    RemoveFromBin(next);
    Merge(chunk, next);
  }
  if (chunk->prev != nullptr && !chunk->prev->in_use) {
    Chunk* prev = chunk->prev;
    RemoveFromBin(prev);
    Merge(prev, chunk);
    chunk = prev;
  }
  InsertIntoBin(chunk);
}

AllocatorStats BFCAllocator::GetStats() {
  absl::MutexLock lock(&mu_);
  AllocatorStats stats = stats_;
  // bytes_in_use counts whole chunks, so the rest of the regions is free.
  stats.bytes_cached =
      static_cast<int64_t>(total_region_bytes_) - stats_.bytes_in_use;
  return stats;
}

void BFCAllocator::ClearStats() {
  absl::MutexLock lock(&mu_);
  stats_.num_allocs = 0;
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
  stats_.largest_alloc_size = 0;
}

size_t BFCAllocator::RequestedSize(const void* ptr) const {
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  CHECK(it != in_use_.end())
      << "RequestedSize(" << ptr << "): pointer not allocated by " << name_;
  return it->second->requested_size;
}

int64_t BFCAllocator::total_region_bytes() {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(total_region_bytes_);
}

std::string BFCAllocator::StateDebugString() {
  absl::MutexLock lock(&mu_);
  int64_t free_bytes = 0;
  int64_t free_chunks = 0;
  size_t largest_free = 0;
  std::string per_bin;
  for (int i = 0; i < kNumBins; ++i) {
    if (bins_[i].empty()) continue;
    for (const Chunk* chunk : bins_[i]) free_bytes += chunk->size;
    free_chunks += bins_[i].size();
    // Bins are ordered by size and later bins hold bigger chunks.
    largest_free = (*bins_[i].rbegin())->size;
    absl::StrAppend(&per_bin, per_bin.empty() ? "" : " ",
                    BinLabel(kMinAllocationSize << i), ":", bins_[i].size());
  }
  return absl::StrCat(
      name_, ": limit ", memory_limit_, " bytes, in use ", stats_.bytes_in_use,
      " bytes in ", in_use_.size(), " chunks, peak ", stats_.peak_bytes_in_use,
      " bytes\n", "regions ", regions_.size(), " totalling ",
      total_region_bytes_, " bytes, free ", free_bytes, " bytes in ",
      free_chunks, " chunks, largest free chunk ", largest_free, " bytes\n",
      "free chunks per bin (by smallest size): ",
      per_bin.empty() ? "none" : per_bin);
}

int64_t BFCAllocator::NumFreeChunksForTest() {
  absl::MutexLock lock(&mu_);
  int64_t n = 0;
  for (const Bin& bin : bins_) n += bin.size();
  return n;
}

int64_t BFCAllocator::NumRegionsForTest() {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(regions_.size());
}

BFCAllocator::Chunk* BFCAllocator::TakeBestFit(size_t rounded) {
  // Every chunk of a later bin is bigger than every chunk of an earlier one,
  // so the first bin with a fitting chunk holds the smallest fitting chunk.
  Chunk key;
  key.size = rounded;
  key.ptr = nullptr;  // sorts before every chunk of the same size
  for (int i = BinIndex(rounded); i < kNumBins; ++i) {
    auto it = bins_[i].lower_bound(&key);
    if (it == bins_[i].end()) continue;
    Chunk* chunk = *it;
    bins_[i].erase(it);
    return chunk;
  }
  return nullptr;
}

bool BFCAllocator::Extend(size_t rounded) {
  const size_t available = memory_limit_ - total_region_bytes_;
  if (rounded > available) return false;
  size_t planned =
      allow_growth_ ? std::max(next_region_bytes_, rounded) : available;
  size_t bytes = std::min(planned, available);
  void* mem = sub_allocator_->Alloc(kMinAllocationSize, bytes);
  if (mem == nullptr && allow_growth_ && bytes > rounded) {
    bytes = rounded;
    mem = sub_allocator_->Alloc(kMinAllocationSize, bytes);
  }
  if (mem == nullptr) return false;
  CHECK_EQ(reinterpret_cast<uintptr_t>(mem) % kMinAllocationSize, 0u)
      << sub_allocator_->Name() << " returned a misaligned region";
  if (allow_growth_) {
    next_region_bytes_ =
        planned > memory_limit_ / 2 ? memory_limit_ : planned * 2;
  }

  Chunk* chunk = new Chunk;
  chunk->ptr = static_cast<char*>(mem);
  chunk->size = bytes;
  regions_.push_back(Region{chunk->ptr, bytes, chunk});
  total_region_bytes_ += bytes;
  InsertIntoBin(chunk);
  return true;
}

void BFCAllocator::Split(Chunk* chunk, size_t rounded) {
  Chunk* rest = new Chunk;
  rest->ptr = chunk->ptr + rounded;
  rest->size = chunk->size - rounded;
  rest->prev = chunk;
  rest->next = chunk->next;
  if (chunk->next != nullptr) chunk->next->prev = rest;
  chunk->next = rest;
  chunk->size = rounded;
  InsertIntoBin(rest);
}

void BFCAllocator::Merge(Chunk* chunk, Chunk* next) {
  DCHECK(chunk->next == next);
  DCHECK(!next->in_use);
  chunk->size += next->size;
  chunk->next = next->next;
  if (next->next != nullptr) next->next->prev = chunk;
  delete next;
}

void BFCAllocator::InsertIntoBin(Chunk* chunk) {
  DCHECK(!chunk->in_use);
  bool inserted = bins_[BinIndex(chunk->size)].insert(chunk).second;
  DCHECK(inserted);
  (void)inserted;
}

void BFCAllocator::RemoveFromBin(Chunk* chunk) {
  size_t erased = bins_[BinIndex(chunk->size)].erase(chunk);
  CHECK_EQ(erased, 1u) << "free chunk missing from its bin";
}

}  // namespace tributary
