#include "common/rpc/tensor_coding.h"

#include <algorithm>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/rpc/wire_reader.h"
#include "google/protobuf/stubs/common.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"
#include "protos/named_tensor.pb.h"
#include "protos/tensor.pb.h"
#include "protos/tensor_shape.pb.h"
#include "protos/worker.pb.h"

namespace tributary {
namespace {

// Field numbers (tensor.proto, named_tensor.proto, worker.proto).
constexpr uint32_t kTensorDtype = 1;
constexpr uint32_t kTensorShape = 2;
constexpr uint32_t kTensorVersionNumber = 3;
constexpr uint32_t kTensorContent = 4;
constexpr uint32_t kNamedTensorName = 1;
constexpr uint32_t kNamedTensorTensor = 2;
constexpr uint32_t kRecvTensorTensor = 1;
constexpr uint32_t kRecvTensorIsDead = 2;
constexpr uint32_t kRecvTensorSendStartMicros = 3;

// Tensor contents smaller than this are copied into the header bytes: a
// zero-copy slice costs a Tensor reference on the heap and a slice refcount,
// more than copying a few hundred bytes.
constexpr size_t kZeroCopyMinBytes = 1024;
// Header chunks smaller than this are copied into a gRPC slice; larger ones
// (a big `rest`) are handed over without a copy.
constexpr size_t kCopyHeaderMaxBytes = 4096;

// ---------------------------------------------------------------------------
// Encoding.

// Collects the slices of an outgoing message: small header bytes accumulate
// in a string, each large tensor content becomes its own slice pointing at
// the tensor's buffer.
class SliceWriter {
 public:
  std::string* header() { return &pending_; }

  void AppendContent(const Tensor& tensor) {
    const absl::string_view bytes = tensor.tensor_data();
    if (bytes.size() < kZeroCopyMinBytes) {
      pending_.append(bytes.data(), bytes.size());
      return;
    }
    Flush();
    // The slice owns a Tensor sharing the buffer, i.e. one reference on the
    // TensorBuffer, dropped when gRPC releases the slice after sending.
    Tensor* ref = new Tensor(tensor);
    slices_.emplace_back(
        const_cast<char*>(bytes.data()), bytes.size(),
        [](void* t) { delete static_cast<Tensor*>(t); }, ref);
  }

  void Finish(grpc::ByteBuffer* out) {
    Flush();
    grpc::ByteBuffer buffer(slices_.data(), slices_.size());
    out->Swap(&buffer);
  }

 private:
  void Flush() {
    if (pending_.empty()) return;
    if (pending_.size() <= kCopyHeaderMaxBytes) {
      slices_.emplace_back(pending_.data(), pending_.size());
    } else {
      auto* owned = new std::string(std::move(pending_));
      slices_.emplace_back(
          owned->data(), owned->size(),
          [](void* s) { delete static_cast<std::string*>(s); }, owned);
    }
    pending_.clear();
  }

