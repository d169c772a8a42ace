// The smallest zip writer `tributary run --output FILE.npz` needs: stored
// (uncompressed) entries with their CRC-32, a central directory, and the
// end-of-central-directory record, as Python's zipfile (and so numpy.load)
// reads them. No compression, no Zip64: an archive whose entries or
// offsets would pass 4 GiB, or with more than 65535 entries, is
// InvalidArgument rather than a corrupt file.
#ifndef TRIBUTARY_TOOLS_CLI_ZIP_WRITER_H_
#define TRIBUTARY_TOOLS_CLI_ZIP_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tributary {

struct ZipEntry {
  std::string name;  // Path inside the archive, UTF-8.
  std::string data;
};

// CRC-32 (ISO-HDLC, zlib's crc32), continuing from `crc` (0 to start).
uint32_t Crc32(absl::string_view data, uint32_t crc = 0);

// Writes the archive; Internal when `out` fails.
absl::Status WriteStoredZip(const std::vector<ZipEntry>& entries,
                            std::ostream& out);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_ZIP_WRITER_H_
