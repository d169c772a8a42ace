// Fuzz target: a text-format GraphDef (`tributary run --graph model.pbtxt`,
// the test graphs) parsed by protobuf's TextFormat and imported against every
// op Tributary defines (graph_import_check.h).

#include <cstddef>
#include <cstdint>
#include <string>

#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "protos/graph.pb.h"
#include "tests/fuzz/graph_import_check.h"

namespace {

// TextFormat logs every syntax error unless given a collector; the fuzzer
// makes millions.
class IgnoreErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, google::protobuf::io::ColumnNumber,
                const std::string&) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::GraphDef gdef;
  IgnoreErrors errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!parser.ParseFromString(text, &gdef)) return 0;
  tributary::fuzz::CheckGraphDefImport(gdef);
  return 0;
}
