#include "tools/cli/session_config.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace {

// Keeps the parser's complaints so the error says where the text is wrong.
class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_.push_back(
        absl::StrCat("line ", line + 1, ":", column + 1, ": ", message));
  }
  std::string Summary() const { return absl::StrJoin(errors_, "; "); }

 private:
  std::vector<std::string> errors_;
};

absl::Status Merge(const std::string& text, const std::string& flag,
                   tensorflow::ConfigProto* config) {
  CollectingErrors errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (parser.MergeFromString(text, config)) return absl::OkStatus();
  return errors::InvalidArgument(
      flag, " is not a ConfigProto in text format: ", errors.Summary());
}

}  // namespace

absl::StatusOr<tensorflow::ConfigProto> BuildSessionConfig(
    const std::string& config_file, const std::string& config_text) {
  tensorflow::ConfigProto config;
  if (!config_file.empty()) {
    std::ifstream in(config_file, std::ios::binary);
    if (!in) {
      return errors::InvalidArgument("--config-file: cannot open '",
                                     config_file, "'");
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    TRIB_RETURN_IF_ERROR(
        Merge(buffer.str(), absl::StrCat("--config-file '", config_file, "'"),
              &config));
  }
  if (!config_text.empty()) {
    TRIB_RETURN_IF_ERROR(Merge(config_text, "--config", &config));
  }
  return config;
}

}  // namespace tributary
