#include "tools/cli/devices_command.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/framework/status.h"
#include "tools/client/session.h"

namespace tributary {
namespace {

using json = nlohmann::json;

std::string Incarnation(uint64_t incarnation) {
  return absl::StrFormat("0x%016x", incarnation);
}

std::string HumanBytes(int64_t bytes) {
  if (bytes <= 0) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? absl::StrFormat("%d B", bytes)
                : absl::StrFormat("%.1f %s", v, units[u]);
}

}  // namespace

void PrintDevices(std::vector<tensorflow::DeviceAttributes> devices,
                  bool as_json, std::ostream& out) {
  std::sort(devices.begin(), devices.end(),
            [](const auto& a, const auto& b) { return a.name() < b.name(); });
  if (as_json) {
    json list = json::array();
    for (const auto& d : devices) {
      list.push_back({{"name", d.name()},
                      {"device_type", d.device_type()},
                      {"memory_limit", d.memory_limit()},
                      {"incarnation", Incarnation(d.incarnation())},
                      {"physical_device_desc", d.physical_device_desc()}});
    }
    out << json{{"devices", list}}.dump(-1, ' ', false,
                                        json::error_handler_t::replace)
        << std::endl;
    return;
  }
  size_t name_width = 4, type_width = 4;
  for (const auto& d : devices) {
    name_width = std::max(name_width, d.name().size());
    type_width = std::max(type_width, d.device_type().size());
  }
  out << absl::StrFormat("%-*s  %-*s  %-10s  %s\n", name_width, "NAME",
                         type_width, "TYPE", "MEMORY", "INCARNATION");
  for (const auto& d : devices) {
    out << absl::StrFormat("%-*s  %-*s  %-10s  %s\n", name_width, d.name(),
                           type_width, d.device_type(),
                           HumanBytes(d.memory_limit()),
                           Incarnation(d.incarnation()));
  }
  out.flush();
}

int RunDevicesCommand(const DevicesCommandOptions& options, std::ostream& out,
                      std::ostream& err) {
  auto fail = [&](const absl::Status& status) {
    if (options.json) {
      out << json{{"error",
                   {{"code",
                     tensorflow::error::Code_Name(ToErrorCode(status.code()))},
                    {"message", std::string(status.message())}}}}
                 .dump(-1, ' ', false, json::error_handler_t::replace)
          << std::endl;
    } else {
      err << "tributary devices: " << status.message() << "\n";
    }
    return 1;
  };
  absl::StatusOr<ClientCredentials> credentials =
      ResolveClientCredentials(options.credentials, options.target);
  if (!credentials.ok()) return fail(credentials.status());
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(
      options.target, tensorflow::ConfigProto(), *std::move(credentials));
  if (!session.ok()) return fail(session.status());
  absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> devices =
      (*session)->ListDevices();
  if (!devices.ok()) return fail(devices.status());
  PrintDevices(*std::move(devices), options.json, out);
  return 0;
}

}  // namespace tributary
