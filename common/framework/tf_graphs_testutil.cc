#include "common/framework/tf_graphs_testutil.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "protos/saved_model.pb.h"

namespace tributary {
namespace test {
namespace {

// Where //tests/testdata:tf_graphs lands inside the workspace's runfiles.
constexpr char kGraphsPath[] = "tests/testdata/tf_graphs";

// Keeps the parser's first error for the status instead of letting it log:
// err_malformed_text.pbtxt fails on purpose and should not spam the test log.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty())
      error_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

absl::Status ParseText(const std::string& path, const std::string& text,
                       google::protobuf::Message* message) {
  FirstError errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(text, message)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      path, " is not a text ", message->GetTypeName(), ": ", errors.error()));
}

}  // namespace

std::string TfGraphsDir() {
  const char* override_dir = std::getenv("TRIBUTARY_TF_GRAPHS");
  if (override_dir != nullptr && *override_dir != '\0') return override_dir;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrCat(srcdir, "/", workspace, "/", kGraphsPath);
  }
  // Outside `bazel test` (a test binary run by hand from the workspace root).
  return kGraphsPath;
}

absl::StatusOr<std::vector<std::string>> ListTfGraphs() {
  const std::string dir = TfGraphsDir();
  std::error_code ec;
  std::vector<std::string> names;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() == ".pbtxt") {
      names.push_back(it->path().filename().string());
    }
  }
  if (ec) {
    return absl::NotFoundError(absl::StrCat("cannot list TensorFlow graphs in ",
                                            dir, ": ", ec.message()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<tensorflow::GraphDef> LoadTfGraph(const std::string& name) {
  const std::string path = absl::StrCat(TfGraphsDir(), "/", name);
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream text;
  text << in.rdbuf();

  if (absl::EndsWith(name, "saved_model.pbtxt")) {
    tensorflow::SavedModel saved_model;
    absl::Status s = ParseText(path, text.str(), &saved_model);
    if (!s.ok()) return s;
    if (saved_model.meta_graphs_size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " is a SavedModel without a MetaGraph"));
    }
    return saved_model.meta_graphs(0).graph_def();
  }
  tensorflow::GraphDef gdef;
  absl::Status s = ParseText(path, text.str(), &gdef);
  if (!s.ok()) return s;
  return gdef;
}

}  // namespace test
}  // namespace tributary
