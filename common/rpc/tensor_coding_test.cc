#include "common/rpc/tensor_coding.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "protos/master.pb.h"
#include "protos/named_tensor.pb.h"
#include "protos/worker.pb.h"

namespace tributary {
namespace {

// --- Helpers ---------------------------------------------------------------

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// `bytes` as a ByteBuffer of `chunk`-byte slices (0: one slice), like gRPC
// hands over a message read in pieces from the socket.
grpc::ByteBuffer ToByteBuffer(const std::string& bytes, size_t chunk = 0) {
  std::vector<grpc::Slice> slices;
  if (chunk == 0) chunk = std::max<size_t>(bytes.size(), 1);
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    slices.emplace_back(bytes.data() + i, std::min(chunk, bytes.size() - i));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// A tensor of `dtype` and `shape` with pseudo-random contents.
Tensor RandomTensor(DataType dtype, const TensorShape& shape,
                    uint32_t seed = 1) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  if (dtype == DT_STRING) {
    auto flat = t.flat<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      flat(i) = std::string(rng() % 40, static_cast<char>('a' + i % 26));
    }
  } else if (dtype == DT_RESOURCE) {
    auto flat = t.flat<ResourceHandle>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      flat(i).set_device("/job:ps/replica:0/task:0/device:CPU:0");
      flat(i).set_name("var" + std::to_string(i));
      flat(i).set_hash_code(rng());
    }
  } else {
    uint8_t* data = static_cast<uint8_t*>(t.data());
    const size_t n = t.tensor_data().size();
    for (size_t i = 0; i < n; ++i) {
      data[i] = dtype == DT_BOOL ? rng() % 2 : static_cast<uint8_t>(rng());
    }
  }
  return t;
}

void ExpectSameTensor(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape())
      << actual.shape().DebugString() << " vs "
      << expected.shape().DebugString();
  if (expected.dtype() == DT_STRING) {
    test::ExpectTensorEqual<std::string>(actual, expected);
  } else if (expected.dtype() == DT_RESOURCE) {
    for (int64_t i = 0; i < expected.NumElements(); ++i) {
      EXPECT_EQ(actual.flat<ResourceHandle>()(i).SerializeAsString(),
                expected.flat<ResourceHandle>()(i).SerializeAsString());
    }
  } else {
    EXPECT_TRUE(actual.tensor_data() == expected.tensor_data());
  }
}

const std::vector<DataType>& AllDtypes() {
  static const auto* dtypes = new std::vector<DataType>{
      DT_FLOAT,  DT_DOUBLE,  DT_INT32,     DT_UINT32,     DT_INT16,
      DT_UINT16, DT_INT8,    DT_UINT8,     DT_INT64,      DT_UINT64,
      DT_BOOL,   DT_HALF,    DT_BFLOAT16,  DT_COMPLEX64,  DT_COMPLEX128,
      DT_QINT8,  DT_QUINT8,  DT_QINT16,    DT_QUINT16,    DT_QINT32,
      DT_STRING, DT_RESOURCE};
  return *dtypes;
}

const std::vector<TensorShape>& AllShapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      TensorShape({}),      TensorShape({0}),    TensorShape({1}),
      TensorShape({7}),     TensorShape({2, 3}), TensorShape({2, 0, 3}),
      TensorShape({3, 300}),  // above the zero-copy threshold
  };
  return *shapes;
}

// --- RecvTensorResponse ----------------------------------------------------

TEST(TensorCodingTest, RecvTensorRoundTripsEveryDtypeAndShape) {
  for (DataType dtype : AllDtypes()) {
    for (const TensorShape& shape : AllShapes()) {
      SCOPED_TRACE(DataTypeString(dtype) + " " + shape.DebugString());
      const Tensor t = RandomTensor(dtype, shape);
      grpc::ByteBuffer buffer;
      EncodeRecvTensorResponse(t, false, 1234567, &buffer);
      for (size_t chunk : {0, 1, 3, 64}) {
        TensorResponse out;
        ASSERT_TRUE(DecodeRecvTensorResponse(ToByteBuffer(Flatten(buffer), chunk),
                                             cpu_allocator(), &out)
                        .ok());
        ExpectSameTensor(out.tensor, t);
        EXPECT_FALSE(out.is_dead);
        EXPECT_EQ(out.send_start_micros, 1234567);
      }
    }
  }
}

