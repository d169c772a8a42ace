#include "tools/cli/zip_writer.h"

#include <array>
#include <limits>

#include "common/framework/status.h"

namespace tributary {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr uint16_t kVersion = 20;         // 2.0: stored entries, directories.
constexpr uint16_t kUtf8Names = 1 << 11;  // General purpose flag bit 11.
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01.
constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

void Put16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>(v >> 8));
}

void Put32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// The fields local and central headers share, from "version needed" on.
void PutCommon(std::string* out, const ZipEntry& e, uint32_t crc) {
  Put16(out, kVersion);
  Put16(out, kUtf8Names);
  Put16(out, 0);  // Stored.
  Put16(out, 0);  // Time 00:00.
  Put16(out, kDosDate);
  Put32(out, crc);
  Put32(out, static_cast<uint32_t>(e.data.size()));  // Compressed size.
  Put32(out, static_cast<uint32_t>(e.data.size()));
  Put16(out, static_cast<uint16_t>(e.name.size()));
  Put16(out, 0);  // Extra field length.
}

}  // namespace

uint32_t Crc32(absl::string_view data, uint32_t crc) {
  static const std::array<uint32_t, 256> kTable = MakeCrcTable();
  crc = ~crc;
  for (unsigned char c : data) crc = kTable[(crc ^ c) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

absl::Status WriteStoredZip(const std::vector<ZipEntry>& entries,
                            std::ostream& out) {
  if (entries.size() > 0xFFFF) {
    return errors::InvalidArgument(
        "a zip of ", entries.size(),
        " entries needs Zip64, which is not written");
  }
  // Every limit is checked before the first byte, so a refused archive
  // leaves nothing half-written.
  uint64_t total = 22;
  for (const ZipEntry& e : entries) {
    if (e.name.empty() || e.name.size() > 0xFFFF) {
      return errors::InvalidArgument("bad zip entry name '", e.name, "'");
    }
    total += 30 + 46 + 2 * e.name.size() + e.data.size();
    if (e.data.size() >= kMax32 || total >= kMax32) {
      return errors::InvalidArgument("the zip would pass 4 GiB at entry '",
                                     e.name,
                                     "', which needs Zip64 (not written)");
    }
  }
  std::string central;
  uint64_t offset = 0;
  for (const ZipEntry& e : entries) {
    const uint64_t local_size = 30 + e.name.size() + e.data.size();
    const uint32_t crc = Crc32(e.data);
    std::string local;
    Put32(&local, kLocalHeader);
    PutCommon(&local, e, crc);
    local += e.name;
    out.write(local.data(), local.size());
    out.write(e.data.data(), e.data.size());

    Put32(&central, kCentralHeader);
    Put16(&central, kVersion);  // Version made by.
    PutCommon(&central, e, crc);
    Put16(&central, 0);  // Comment length.
    Put16(&central, 0);  // Disk number.
    Put16(&central, 0);  // Internal attributes.
    Put32(&central, 0);  // External attributes.
    Put32(&central, static_cast<uint32_t>(offset));
    central += e.name;
    offset += local_size;
  }
  std::string end;
  Put32(&end, kEndOfCentralDirectory);
  Put16(&end, 0);  // This disk.
  Put16(&end, 0);  // Disk with the central directory.
  Put16(&end, static_cast<uint16_t>(entries.size()));
  Put16(&end, static_cast<uint16_t>(entries.size()));
  Put32(&end, static_cast<uint32_t>(central.size()));
  Put32(&end, static_cast<uint32_t>(offset));
  Put16(&end, 0);  // Comment length.
  out.write(central.data(), central.size());
  out.write(end.data(), end.size());
  if (!out) return errors::Internal("writing the zip failed");
  return absl::OkStatus();
}

}  // namespace tributary
