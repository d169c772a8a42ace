// `tributary devices --target T [--json]`: every device a session target
// offers. For grpc://host:port that is every device of every task of the
// cluster, as the master's ListDevices returns them (no session is created).
//
// Table (default): one line per device, sorted by name:
//   NAME                                        TYPE  MEMORY    INCARNATION
//   /job:ps/replica:0/task:0/device:CPU:0       CPU   256.0 MiB
//   0x1f2e3d4c5b6a7988
// JSON (--json):
//   {"devices": [{"name": ..., "device_type": "CPU", "memory_limit": 268435456,
//                 "incarnation": "0x1f2e3d4c5b6a7988",
//                 "physical_device_desc": ...}, ...]}
// (the incarnation as a hex string: it is a full 64-bit value, which JSON
// numbers do not hold exactly). Errors: {"error": {"code", "message"}} with
// --json, else a line on stderr; exit 1.
#ifndef TRIBUTARY_TOOLS_CLI_DEVICES_COMMAND_H_
#define TRIBUTARY_TOOLS_CLI_DEVICES_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "protos/device_attributes.pb.h"
#include "tools/cli/client_credentials.h"

namespace tributary {

struct DevicesCommandOptions {
  std::string target;
  bool json = false;
  ClientCredentialFlags credentials;  // For grpc:// targets.
};

void PrintDevices(std::vector<tensorflow::DeviceAttributes> devices, bool json,
                  std::ostream& out);

int RunDevicesCommand(const DevicesCommandOptions& options, std::ostream& out,
                      std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_DEVICES_COMMAND_H_
