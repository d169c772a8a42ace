#include "common/distributed/resource_limits.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "protos/graph.pb.h"

namespace tributary {

absl::Status CheckGraphBytes(int64_t bytes, int64_t limit,
                             absl::string_view flag, absl::string_view what) {
  if (limit <= 0 || bytes <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      what, ": the GraphDef is ", bytes, " bytes, over the limit of ", limit,
      " bytes (", flag, "); the server's operator may raise ", flag));
}

absl::Status CheckGraphBytes(const tensorflow::GraphDef& graph, int64_t limit,
                             absl::string_view flag, absl::string_view what) {
  if (limit <= 0) return absl::OkStatus();
  return CheckGraphBytes(static_cast<int64_t>(graph.ByteSizeLong()), limit,
                         flag, what);
}

int64_t CountGraphNodes(const tensorflow::GraphDef& graph) {
  int64_t nodes = graph.node_size();
  for (const tensorflow::FunctionDef& f : graph.library().function()) {
    nodes += f.node_def_size();
  }
  return nodes;
}

absl::Status CheckGraphNodes(int64_t nodes, int64_t limit,
                             absl::string_view flag, absl::string_view what) {
  if (limit <= 0 || nodes <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      what, ": the graph has ", nodes, " nodes (its functions' included), "
      "over the limit of ", limit, " (", flag,
      "); the server's operator may raise ", flag));
}

InFlightLimiter::InFlightLimiter(int64_t limit, std::string flag,
                                 std::string noun)
    : limit_(limit), flag_(std::move(flag)), noun_(std::move(noun)) {}

absl::StatusOr<InFlightLimiter::Slot> InFlightLimiter::Acquire(
    const std::string& key, absl::string_view who) {
  if (limit_ <= 0) return Slot();
  absl::MutexLock l(&mu_);
  int64_t& n = in_flight_[key];
  if (n >= limit_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        who, " already has ", n, " ", noun_, " in flight, the limit (", flag_,
        "=", limit_, "); retry when one has finished, or ask the server's "
        "operator to raise ", flag_));
  }
  ++n;
  return Slot(this, key);
}

int64_t InFlightLimiter::InFlight(const std::string& key) const {
  absl::MutexLock l(&mu_);
  auto it = in_flight_.find(key);
  return it == in_flight_.end() ? 0 : it->second;
}

void InFlightLimiter::Release(const std::string& key) {
  absl::MutexLock l(&mu_);
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  if (--it->second <= 0) in_flight_.erase(it);
}

InFlightLimiter::Slot::Slot(Slot&& other) noexcept
    : limiter_(other.limiter_), key_(std::move(other.key_)) {
  other.limiter_ = nullptr;
}

InFlightLimiter::Slot& InFlightLimiter::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = other.limiter_;
    key_ = std::move(other.key_);
    other.limiter_ = nullptr;
  }
  return *this;
}

InFlightLimiter::Slot::~Slot() { Release(); }

void InFlightLimiter::Slot::Release() {
  if (limiter_ == nullptr) return;
  limiter_->Release(key_);
  limiter_ = nullptr;
}

}  // namespace tributary