  std::string pending_;
  std::vector<grpc::Slice> slices_;
};

// A Tensor as TensorProto bytes: `prefix`, then (when `content` is set) the
// tensor's raw bytes as the value of tensor_content.
struct EncodedTensor {
  std::string prefix;
  const Tensor* content = nullptr;
  size_t content_size = 0;
  size_t size() const { return prefix.size() + content_size; }
};

void EncodeTensor(const Tensor& tensor, EncodedTensor* out) {
  if (DataTypeCanUseMemcpy(tensor.dtype())) {
    // dtype and shape are tiny: the generated code writes them (fields 1
    // and 2, in field order, as protobuf would).
    tensorflow::TensorProto header;
    header.set_dtype(tensor.dtype());
    tensor.shape().AsProto(header.mutable_tensor_shape());
    header.AppendToString(&out->prefix);
    const size_t bytes = tensor.tensor_data().size();
    if (bytes > 0) {
      AppendTag(kTensorContent, WireType::kLengthDelimited, &out->prefix);
      AppendVarint(bytes, &out->prefix);
      out->content = &tensor;
      out->content_size = bytes;
    }
  } else {
    // Strings and resource handles are objects, not bytes: typed fields.
    tensorflow::TensorProto proto;
    tensor.AsProtoField(&proto);
    proto.AppendToString(&out->prefix);
  }
}

// Appends `encoded` as the value of a length-delimited field.
void AppendTensorField(uint32_t field, const EncodedTensor& encoded,
                       SliceWriter* writer) {
  AppendTag(field, WireType::kLengthDelimited, writer->header());
  AppendVarint(encoded.size(), writer->header());
  writer->header()->append(encoded.prefix);
  if (encoded.content != nullptr) writer->AppendContent(*encoded.content);
}

// ---------------------------------------------------------------------------
// Decoding.

// Contents at least this big are copied by several threads. The copy out
// of the network slices happens after the whole message has arrived, so it
// adds to the transfer time instead of overlapping it; one thread copies at
// about the speed the kernel moves the bytes through the socket, several
// bring it down to a fraction.
constexpr size_t kParallelCopyMinBytes = 8 << 20;
constexpr size_t kParallelCopyMaxThreads = 4;

// Copies `size` bytes starting at `from` into `dst`.
void CopyContent(const WireReader& reader, const WireReader::Mark& from,
                 size_t size, char* dst) {
  size_t threads = 1;
  if (size >= kParallelCopyMinBytes) {
    // At least two: while this copy runs the connection is idle, so even on
    // a two-core machine the second core has nothing better to do.
    threads = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 2,
                                 kParallelCopyMaxThreads);
  }
  // Parts of whole cache lines, so no two threads write the same line.
  const size_t part = (size / threads + 63) / 64 * 64;
  auto copy_part = [&reader, &from, size, dst, part](size_t i) {
    const size_t begin = std::min(size, i * part);
    const size_t n = std::min(size, begin + part) - begin;
    WireReader r(reader);
    r.Seek(from);
    r.Skip(begin);
    r.CopyTo(dst + begin, n);
  };
  std::vector<std::thread> helpers;
  size_t i = 1;
  try {
    for (; i < threads; ++i) helpers.emplace_back(copy_part, i);
  } catch (const std::system_error&) {
    // No thread to be had: copy the remaining parts here.
    for (size_t j = i; j < threads; ++j) copy_part(j);
  }
  copy_part(0);
  for (std::thread& t : helpers) t.join();
}

// The received bytes as chunks for WireReader; `slices` keeps them alive.
struct ReceivedBytes {
  std::vector<grpc::Slice> slices;
  std::vector<absl::string_view> chunks;
};

absl::Status Dump(const grpc::ByteBuffer& in, ReceivedBytes* out) {
  // A buffer gRPC never filled is an empty message.
  if (!in.Valid()) return absl::OkStatus();
  const grpc::Status s = in.Dump(&out->slices);
  if (!s.ok()) {
    return errors::Internal("cannot read received message bytes: ",
                            s.error_message());
  }
  out->chunks.reserve(out->slices.size());
  for (const grpc::Slice& slice : out->slices) {
    out->chunks.emplace_back(reinterpret_cast<const char*>(slice.begin()),
                             slice.size());
  }
  return absl::OkStatus();
}

absl::Status Malformed(absl::string_view what, const WireReader& r) {
  return errors::InvalidArgument("Malformed ", what,
                                 ": bad or truncated "
                                 "protobuf field at byte ",
                                 r.position(), " of ", r.size());
}

// Reads the key of the next field of a sub-message ending at `end`; false
// when the key is malformed or runs past `end`.
bool NextField(WireReader* r, size_t end, uint32_t* field, WireType* type) {
  return r->position() < end && r->ReadTag(field, type) && r->position() <= end;
}

// Decodes the TensorProto in [r->position(), end) into `out`. On return the
// reader is at `end`.
absl::Status DecodeTensorProto(WireReader* r, size_t end, Allocator* allocator,
                               absl::string_view what, Tensor* out) {
  const WireReader::Mark start = r->mark();
  int64_t dtype_value = 0;
  // Each occurrence of tensor_shape on its own: protobuf parses each with
  // its own length and merges them, so one that is malformed fails the
  // message even when its bytes and the next one's would parse together
  // (found by tensor_coding_fuzzer).
  std::vector<std::string> shape_occurrences;
  bool has_content = false;
  WireReader::Mark content;
  size_t content_size = 0;
  bool other_fields = false;
  // First pass: find the fields (protobuf allows any order and repeats).
  while (r->position() < end) {
    uint32_t field;
    WireType type;
    if (!NextField(r, end, &field, &type)) return Malformed(what, *r);
    bool ok = true;
    if (field == kTensorDtype && type == WireType::kVarint) {
      uint64_t v;
      ok = r->ReadVarint64(&v);
      dtype_value = static_cast<int32_t>(v);  // enums are int32 on the wire
    } else if (field == kTensorShape && type == WireType::kLengthDelimited) {
      // Repeated occurrences of a message field merge (see above).
      size_t n;
      ok = r->ReadLength(&n) &&
           r->AppendTo(&shape_occurrences.emplace_back(), n);
    } else if (field == kTensorContent &&
               type == WireType::kLengthDelimited) {
      size_t n;
      ok = r->ReadLength(&n);
      if (ok) {
        has_content = true;  // the last occurrence wins
        content = r->mark();
        content_size = n;
        ok = r->Skip(n);
      }
    } else {
      // version_number changes nothing; anything else (typed values) needs
      // the ordinary path.
      if (field != kTensorVersionNumber) other_fields = true;
      ok = r->SkipValue(type, field);
    }
    if (!ok || r->position() > end) return Malformed(what, *r);
  }

  const DataType dtype = static_cast<DataType>(dtype_value);
  if (other_fields || !has_content || content_size == 0 ||
      !DataTypeCanUseMemcpy(dtype) || !DataTypeIsSupportedByTensor(dtype)) {
    // Typed fields, strings, resources, empty tensors and invalid dtypes:
    // the ordinary TensorProto path (and its error messages). Such protos
    // are small unless a peer sends big typed fields, which only costs
    // speed.
    std::string bytes;
    r->AppendRange(start, &bytes);
    tensorflow::TensorProto proto;
    if (!proto.ParseFromString(bytes)) {
      return errors::InvalidArgument("Malformed ", what,
                                     ": its TensorProto does not parse");
    }
    absl::StatusOr<Tensor> t =
        Tensor::FromProto(proto, allocator, kMaxExpandedTensorBytes);
    if (!t.ok()) return errors::PrependToMessage(t.status(), what, ": ");
    *out = *std::move(t);
    return absl::OkStatus();
  }

  tensorflow::TensorShapeProto shape_proto;
  bool shape_parsed = true;
  for (const std::string& occurrence : shape_occurrences) {
    shape_parsed = shape_parsed && shape_proto.MergeFromString(occurrence);
  }
  if (!shape_parsed) {
    return errors::InvalidArgument("Malformed ", what,
                                   ": its tensor_shape does not parse");
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(shape_proto);
  if (!shape.ok()) {
    return errors::InvalidArgument(what, ": TensorProto of dtype ",
                                   DataTypeString(dtype),
                                   " has an invalid tensor_shape: ",
                                   shape.status().message());
  }
  const uint64_t element_bytes = static_cast<uint64_t>(DataTypeSize(dtype));
  uint64_t expected;
  if (__builtin_mul_overflow(static_cast<uint64_t>(shape->num_elements()),
                             element_bytes, &expected) ||
      expected != content_size) {
    return errors::InvalidArgument(
        what, ": TensorProto of dtype ", DataTypeString(dtype), " and shape ",
        shape->DebugString(), " has ", content_size,
        " bytes of tensor_content; expected ", shape->num_elements(),
        " elements of ", element_bytes, " bytes");
  }
  // The one copy: from the network slices into allocator memory.
  Tensor t(allocator, dtype, *shape);
  if (!t.IsInitialized()) {
    return errors::ResourceExhausted(what, ": could not allocate ",
                                     content_size, " bytes for a ",
                                     DataTypeString(dtype), " tensor of shape ",
                                     shape->DebugString(), " with allocator ",
                                     allocator->Name());
  }
  // In bounds: checked by the scan.
  CopyContent(*r, content, content_size, static_cast<char*>(t.data()));
  if (dtype == DT_BOOL) {
    // Only 0 and 1 are valid bools; a peer may send any non-zero byte.
    uint8_t* data = static_cast<uint8_t*>(t.data());
    for (size_t i = 0; i < content_size; ++i) data[i] = data[i] != 0;
  }
  *out = std::move(t);
  return absl::OkStatus();
}

// Decodes the NamedTensorProto in [r->position(), end).
absl::Status DecodeNamedTensor(WireReader* r, size_t end, Allocator* allocator,
                               absl::string_view what,
                               std::pair<std::string, Tensor>* out) {
  const WireReader::Mark start = r->mark();
  std::string name;
  int tensors = 0;
  WireReader::Mark tensor;
  size_t tensor_size = 0;
  while (r->position() < end) {
    uint32_t field;
    WireType type;
    if (!NextField(r, end, &field, &type)) return Malformed(what, *r);
    bool ok = true;
    if (field == kNamedTensorName && type == WireType::kLengthDelimited) {
      size_t n;
      name.clear();  // the last occurrence wins
      ok = r->ReadLength(&n) && r->AppendTo(&name, n);
      // A proto3 string: protobuf refuses the message when any occurrence
      // is not UTF-8, so we do too (found by tensor_coding_fuzzer), with
      // the check protobuf's parser itself applies (exported by libprotobuf;
      // unlike a parse, it logs nothing for a hostile peer to flood).
      if (ok && !google::protobuf::internal::IsStructurallyValidUTF8(name)) {
        return errors::InvalidArgument("Malformed ", what,
                                       ": a tensor's name is not valid UTF-8");
      }
    } else if (field == kNamedTensorTensor &&
               type == WireType::kLengthDelimited) {
      ok = r->ReadLength(&tensor_size);
      if (ok) {
        ++tensors;
        tensor = r->mark();
        ok = r->Skip(tensor_size);
      }
    } else {
      ok = r->SkipValue(type, field);
    }
    if (!ok || r->position() > end) return Malformed(what, *r);
  }
  const std::string context = absl::StrCat(what, " '", name, "'");
  if (tensors == 1) {
    const WireReader::Mark after = r->mark();
    r->Seek(tensor);
    TRIB_RETURN_IF_ERROR(DecodeTensorProto(r, tensor.pos + tensor_size,
                                           allocator, context, &out->second));
    r->Seek(after);
    out->first = std::move(name);
    return absl::OkStatus();
  }
  if (tensors == 0) {
    return errors::InvalidArgument(context, " carries no tensor");
  }
  // Several occurrences merge into one TensorProto: let protobuf do that.
  std::string bytes;
  r->AppendRange(start, &bytes);
  tensorflow::NamedTensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return errors::InvalidArgument("Malformed ", context,
                                   ": NamedTensorProto does not parse");
  }
  absl::StatusOr<Tensor> t =
      Tensor::FromProto(proto.tensor(), allocator, kMaxExpandedTensorBytes);
  if (!t.ok()) return errors::PrependToMessage(t.status(), context, ": ");
  out->first = proto.name();
  out->second = *std::move(t);
  return absl::OkStatus();
}

}  // namespace

