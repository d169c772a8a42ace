// The state kernels' oracle binary (see kernels/testing/README.md): each
// case gets its own ResourceMgr, as a fresh TensorFlow session would.

#include <memory>

#include "common/resource/resource_mgr.h"
#include "kernels/testing/run_kernel_cases.h"

int main(int argc, char** argv) {
  tributary::test::KernelCaseHooks hooks;
  hooks.begin_case = [](tributary::test::CaseEnvironment* env) {
    auto rm = std::make_shared<tributary::ResourceMgr>();
    env->resource_manager = rm.get();
    return std::shared_ptr<void>(rm);
  };
  return tributary::test::RunKernelCasesMain(argc, argv, hooks);
}
