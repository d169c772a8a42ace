#include "common/checkpoint/bundle_format.h"

#include "absl/strings/str_join.h"
#include "common/framework/status.h"

namespace tributary {

tensorflow::BundleHeaderProto MakeHeader(int num_shards) {
  static_assert(ABSL_IS_LITTLE_ENDIAN, "checkpoints are written little-endian");
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kTensorBundleVersion);
  header.mutable_version()->set_min_consumer(0);
  return header;
}

absl::Status CheckHeader(const tensorflow::BundleHeaderProto& header,
                         absl::string_view path) {
  if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE) {
    return errors::Unimplemented(
        path, ": the checkpoint was written on a big-endian machine; reading "
        "it on this little-endian one would need byte swapping, which is not "
        "implemented");
  }
  const tensorflow::VersionDef& v = header.version();
  if (v.producer() < kTensorBundleMinProducer) {
    return errors::InvalidArgument(
        path, ": checkpoint format producer version ", v.producer(),
        " is below the minimum supported ", kTensorBundleMinProducer);
  }
  if (v.min_consumer() > kTensorBundleVersion) {
    return errors::InvalidArgument(
        path, ": checkpoint format needs consumer version ", v.min_consumer(),
        " or newer; this is ", kTensorBundleVersion);
  }
  for (const int bad : v.bad_consumers()) {
    if (bad == kTensorBundleVersion) {
      return errors::InvalidArgument(
          path, ": checkpoint format disallows consumer version ", bad);
    }
  }
  if (header.num_shards() < 1) {
    return errors::DataLoss(path, ": header has ", header.num_shards(),
                            " shards");
  }
  return absl::OkStatus();
}

}  // namespace tributary
