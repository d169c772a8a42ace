// main() of a fuzz target outside --config=fuzz: runs the target's
// LLVMFuzzerTestOneInput once on every file named on the command line
// (folders: every file under them, in name order), as libFuzzer does with
// `-runs=0`. Arguments starting with '-' (libFuzzer's flags) are ignored, so
// one command line replays a corpus under either build. Exits 1 when a path
// cannot be read; a finding aborts inside the target, as under libFuzzer.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

namespace {

// The files of `path`: itself, or every regular file under it, sorted.
bool CollectInputs(const std::string& path, std::vector<std::string>* out) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::vector<std::string> found;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(path, error)) {
      if (entry.is_regular_file()) found.push_back(entry.path().string());
    }
    if (error) return false;
    std::sort(found.begin(), found.end());
    out->insert(out->end(), found.begin(), found.end());
    return true;
  }
  if (!std::filesystem::is_regular_file(path, error)) return false;
  out->push_back(path);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    if (!CollectInputs(arg, &inputs)) {
      std::fprintf(stderr, "cannot read %s\n", arg.c_str());
      return 1;
    }
  }
  for (const std::string& path : inputs) {
    std::ifstream file(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