TEST(TensorCodingTest, RecvTensorIsReadableByGeneratedCode) {
  for (DataType dtype : AllDtypes()) {
    SCOPED_TRACE(DataTypeString(dtype));
    const Tensor t = RandomTensor(dtype, TensorShape({4, 300}));
    grpc::ByteBuffer buffer;
    EncodeRecvTensorResponse(t, true, -5, &buffer);
    tensorflow::RecvTensorResponse proto;
    ASSERT_TRUE(proto.ParseFromString(Flatten(buffer)));
    EXPECT_TRUE(proto.is_dead());
    EXPECT_EQ(proto.send_start_micros(), -5);
    absl::StatusOr<Tensor> parsed = Tensor::FromProto(proto.tensor());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ExpectSameTensor(*parsed, t);

    // What the generated code writes for the same tensor, parsed the same.
    tensorflow::RecvTensorResponse reference;
    if (DataTypeCanUseMemcpy(dtype)) {
      t.AsProtoTensorContent(reference.mutable_tensor());
    } else {
      t.AsProtoField(reference.mutable_tensor());
    }
    reference.set_is_dead(true);
    reference.set_send_start_micros(-5);
    EXPECT_EQ(proto.SerializeAsString(), reference.SerializeAsString());
  }
}

TEST(TensorCodingTest, GeneratedRecvTensorBytesDecode) {
  for (DataType dtype : AllDtypes()) {
    for (bool typed_fields : {false, true}) {
      SCOPED_TRACE(DataTypeString(dtype) + (typed_fields ? " typed" : ""));
      const Tensor t = RandomTensor(dtype, TensorShape({5, 3}));
      tensorflow::RecvTensorResponse proto;
      if (typed_fields) {
        t.AsProtoField(proto.mutable_tensor());
      } else {
        t.AsProtoTensorContent(proto.mutable_tensor());
      }
      proto.set_send_start_micros(99);
      proto.set_require_ack(true);  // unknown to the decoder: skipped
      proto.mutable_transport_options()->set_type_url("x");
      for (size_t chunk : {0, 1, 5}) {
        TensorResponse out;
        absl::Status s = DecodeRecvTensorResponse(
            ToByteBuffer(proto.SerializeAsString(), chunk), cpu_allocator(),
            &out);
        ASSERT_TRUE(s.ok()) << s;
        ExpectSameTensor(out.tensor, t);
        EXPECT_EQ(out.send_start_micros, 99);
      }
    }
  }
}

TEST(TensorCodingTest, TypedFieldsWithFewerValuesRepeatTheLast) {
  // TensorFlow's Python client sends a filled constant as one value.
  tensorflow::RecvTensorResponse proto;
  proto.mutable_tensor()->set_dtype(DT_FLOAT);
  proto.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(4);
  proto.mutable_tensor()->add_float_val(2.5f);
  TensorResponse out;
  ASSERT_TRUE(DecodeRecvTensorResponse(ToByteBuffer(proto.SerializeAsString()),
                                       cpu_allocator(), &out)
                  .ok());
  test::ExpectTensorEqual<float>(out.tensor,
                                 test::AsTensor<float>({2.5, 2.5, 2.5, 2.5}));
}