void EncodeRecvTensorResponse(const Tensor& tensor, bool is_dead,
                              int64_t send_start_micros,
                              grpc::ByteBuffer* out) {
  SliceWriter writer;
  EncodedTensor encoded;
  EncodeTensor(tensor, &encoded);
  AppendTensorField(kRecvTensorTensor, encoded, &writer);
  if (is_dead) {
    AppendTag(kRecvTensorIsDead, WireType::kVarint, writer.header());
    AppendVarint(1, writer.header());
  }
  if (send_start_micros != 0) {
    AppendTag(kRecvTensorSendStartMicros, WireType::kVarint, writer.header());
    AppendVarint(static_cast<uint64_t>(send_start_micros), writer.header());
  }
  writer.Finish(out);
}

namespace {

// Counts the occurrences of `counted` in the message of `end - position`
// bytes at `r`, recursing into the fields `nested` maps to the next level.
// False on malformed input.
struct NodeFields {
  uint32_t field;            // at this level
  const NodeFields* inside;  // null: count the field itself
};

bool CountFields(WireReader* r, size_t end, const NodeFields* fields,
                 int64_t* count) {
  while (r->position() < end) {
    uint32_t field;
    WireType type;
    if (!r->ReadTag(&field, &type)) return false;
    const NodeFields* match = nullptr;
    for (const NodeFields* f = fields; f->field != 0; ++f) {
      if (f->field == field) match = f;
    }
    if (match == nullptr || type != WireType::kLengthDelimited) {
      if (!r->SkipValue(type, field)) return false;
    } else {
      size_t n;
      if (!r->ReadLength(&n)) return false;
      if (match->inside == nullptr) {
        ++*count;
        if (!r->Skip(n)) return false;
      } else if (!CountFields(r, r->position() + n, match->inside, count)) {
        return false;
      }
    }
    if (r->position() > end) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<int64_t> CountGraphNodesOnWire(const grpc::ByteBuffer& in,
                                              int graph_def_field) {
  // FunctionDef.node_def = 3; FunctionDefLibrary.function = 1;
  // GraphDef.node = 1, GraphDef.library = 2.
  static constexpr NodeFields kFunction[] = {{3, nullptr}, {0, nullptr}};
  static constexpr NodeFields kLibrary[] = {{1, kFunction}, {0, nullptr}};
  static constexpr NodeFields kGraph[] = {
      {1, nullptr}, {2, kLibrary}, {0, nullptr}};
  const NodeFields request[] = {
      {static_cast<uint32_t>(graph_def_field), kGraph}, {0, nullptr}};
  ReceivedBytes bytes;
  TRIB_RETURN_IF_ERROR(Dump(in, &bytes));
  WireReader r(&bytes.chunks);
  int64_t count = 0;
  if (!CountFields(&r, r.size(), request, &count)) {
    return errors::InvalidArgument("Malformed request: its GraphDef does not parse");
  }
  return count;
}

absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& in,
                                      Allocator* allocator,
                                      TensorResponse* out) {
  if (allocator == nullptr) allocator = cpu_allocator();
  constexpr absl::string_view kWhat = "RecvTensorResponse";
  ReceivedBytes bytes;
  TRIB_RETURN_IF_ERROR(Dump(in, &bytes));
  WireReader r(&bytes.chunks);
  bool is_dead = false;
  int64_t send_start_micros = 0;
  int tensors = 0;
  WireReader::Mark tensor;
  size_t tensor_size = 0;
  // The fields we do not use (transport_options, unknown ones), for
  // protobuf to check as it would (found by tensor_coding_fuzzer: a
  // malformed transport_options was accepted).
  std::string rest_bytes;
  while (r.remaining() > 0) {
    const WireReader::Mark field_start = r.mark();
    uint32_t field;
    WireType type;
    if (!r.ReadTag(&field, &type)) return Malformed(kWhat, r);
    bool ok = true;
    uint64_t v;
    if (field == kRecvTensorTensor && type == WireType::kLengthDelimited) {
      ok = r.ReadLength(&tensor_size);
      if (ok) {
        ++tensors;
        tensor = r.mark();
        ok = r.Skip(tensor_size);
      }
    } else if (field == kRecvTensorIsDead && type == WireType::kVarint) {
      ok = r.ReadVarint64(&v);
      is_dead = v != 0;
    } else if (field == kRecvTensorSendStartMicros &&
               type == WireType::kVarint) {
      ok = r.ReadVarint64(&v);
      send_start_micros = static_cast<int64_t>(v);
    } else {
      ok = r.SkipValue(type, field);
      if (ok) r.AppendRange(field_start, &rest_bytes);
    }
    if (!ok) return Malformed(kWhat, r);
  }
  if (!rest_bytes.empty() &&
      !tensorflow::RecvTensorResponse().ParseFromString(rest_bytes)) {
    return errors::InvalidArgument("Malformed ", kWhat,
                                   ": a field other than the tensor does not "
                                   "parse");
  }

  if (tensors == 1) {
    r.Seek(tensor);
    TRIB_RETURN_IF_ERROR(DecodeTensorProto(&r, tensor.pos + tensor_size,
                                           allocator, kWhat, &out->tensor));
  } else if (tensors == 0) {
    // A dead tensor has no value; anything else must carry one.
    if (!is_dead) {
      return errors::InvalidArgument("RecvTensorResponse carries no tensor");
    }
    out->tensor = Tensor();
  } else {
    // Repeated occurrences merge; leave that to protobuf.
    std::string all;
    r.Seek(WireReader::Mark());
    r.AppendTo(&all, r.size());
    tensorflow::RecvTensorResponse proto;
    if (!proto.ParseFromString(all)) {
      return errors::InvalidArgument("Malformed RecvTensorResponse");
    }
    absl::StatusOr<Tensor> t =
        Tensor::FromProto(proto.tensor(), allocator, kMaxExpandedTensorBytes);
    if (!t.ok()) return errors::PrependToMessage(t.status(), kWhat, ": ");
    out->tensor = *std::move(t);
  }
  out->is_dead = is_dead;
  out->send_start_micros = send_start_micros;
  return absl::OkStatus();
}

void EncodeWithNamedTensors(const google::protobuf::Message& rest,
                            int field_number, const NamedTensors& tensors,
                            grpc::ByteBuffer* out) {
  SliceWriter writer;
  rest.AppendToString(writer.header());
  const uint32_t field = static_cast<uint32_t>(field_number);
  EncodedTensor encoded;
  for (const auto& [name, tensor] : tensors) {
    encoded = EncodedTensor();
    EncodeTensor(tensor, &encoded);
    // NamedTensorProto {name = 1, tensor = 2}; proto3 omits an empty name.
    size_t size = TagSize(kNamedTensorTensor) + VarintSize(encoded.size()) +
                  encoded.size();
    if (!name.empty()) {
      size += TagSize(kNamedTensorName) + VarintSize(name.size()) + name.size();
    }
    AppendTag(field, WireType::kLengthDelimited, writer.header());
    AppendVarint(size, writer.header());
    if (!name.empty()) {
      AppendTag(kNamedTensorName, WireType::kLengthDelimited, writer.header());
      AppendVarint(name.size(), writer.header());
      writer.header()->append(name);
    }
    AppendTensorField(kNamedTensorTensor, encoded, &writer);
  }
  writer.Finish(out);
}

absl::Status DecodeWithNamedTensors(const grpc::ByteBuffer& in,
                                    int field_number, Allocator* allocator,
                                    google::protobuf::Message* rest,
                                    NamedTensors* tensors) {
  if (allocator == nullptr) allocator = cpu_allocator();
  rest->Clear();
  tensors->clear();
  const std::string what =
      absl::StrCat(rest->GetDescriptor()->name(), " field ", field_number);
  ReceivedBytes bytes;
  TRIB_RETURN_IF_ERROR(Dump(in, &bytes));
  WireReader r(&bytes.chunks);
  // Every other field is gathered (copied; small) and parsed normally.
  std::string rest_bytes;
  while (r.remaining() > 0) {
    const WireReader::Mark field_start = r.mark();
    uint32_t field;
    WireType type;
    if (!r.ReadTag(&field, &type)) return Malformed(rest->GetTypeName(), r);
    if (field == static_cast<uint32_t>(field_number) &&
        type == WireType::kLengthDelimited) {
      size_t n;
      if (!r.ReadLength(&n)) return Malformed(rest->GetTypeName(), r);
      tensors->emplace_back();
      TRIB_RETURN_IF_ERROR(DecodeNamedTensor(&r, r.position() + n, allocator,
                                             what, &tensors->back()));
    } else {
      if (!r.SkipValue(type, field)) return Malformed(rest->GetTypeName(), r);
      r.AppendRange(field_start, &rest_bytes);
    }
  }
  if (!rest->ParseFromString(rest_bytes)) {
    return errors::InvalidArgument("Malformed ", rest->GetTypeName(),
                                   ": its fields do not parse");
  }
  return absl::OkStatus();
}

void SerializeToByteBuffer(const google::protobuf::Message& message,
                           grpc::ByteBuffer* out) {
  const size_t size = message.ByteSizeLong();
  grpc::Slice slice(size);
  message.SerializeWithCachedSizesToArray(const_cast<uint8_t*>(slice.begin()));
  grpc::ByteBuffer buffer(&slice, 1);
  out->Swap(&buffer);
}

absl::Status ParseFromByteBuffer(const grpc::ByteBuffer& in,
                                 google::protobuf::Message* message) {
  message->Clear();
  if (!in.Valid()) return absl::OkStatus();
  grpc::Slice single;
  bool ok;
  if (in.TrySingleSlice(&single).ok()) {
    ok = single.size() <= static_cast<size_t>(INT32_MAX) &&
         message->ParseFromArray(single.begin(), static_cast<int>(single.size()));
  } else {
    // ProtoBufferReader reads (without copying) from a ByteBuffer it may
    // advance; a copy of `in` shares the slices.
    grpc::ByteBuffer copy(in);
    grpc::ProtoBufferReader reader(&copy);
    ok = message->ParseFromZeroCopyStream(&reader);
  }
  if (!ok) {
    return errors::InvalidArgument("Malformed ", message->GetTypeName(),
                                   ": it does not parse");
  }
  return absl::OkStatus();
}

}  // namespace tributary
