#ifndef TRIBUTARY_COMMON_DISTRIBUTED_RESOURCE_LIMITS_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_RESOURCE_LIMITS_H_

// Limits against abuse that the master and the workers share (issue 14,
// docs/limits.md): how large a GraphDef may be, and how many things of a
// kind (steps of a client, steps of a session) may be in flight at once.
// Going over a limit is ResourceExhausted naming the limit's flag, the
// value and what was asked, never a crash; the caller may retry later.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tensorflow {
class GraphDef;
}  // namespace tensorflow

namespace tributary {

// Defaults of the daemons' flags (docs/limits.md says why these values).
// A frozen ResNet50 GraphDef is about 100 MB, the largest Keras application
// graphs a few hundred; gRPC cannot carry a message over 2 GiB anyway.
inline constexpr int64_t kDefaultMaxGraphBytes = int64_t{1} << 30;  // 1 GiB
// Nodes cost far more in memory than on the wire (about 830 bytes each in a
// Graph, docs/benchmarks.md, against 16 for a minimal NodeDef), so a GraphDef
// under the byte limit can still ask for tens of gigabytes. The largest
// graphs TensorFlow's model builders emit have tens of thousands of nodes.
inline constexpr int64_t kDefaultMaxGraphNodes = int64_t{1} << 20;

// OK when `graph` serialises to at most `limit` bytes (`limit` <= 0: no
// limit); else ResourceExhausted: "<what>: the GraphDef is N bytes, over
// the limit of L bytes (<flag>)".
absl::Status CheckGraphBytes(const tensorflow::GraphDef& graph, int64_t limit,
                             absl::string_view flag, absl::string_view what);
// The same for a size already known.
absl::Status CheckGraphBytes(int64_t bytes, int64_t limit,
                             absl::string_view flag, absl::string_view what);

// Nodes of `graph`: its own and those of every function in its library.
int64_t CountGraphNodes(const tensorflow::GraphDef& graph);
// OK when `nodes` is at most `limit` (`limit` <= 0: no limit); else
// ResourceExhausted: "<what>: the graph has N nodes, over the limit of L
// (<flag>)".
absl::Status CheckGraphNodes(int64_t nodes, int64_t limit,
                             absl::string_view flag, absl::string_view what);

// Counts what is in flight per key (a client, a session) and refuses more
// than `limit` at once. Thread-safe.
class InFlightLimiter {
 public:
  // `limit` <= 0: unlimited (Acquire always succeeds, nothing is counted).
  // `flag` names the limit in errors ("--max-steps-per-client"); `noun`
  // says what is counted ("steps").
  InFlightLimiter(int64_t limit, std::string flag, std::string noun);

  // Held while one thing is in flight; releases its count when destroyed.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    friend class InFlightLimiter;
    Slot(InFlightLimiter* limiter, std::string key)
        : limiter_(limiter), key_(std::move(key)) {}
    void Release();
    InFlightLimiter* limiter_ = nullptr;
    std::string key_;
  };

  // A slot for `key`, or ResourceExhausted when `key` already has `limit`
  // in flight: "<who> already has L <noun> in flight, the limit (<flag>=L);
  // ...". `who` describes the key for the message ("Client ipv4:10.0.0.5").
  // The limiter must outlive its slots.
  absl::StatusOr<Slot> Acquire(const std::string& key, absl::string_view who);

  int64_t limit() const { return limit_; }
  // How many `key` has in flight now.
  int64_t InFlight(const std::string& key) const;

 private:
  void Release(const std::string& key);

  const int64_t limit_;
  const std::string flag_;
  const std::string noun_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, int64_t> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_RESOURCE_LIMITS_H_