// A request's TensorProto with fewer values than elements may not describe
// more than kMaxExpandedTensorBytes: a 20-byte feed must not cost terabytes.
TEST(TensorCodingTest, ExpandingTensorsAreBoundedBeforeAllocating) {
  auto feed = [](tensorflow::DataType dtype, int64_t elements, bool one_value) {
    tensorflow::RunStepRequest request;
    tensorflow::TensorProto* t = request.add_feed()->mutable_tensor();
    t->set_dtype(dtype);
    t->mutable_tensor_shape()->add_dim()->set_size(elements);
    if (one_value && dtype == DT_FLOAT) t->add_float_val(1.0f);
    tensorflow::RunStepRequest rest;
    NamedTensors tensors;
    absl::Status s = DecodeWithNamedTensors(
        ToByteBuffer(request.SerializeAsString()), kRunStepRequestFeedField,
        cpu_allocator(), &rest, &tensors);
    return std::make_pair(s, tensors);
  };
  const absl::Status huge = feed(DT_FLOAT, int64_t{1} << 40, true).first;
  EXPECT_EQ(huge.code(), absl::StatusCode::kResourceExhausted) << huge;
  EXPECT_NE(huge.message().find("send its values"), std::string::npos) << huge;
  // Strings are objects: 2^24 empty strings would be 512 MiB of them.
  EXPECT_EQ(feed(DT_STRING, int64_t{1} << 24, false).first.code(),
            absl::StatusCode::kResourceExhausted);
  // Below the bound, TensorFlow's rule: the value repeats.
  auto [small, filled] = feed(DT_FLOAT, int64_t{1} << 20, true);
  ASSERT_TRUE(small.ok()) << small;
  ASSERT_EQ(filled.size(), 1u);
  EXPECT_EQ(filled[0].second.NumElements(), int64_t{1} << 20);
  EXPECT_EQ(filled[0].second.flat<float>()((1 << 20) - 1), 1.0f);
}

