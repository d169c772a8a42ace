// Fuzz target: a binary GraphDef (what CreateSession, ExtendSession and
// RegisterGraph carry, and `tributary run --graph model.pb` reads) parsed by
// protobuf and imported against every op Tributary defines
// (graph_import_check.h).

#include <cstddef>
#include <cstdint>

#include "protos/graph.pb.h"
#include "tests/fuzz/graph_import_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::GraphDef gdef;
  if (!gdef.ParseFromArray(data, static_cast<int>(size))) return 0;
  tributary::fuzz::CheckGraphDefImport(gdef);
  return 0;
}
