// The `tributary` command-line tool. The commands and their flags are in
// cli_app.h; this only hands them argv and the standard streams.
#include <iostream>
#include <string>
#include <vector>

#include "common/framework/malloc_tuning.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"
#include "kernels/math/matmul_backend.h"
#include "tools/cli/cli_app.h"

int main(int argc, char** argv) {
  // Standard output carries results (tensors, JSON); what the libraries log
  // (e.g. "no GPU devices: ...") goes to standard error.
  spdlog::set_default_logger(spdlog::stderr_color_mt("tributary"));
  // `tributary run --target grpc://...` may fetch big tensors.
  tributary::TuneMallocForLargeTensors();
  // Chosen (OpenBLAS loaded) while this is the only thread: the loader sets
  // OPENBLAS_CORETYPE around dlopen (kernels/math/blas_loader.h).
  (void)tributary::ActiveMatMulBackend();
  const std::vector<std::string> args(argv, argv + argc);
  const tributary::CliInvocation invocation =
      tributary::ParseCommandLine(args, std::cout, std::cerr);
  return tributary::RunCommandLine(invocation, std::cout, std::cerr);
}