// --max-graph-nodes is checked on the wire, before a request is parsed.
TEST(TensorCodingTest, CountsGraphNodesWithoutParsing) {
  tensorflow::CreateSessionRequest create;
  for (int i = 0; i < 5; ++i) {
    create.mutable_graph_def()->add_node()->set_name(absl::StrCat("n", i));
  }
  tensorflow::FunctionDef* f =
      create.mutable_graph_def()->mutable_library()->add_function();
  f->add_node_def()->set_name("a");
  f->add_node_def()->set_name("b");
  create.mutable_config()->set_operation_timeout_in_ms(5);
  std::string bytes = create.SerializeAsString();
  absl::StatusOr<int64_t> nodes = CountGraphNodesOnWire(ToByteBuffer(bytes), 1);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ(*nodes, 7);
  // A repeated graph_def field merges, as protobuf merges it.
  EXPECT_EQ(*CountGraphNodesOnWire(ToByteBuffer(bytes + bytes), 1), 14);
  // Another field number: ExtendSessionRequest's graph_def is 2.
  tensorflow::ExtendSessionRequest extend;
  *extend.mutable_graph_def() = create.graph_def();
  extend.set_session_handle("s");
  EXPECT_EQ(*CountGraphNodesOnWire(ToByteBuffer(extend.SerializeAsString()), 2),
            7);
  EXPECT_EQ(*CountGraphNodesOnWire(ToByteBuffer(""), 1), 0);
  // Truncated bytes are malformed, not a count.
  EXPECT_EQ(CountGraphNodesOnWire(ToByteBuffer(bytes.substr(0, 9)), 1)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// Found by tests/fuzz:tensor_coding_fuzzer: protobuf refuses a string
// field that is not UTF-8, and so must the decoder (it accepted it).
TEST(TensorCodingTest, TensorNamesMustBeUtf8LikeProtobufWants) {
  tensorflow::RunStepRequest request;
  tensorflow::NamedTensorProto* feed = request.add_feed();
  feed->mutable_tensor()->set_dtype(DT_FLOAT);
  feed->mutable_tensor()->add_float_val(1.0f);
  feed->set_name(
      "x5\x82"
      "0");
  std::string bytes;
  // SerializeToString would check the UTF-8 itself in debug builds: the
  // bytes are what a hostile peer sends, so write them as a bytes field.
  request.SerializePartialToString(&bytes);
  tensorflow::RunStepRequest parsed;
  ASSERT_FALSE(parsed.ParseFromString(bytes));
  tensorflow::RunStepRequest rest;
  NamedTensors tensors;
  const absl::Status s =
      DecodeWithNamedTensors(ToByteBuffer(bytes), kRunStepRequestFeedField,
                             cpu_allocator(), &rest, &tensors);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s;
}

TEST(TensorCodingTest, DeadTensorWithoutValue) {
  tensorflow::RecvTensorResponse proto;
  proto.set_is_dead(true);
  TensorResponse out;
  ASSERT_TRUE(DecodeRecvTensorResponse(ToByteBuffer(proto.SerializeAsString()),
                                       cpu_allocator(), &out)
                  .ok());
  EXPECT_TRUE(out.is_dead);
  EXPECT_EQ(out.tensor.NumElements(), 0);

  // A live tensor must carry a value.
  proto.set_is_dead(false);
  proto.set_send_start_micros(1);
  absl::Status s = DecodeRecvTensorResponse(
      ToByteBuffer(proto.SerializeAsString()), cpu_allocator(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

// Variants have no wire encoding: sending one writes only dtype and shape,
// and the receiver answers UNIMPLEMENTED naming the tensor; nothing crashes.
TEST(TensorCodingTest, VariantTensorsAreUnimplementedOnTheWire) {
  Tensor list_handle(DT_VARIANT, TensorShape({}));
  ASSERT_TRUE(list_handle.IsInitialized());
  NamedTensors tensors = {{"list_handle", list_handle}};
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(tensorflow::RunGraphResponse(), 1, tensors, &buffer);
  tensorflow::RunGraphResponse rest;
  NamedTensors decoded;
  absl::Status s =
      DecodeWithNamedTensors(buffer, 1, cpu_allocator(), &rest, &decoded);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("list_handle"), std::string::npos) << s;
  EXPECT_NE(s.message().find("variant"), std::string::npos) << s;

  grpc::ByteBuffer recv;
  EncodeRecvTensorResponse(list_handle, false, 1, &recv);
  TensorResponse out;
  s = DecodeRecvTensorResponse(recv, cpu_allocator(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
}

TEST(TensorCodingTest, EncodingIsZeroCopyAndHoldsTheBuffer) {
  Tensor t = RandomTensor(DT_FLOAT, TensorShape({1 << 16}));
  ASSERT_TRUE(t.RefCountIsOne());
  {
    grpc::ByteBuffer buffer;
    EncodeRecvTensorResponse(t, false, 0, &buffer);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(buffer.Dump(&slices).ok());
    bool found = false;
    for (const grpc::Slice& s : slices) {
      if (s.begin() == static_cast<const uint8_t*>(t.data())) {
        EXPECT_EQ(s.size(), t.tensor_data().size());
        found = true;
      }
    }
    EXPECT_TRUE(found) << "no slice points at the tensor's buffer";
    // The buffer is referenced while gRPC may still send it...
    EXPECT_FALSE(t.RefCountIsOne());
  }
  // ...and released with the last slice.
  EXPECT_TRUE(t.RefCountIsOne());
}

TEST(TensorCodingTest, DecodesIntoTheGivenAllocatorWithOneBuffer) {
  std::unique_ptr<Allocator> allocator = NewCPUAllocator();
  const Tensor t = RandomTensor(DT_INT64, TensorShape({1000, 100}));
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(t, false, 0, &buffer);
  const grpc::ByteBuffer received = ToByteBuffer(Flatten(buffer), 4096);
  allocator->ClearStats();
  TensorResponse out;
  ASSERT_TRUE(DecodeRecvTensorResponse(received, allocator.get(), &out).ok());
  ExpectSameTensor(out.tensor, t);
  const AllocatorStats stats = allocator->GetStats();
  EXPECT_EQ(stats.num_allocs, 1);
  EXPECT_EQ(stats.bytes_in_use, 800000);
}

TEST(TensorCodingTest, BigTensorRoundTrips) {
  // 64 MiB, received in 16 KiB slices (HTTP/2 frame-sized).
  const Tensor t = RandomTensor(DT_FLOAT, TensorShape({16, 1024, 1024}));
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(t, false, 7, &buffer);
  const std::string bytes = Flatten(buffer);
  TensorResponse out;
  ASSERT_TRUE(DecodeRecvTensorResponse(ToByteBuffer(bytes, 16384),
                                       cpu_allocator(), &out)
                  .ok());
  ExpectSameTensor(out.tensor, t);
  tensorflow::RecvTensorResponse proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  EXPECT_EQ(proto.tensor().tensor_content().size(), 64u << 20);
}

TEST(TensorCodingTest, BoolBytesAreNormalised) {
  tensorflow::RecvTensorResponse proto;
  proto.mutable_tensor()->set_dtype(DT_BOOL);
  proto.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(3);
  proto.mutable_tensor()->set_tensor_content(std::string("\x00\x07\x01", 3));
  TensorResponse out;
  ASSERT_TRUE(DecodeRecvTensorResponse(ToByteBuffer(proto.SerializeAsString()),
                                       cpu_allocator(), &out)
                  .ok());
  test::ExpectTensorEqual<bool>(out.tensor,
                                test::AsTensor<bool>({false, true, true}));
}

TEST(TensorCodingTest, RepeatedFieldsMergeLikeProtobuf) {
  // Field order and repeats are free in protobuf: content before dtype and
  // shape, a TensorProto split over two occurrences of the field.
  const Tensor t = RandomTensor(DT_FLOAT, TensorShape({2, 400}));
  tensorflow::TensorProto full;
  t.AsProtoTensorContent(&full);
  tensorflow::TensorProto content_only;
  content_only.set_tensor_content(full.tensor_content());
  tensorflow::TensorProto header_only = full;
  header_only.clear_tensor_content();

  // Within one TensorProto: content first.
  std::string inner = content_only.SerializeAsString() +
                      header_only.SerializeAsString();
  std::string bytes;
  bytes.push_back(0x0a);  // field 1, length-delimited
  std::string len;
  {
    uint64_t n = inner.size();
    while (n >= 0x80) {
      len.push_back(static_cast<char>(n | 0x80));
      n >>= 7;
    }
    len.push_back(static_cast<char>(n));
  }
  bytes += len + inner;
  TensorResponse out;
  ASSERT_TRUE(
      DecodeRecvTensorResponse(ToByteBuffer(bytes, 7), cpu_allocator(), &out)
          .ok());
  ExpectSameTensor(out.tensor, t);

  // Two occurrences of RecvTensorResponse.tensor.
  tensorflow::RecvTensorResponse a;
  *a.mutable_tensor() = header_only;
  tensorflow::RecvTensorResponse b;
  *b.mutable_tensor() = content_only;
  ASSERT_TRUE(DecodeRecvTensorResponse(
                  ToByteBuffer(a.SerializeAsString() + b.SerializeAsString()),
                  cpu_allocator(), &out)
                  .ok());
  ExpectSameTensor(out.tensor, t);
}

// --- Messages with named tensors ------------------------------------------

NamedTensors SomeNamedTensors() {
  return {{"feed_a", RandomTensor(DT_FLOAT, TensorShape({3, 400}), 1)},
          {"", RandomTensor(DT_INT32, TensorShape({}), 2)},
          {"strings", RandomTensor(DT_STRING, TensorShape({3}), 3)},
          {"empty", RandomTensor(DT_DOUBLE, TensorShape({0, 2}), 4)},
          {"bools", RandomTensor(DT_BOOL, TensorShape({2000}), 5)}};
}

void ExpectSameNamedTensors(const NamedTensors& actual,
                            const NamedTensors& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].first, expected[i].first);
    ExpectSameTensor(actual[i].second, expected[i].second);
  }
}

// Encodes `rest` + `tensors` as field `field`, checks that generated code
// reads the same message, and that it decodes back.
template <typename Message>
void CheckNamedTensorMessage(const Message& rest, int field,
                             const NamedTensors& tensors,
                             const google::protobuf::RepeatedPtrField<
                                 tensorflow::NamedTensorProto>& (
                                     Message::*list)() const) {
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(rest, field, tensors, &buffer);
  const std::string bytes = Flatten(buffer);

  Message parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  const auto& named = (parsed.*list)();
  ASSERT_EQ(named.size(), static_cast<int>(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(named[i].name(), tensors[i].first);
    absl::StatusOr<Tensor> t = Tensor::FromProto(named[i].tensor());
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectSameTensor(*t, tensors[i].second);
  }
  Message expected_rest = rest;
  Message parsed_rest = parsed;
  // Compare everything else.
  const google::protobuf::FieldDescriptor* fd =
      Message::descriptor()->FindFieldByNumber(field);
  parsed_rest.GetReflection()->ClearField(&parsed_rest, fd);
  EXPECT_EQ(parsed_rest.SerializeAsString(), expected_rest.SerializeAsString());

  for (size_t chunk : {0, 1, 9, 1000}) {
    Message decoded_rest;
    NamedTensors decoded;
    absl::Status s = DecodeWithNamedTensors(ToByteBuffer(bytes, chunk), field,
                                            cpu_allocator(), &decoded_rest,
                                            &decoded);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(decoded_rest.SerializeAsString(),
              expected_rest.SerializeAsString());
    ExpectSameNamedTensors(decoded, tensors);
  }
}

TEST(TensorCodingTest, RunGraphRequest) {
  tensorflow::RunGraphRequest rest;
  rest.set_session_handle("sess");
  rest.set_graph_handle("g1");
  rest.set_step_id(0x123456789abcll);
  rest.add_recv_key("fetch:0");
  rest.add_recv_key("fetch:1");
  rest.mutable_exec_opts()->set_record_timeline(true);
  rest.set_store_errors_in_response_body(true);
  rest.set_request_id(-3);
  CheckNamedTensorMessage(rest, 3, SomeNamedTensors(),
                          &tensorflow::RunGraphRequest::send);
}

TEST(TensorCodingTest, RunGraphResponse) {
  tensorflow::RunGraphResponse rest;
  rest.mutable_step_stats()->add_dev_stats()->set_device("/device:CPU:0");
  rest.add_partition_graph()->add_node()->set_name("n");
  rest.set_status_error_message("fine");
  CheckNamedTensorMessage(rest, 1, SomeNamedTensors(),
                          &tensorflow::RunGraphResponse::recv);
  // No tensors at all.
  CheckNamedTensorMessage(rest, 1, {}, &tensorflow::RunGraphResponse::recv);
}

TEST(TensorCodingTest, RunStepRequestAndResponse) {
  tensorflow::RunStepRequest request;
  request.set_session_handle("s");
  request.add_fetch("y:0");
  request.add_target("train");
  request.mutable_options()->set_timeout_in_ms(5000);
  CheckNamedTensorMessage(request, 2, SomeNamedTensors(),
                          &tensorflow::RunStepRequest::feed);
  tensorflow::RunStepResponse response;
  response.mutable_metadata()->mutable_step_stats();
  CheckNamedTensorMessage(response, 1, SomeNamedTensors(),
                          &tensorflow::RunStepResponse::tensor);
}

TEST(TensorCodingTest, GeneratedRunGraphResponseWithTypedFieldsDecodes) {
  // As TensorFlow's own worker or Python client would write it.
  tensorflow::RunGraphResponse proto;
  const NamedTensors tensors = SomeNamedTensors();
  for (size_t i = 0; i < tensors.size(); ++i) {
    tensorflow::NamedTensorProto* n = proto.add_recv();
    n->set_name(tensors[i].first);
    if (i % 2 == 0) {
      tensors[i].second.AsProtoField(n->mutable_tensor());
    } else {
      tensors[i].second.AsProtoTensorContent(n->mutable_tensor());
    }
  }
  proto.set_status_error_message("x");
  tensorflow::RunGraphResponse rest;
  NamedTensors decoded;
  ASSERT_TRUE(DecodeWithNamedTensors(ToByteBuffer(proto.SerializeAsString(), 3),
                                     1, cpu_allocator(), &rest, &decoded)
                  .ok());
  ExpectSameNamedTensors(decoded, tensors);
  EXPECT_EQ(rest.status_error_message(), "x");
  EXPECT_EQ(rest.recv_size(), 0);
}

TEST(TensorCodingTest, ManyNamedTensorsKeepTheirOrder) {
  NamedTensors tensors;
  for (int i = 0; i < 200; ++i) {
    tensors.emplace_back("t" + std::to_string(i),
                         RandomTensor(DT_FLOAT, TensorShape({i * 10}), i));
  }
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(tensorflow::RunGraphResponse(), 1, tensors, &buffer);
  tensorflow::RunGraphResponse rest;
  NamedTensors decoded;
  ASSERT_TRUE(
      DecodeWithNamedTensors(buffer, 1, cpu_allocator(), &rest, &decoded).ok());
  ExpectSameNamedTensors(decoded, tensors);
}

TEST(TensorCodingTest, BigNamedTensors) {
  NamedTensors tensors = {
      {"a", RandomTensor(DT_FLOAT, TensorShape({16 << 20}), 1)},
      {"b", RandomTensor(DT_UINT8, TensorShape({3, 1000, 1000}), 2)},
      // Above the parallel-copy size, split in parts of odd length.
      {"c", RandomTensor(DT_UINT8, TensorShape({9000001}), 3)},
      {"d", RandomTensor(DT_INT16, TensorShape({4194305}), 4)}};
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(tensorflow::RunGraphRequest(), 3, tensors, &buffer);
  tensorflow::RunGraphRequest rest;
  NamedTensors decoded;
  ASSERT_TRUE(DecodeWithNamedTensors(ToByteBuffer(Flatten(buffer), 65536), 3,
                                     cpu_allocator(), &rest, &decoded)
                  .ok());
  ExpectSameNamedTensors(decoded, tensors);
}

// --- Plain messages --------------------------------------------------------

TEST(TensorCodingTest, PlainMessagesRoundTrip) {
  tensorflow::RecvTensorRequest request;
  request.set_step_id(42);
  request.set_rendezvous_key(std::string(100000, 'k'));
  grpc::ByteBuffer buffer;
  SerializeToByteBuffer(request, &buffer);
  EXPECT_EQ(Flatten(buffer), request.SerializeAsString());
  for (size_t chunk : {0, 1, 1000}) {
    tensorflow::RecvTensorRequest parsed;
    parsed.set_dma_ok(true);  // cleared by the parse
    ASSERT_TRUE(
        ParseFromByteBuffer(ToByteBuffer(Flatten(buffer), chunk), &parsed).ok());
    EXPECT_EQ(parsed.SerializeAsString(), request.SerializeAsString());
  }
  tensorflow::GetStatusRequest empty;
  SerializeToByteBuffer(empty, &buffer);
  EXPECT_TRUE(ParseFromByteBuffer(buffer, &empty).ok());
  EXPECT_TRUE(ParseFromByteBuffer(grpc::ByteBuffer(), &empty).ok());

  EXPECT_EQ(ParseFromByteBuffer(ToByteBuffer("\xff\xff\xff"), &request).code(),
            absl::StatusCode::kInvalidArgument);
}

// --- Malformed input -------------------------------------------------------

// Every decoder on `bytes`: OK or InvalidArgument, never a crash.
void DecodeAll(const std::string& bytes, size_t chunk) {
  const grpc::ByteBuffer buffer = ToByteBuffer(bytes, chunk);
  TensorResponse response;
  // ResourceExhausted: a corrupted shape may ask for more memory than
  // there is (typed fields may legitimately fill a big tensor).
  auto acceptable = [](const absl::Status& s) {
    return s.ok() || s.code() == absl::StatusCode::kInvalidArgument ||
           s.code() == absl::StatusCode::kResourceExhausted;
  };
  absl::Status s = DecodeRecvTensorResponse(buffer, cpu_allocator(), &response);
  EXPECT_TRUE(acceptable(s)) << s;
  for (int field : {1, 3}) {
    tensorflow::RunGraphRequest rest;
    NamedTensors tensors;
    s = DecodeWithNamedTensors(buffer, field, cpu_allocator(), &rest, &tensors);
    EXPECT_TRUE(acceptable(s)) << s;
  }
}

TEST(TensorCodingTest, TruncatedInputNeverCrashes) {
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(tensorflow::RunGraphRequest(), 3,
                         {{"a", RandomTensor(DT_FLOAT, TensorShape({2, 3}))},
                          {"b", RandomTensor(DT_STRING, TensorShape({2}))}},
                         &buffer);
  const std::string named = Flatten(buffer);
  EncodeRecvTensorResponse(RandomTensor(DT_INT16, TensorShape({600})), true, 9,
                           &buffer);
  const std::string recv = Flatten(buffer);
  for (const std::string& bytes : {named, recv}) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      DecodeAll(bytes.substr(0, n), 0);
      DecodeAll(bytes.substr(0, n), 3);
    }
  }
  // A truncated RecvTensorResponse is an error when the cut is inside the
  // tensor.
  TensorResponse out;
  absl::Status s = DecodeRecvTensorResponse(
      ToByteBuffer(recv.substr(0, recv.size() / 2)), cpu_allocator(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Malformed RecvTensorResponse"),
            std::string::npos)
      << s;
}

TEST(TensorCodingTest, CorruptedInputNeverCrashes) {
  grpc::ByteBuffer buffer;
  EncodeWithNamedTensors(tensorflow::RunGraphResponse(), 1, SomeNamedTensors(),
                         &buffer);
  const std::string original = Flatten(buffer);
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = original;
    const int flips = 1 + rng() % 4;
    for (int f = 0; f < flips; ++f) {
      // Mostly in the headers, where corruption changes the structure.
      const size_t at = rng() % std::min<size_t>(bytes.size(), 200);
      bytes[at] = static_cast<char>(rng());
    }
    DecodeAll(bytes, 1 + rng() % 64);
  }
}

TEST(TensorCodingTest, InconsistentTensorsAreInvalidArgument) {
  auto decode = [](const tensorflow::TensorProto& tensor) {
    tensorflow::RecvTensorResponse proto;
    *proto.mutable_tensor() = tensor;
    TensorResponse out;
    return DecodeRecvTensorResponse(ToByteBuffer(proto.SerializeAsString()),
                                    cpu_allocator(), &out);
  };
  tensorflow::TensorProto t;
  t.set_dtype(DT_FLOAT);
  t.mutable_tensor_shape()->add_dim()->set_size(4);
  t.set_tensor_content(std::string(15, 'x'));  // 4 floats need 16 bytes
  absl::Status s = decode(t);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("15 bytes of tensor_content"), std::string::npos)
      << s;

  t.mutable_tensor_shape()->mutable_dim(0)->set_size(-1);
  t.set_tensor_content(std::string(16, 'x'));
  EXPECT_EQ(decode(t).code(), absl::StatusCode::kInvalidArgument);

  // A shape whose size overflows.
  t.mutable_tensor_shape()->mutable_dim(0)->set_size(1ll << 62);
  t.mutable_tensor_shape()->add_dim()->set_size(1ll << 62);
  EXPECT_EQ(decode(t).code(), absl::StatusCode::kInvalidArgument);

  t.mutable_tensor_shape()->Clear();
  t.set_dtype(static_cast<tensorflow::DataType>(1000));
  EXPECT_EQ(decode(t).code(), absl::StatusCode::kInvalidArgument);
  t.set_dtype(DT_FLOAT_REF);
  EXPECT_EQ(decode(t).code(), absl::StatusCode::kInvalidArgument);

  // A length far beyond the input.
  std::string bytes = "\x0a\xff\xff\xff\xff\x0f";
  TensorResponse out;
  EXPECT_EQ(
      DecodeRecvTensorResponse(ToByteBuffer(bytes), cpu_allocator(), &out)
          .code(),
      absl::StatusCode::kInvalidArgument);

  // Named tensor without a tensor.
  tensorflow::RunGraphRequest request;
  request.add_send()->set_name("lonely");
  tensorflow::RunGraphRequest rest;
  NamedTensors tensors;
  s = DecodeWithNamedTensors(ToByteBuffer(request.SerializeAsString()), 3,
                             cpu_allocator(), &rest, &tensors);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lonely"), std::string::npos) << s;
}

}  // namespace
}  // namespace tributary
