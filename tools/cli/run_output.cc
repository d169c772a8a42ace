#include "tools/cli/run_output.h"

#include <nlohmann/json.hpp>

#include "common/framework/status.h"
#include "tools/cli/output_file.h"
#include "tools/cli/tensor_json.h"

namespace tributary {

using json = nlohmann::json;

int PrintRunError(const absl::Status& status, int exit_code, std::ostream& out) {
  const tensorflow::error::Code code = ToErrorCode(status.code());
  json error = {{"error",
                 {{"code", tensorflow::error::Code_Name(code)},
                  {"message", std::string(status.message())}}}};
  out << error.dump(-1, ' ', false, json::error_handler_t::replace)
      << std::endl;
  return exit_code;
}

int PrintRunFetches(const std::vector<std::string>& names,
                    const std::vector<Tensor>& outputs,
                    const std::string& output_path, std::ostream& out) {
  json summary;
  json fetches = json::object();
  for (size_t i = 0; i < names.size() && i < outputs.size(); ++i) {
    json value = TensorToJson(outputs[i]);
    // The values went to the file; stdout keeps what identifies them.
    if (!output_path.empty()) value.erase("values");
    fetches[names[i]] = std::move(value);
  }
  summary["fetches"] = fetches;
  if (!output_path.empty()) {
    absl::Status status = WriteOutputFile(output_path, names, outputs);
    if (!status.ok()) return PrintRunError(status, kRunStepError, out);
    summary["output"] = output_path;
  }
  out << summary.dump(-1, ' ', false, json::error_handler_t::replace)
      << std::endl;
  return 0;
}

}  // namespace tributary
