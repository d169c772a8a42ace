#ifndef TRIBUTARY_COMMON_RESOURCE_STEP_CONTAINER_H_
#define TRIBUTARY_COMMON_RESOURCE_STEP_CONTAINER_H_
// ScopedStepContainer: resources that live for one step only (TensorArrays,
// the stacks of a v1 while loop's gradient), as TensorFlow scopes them.
//
// They sit in the session's (or worker's) ResourceMgr under a container
// named after the step (NameForStep: "__per_step_<step_id>"), so kernels
// look them up through ordinary DT_RESOURCE handles. A kernel that creates
// one names the container from OpKernelContext::step_id(), which every
// partition of a step shares (the context carries no container pointer: the
// step id is enough, and every kernel's header stays as it was). Whoever runs
// the step (the local session per Run, the worker per ExecuteAsync) owns one
// of these and its destructor drops that container once the step's
// executors are done.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/resource/resource_mgr.h"

namespace tributary {

class ScopedStepContainer {
 public:
  // `resource_mgr` (not owned, may be null: nothing to clean) must outlive
  // this object.
  ScopedStepContainer(int64_t step_id, ResourceMgr* resource_mgr)
      : step_id_(step_id),
        name_(NameForStep(step_id)),
        resource_mgr_(resource_mgr) {}
  ~ScopedStepContainer() {
    // Cleanup of an absent container is OK; nothing else can fail.
    if (resource_mgr_ != nullptr) resource_mgr_->Cleanup(name_).IgnoreError();
  }
  ScopedStepContainer(const ScopedStepContainer&) = delete;
  ScopedStepContainer& operator=(const ScopedStepContainer&) = delete;

  // The container of step `step_id`'s resources.
  static std::string NameForStep(int64_t step_id) {
    return absl::StrCat("__per_step_", step_id);
  }

  int64_t step_id() const { return step_id_; }
  // The ResourceMgr container holding this step's resources.
  const std::string& name() const { return name_; }

 private:
  const int64_t step_id_;
  const std::string name_;
  ResourceMgr* const resource_mgr_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_STEP_CONTAINER_H_
