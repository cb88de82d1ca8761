// Tests of frame encoding, the incremental FrameReader, tensor descriptors and output leaves.
#include "kbx/sandbox/protocol.h"
#include "support/test_support.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace kbx::sandbox {
namespace {

using Bytes = std::vector<std::uint8_t>;


Frame frame_with(const Json& header, const Bytes& payload = {}) {
  Frame f;
  f.header = header;
  f.payload = payload;
  return f;
}

// The raw bytes of a frame with a header given as text and declared lengths.
Bytes raw_frame(const std::string& header, std::uint64_t payload_len, const Bytes& payload = {},
                std::uint64_t header_len = std::numeric_limits<std::uint64_t>::max()) {
  if (header_len == std::numeric_limits<std::uint64_t>::max()) {
    header_len = header.size();
  }
  Bytes out;
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<std::uint8_t>(header_len >> (8 * i)));
  }
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<std::uint8_t>(payload_len >> (8 * i)));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

void feed(FrameReader& reader, const Bytes& bytes) { reader.feed(bytes.data(), bytes.size()); }

// The next frame of `reader`; fails the test if there is none or it is an error.
Frame next_ok(FrameReader& reader) {
  auto next = reader.next();
  if (!next) {
    ADD_FAILURE() << "no complete frame";
    return {};
  }
  if (!next->ok()) {
    ADD_FAILURE() << "frame error: " << next->error().what();
    return {};
  }
  return std::move(*next).value();
}

// The error text of the next frame of `reader`; fails the test unless it is an error.
std::string next_error(FrameReader& reader) {
  auto next = reader.next();
  if (!next || next->ok()) {
    ADD_FAILURE() << "expected a frame error";
    return {};
  }
  EXPECT_EQ(next->error().kind(), ErrorKind::protocol);
  return next->error().what();
}

Bytes float32_bytes(const std::vector<float>& values) {
  Bytes out(values.size() * sizeof(float));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Json tensor_desc(const std::string& dtype, const Json& shape, std::uint64_t offset,
                 std::uint64_t nbytes) {
  return Json{{"dtype", dtype},
              {"shape", shape},
              {"device", "cuda"},
              {"offset", offset},
              {"nbytes", nbytes}};
}

// --- framing ------------------------------------------------------------------------------------

TEST(EncodeFrame, WritesLittleEndianLengthsThenHeaderThenPayload) {
  Bytes bytes = encode_frame(frame_with(Json{{"op", "x"}}, {9, 8, 7}));
  std::string header = R"({"op":"x"})";
  EXPECT_EQ(bytes, raw_frame(header, 3, {9, 8, 7}));
  EXPECT_EQ(bytes[0], header.size());
  EXPECT_EQ(bytes[4], 3);
}

TEST(EncodeFrame, TheHeadThenThePayloadIsTheWholeFrame) {
  Frame frame = frame_with(Json{{"op", "x"}}, {9, 8, 7, 6});
  std::string head = encode_frame_head(frame, frame.payload.size());
  EXPECT_EQ(Bytes(head.begin(), head.end()), raw_frame(R"({"op":"x"})", 4));  // lengths, header
  Bytes joined(head.begin(), head.end());
  joined.insert(joined.end(), frame.payload.begin(), frame.payload.end());
  EXPECT_EQ(joined, encode_frame(frame));
}

TEST(FrameReader, AnAnnouncedLengthReservesAtMostTheCapAheadOfTheBytes) {
  // A worker may announce a frame near the 4 GiB limit and send nothing after its prefix.
  Bytes prefix = raw_frame(R"({"op":"x"})", (std::uint64_t{4} << 30) - 64, {});
  prefix.resize(12);
  FrameReader reader;
  feed(reader, prefix);
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_LE(reader.reserved(), reserve_ahead_bytes);
  // A frame under the cap gets its whole length at once.
  Bytes small = encode_frame(frame_with(Json{{"op", "y"}}, Bytes(3'000'000, 7)));
  FrameReader second;
  feed(second, Bytes(small.begin(), small.begin() + 12));
  EXPECT_GE(second.reserved(), small.size());
}

TEST(FrameReader, RoundTripsAFrameWithAPayload) {
  Bytes payload{0, 1, 2, 255};
  Json header{{"op", "cases"}, {"results", {1, 2}}, {"text", "é"}};
  FrameReader reader;
  feed(reader, encode_frame(frame_with(header, payload)));
  Frame f = next_ok(reader);
  EXPECT_EQ(f.header, header);
  EXPECT_EQ(f.op(), "cases");
  EXPECT_EQ(f.payload, payload);
  EXPECT_FALSE(reader.next().has_value());
}

TEST(FrameReader, WaitsForEveryByteWhenFedOneAtATime) {
  Bytes bytes = encode_frame(frame_with(Json{{"op", "ready"}, {"pid", 42}}, {1, 2, 3}));
  FrameReader reader;
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    reader.feed(&bytes[i], 1);
    ASSERT_FALSE(reader.next().has_value()) << "frame complete after " << i + 1 << " bytes";
  }
  reader.feed(&bytes.back(), 1);
  Frame f = next_ok(reader);
  EXPECT_EQ(f.header["pid"], 42);
  EXPECT_EQ(f.payload, (Bytes{1, 2, 3}));
}

TEST(FrameReader, JoinsAFrameSplitAcrossFeedsInsideTheHeaderAndThePayload) {
  Bytes bytes = encode_frame(frame_with(Json{{"op", "a"}}, Bytes(100, 7)));
  FrameReader reader;
  reader.feed(bytes.data(), 15);  // inside the header
  EXPECT_FALSE(reader.next().has_value());
  reader.feed(bytes.data() + 15, 40);  // inside the payload
  EXPECT_FALSE(reader.next().has_value());
  reader.feed(bytes.data() + 55, bytes.size() - 55);
  EXPECT_EQ(next_ok(reader).payload, Bytes(100, 7));
}

TEST(FrameReader, YieldsTwoFramesFedTogetherInOrder) {
  Bytes bytes = encode_frame(frame_with(Json{{"op", "first"}}, {1}));
  Bytes second = encode_frame(frame_with(Json{{"op", "second"}}));
  bytes.insert(bytes.end(), second.begin(), second.end());
  Bytes third = encode_frame(frame_with(Json{{"op", "third"}}, {3, 3}));
  bytes.insert(bytes.end(), third.begin(), third.begin() + 5);  // and the start of a third
  FrameReader reader;
  feed(reader, bytes);
  EXPECT_EQ(next_ok(reader).op(), "first");
  Frame f = next_ok(reader);
  EXPECT_EQ(f.op(), "second");
  EXPECT_TRUE(f.payload.empty());
  EXPECT_FALSE(reader.next().has_value());
  reader.feed(third.data() + 5, third.size() - 5);
  EXPECT_EQ(next_ok(reader).payload, (Bytes{3, 3}));
}

TEST(FrameReader, KeepsWorkingAcrossManyLargeFrames) {
  FrameReader reader;
  for (int i = 0; i < 6; ++i) {
    feed(reader, encode_frame(frame_with(Json{{"op", "chunk"}, {"i", i}}, Bytes(700'000, i))));
    Frame f = next_ok(reader);
    ASSERT_EQ(f.header["i"], i);
    ASSERT_EQ(f.payload.size(), 700'000U);
    ASSERT_EQ(f.payload.back(), i);
  }
}

TEST(FrameReader, YieldsLargeFramesFedTogetherAcrossBufferCompaction) {
  Bytes bytes;
  for (int i = 0; i < 4; ++i) {
    Bytes one = encode_frame(frame_with(Json{{"op", "chunk"}, {"i", i}}, Bytes(700'000, i)));
    bytes.insert(bytes.end(), one.begin(), one.end());
  }
  FrameReader reader;
  feed(reader, bytes);
  for (int i = 0; i < 4; ++i) {
    Frame f = next_ok(reader);
    ASSERT_EQ(f.header["i"], i);
    ASSERT_EQ(f.payload, Bytes(700'000, i));
  }
  EXPECT_FALSE(reader.next().has_value());
}

TEST(FrameReader, HeaderThatIsNotJsonIsAnError) {
  FrameReader reader;
  feed(reader, raw_frame("{op: x}", 0));
  EXPECT_CONTAINS(next_error(reader), "not JSON");
}

TEST(FrameReader, HeaderThatIsNotAnObjectIsAnError) {
  FrameReader reader;
  feed(reader, raw_frame("[1, 2]", 0));
  EXPECT_CONTAINS(next_error(reader), "not an object with an 'op'");
}

TEST(FrameReader, HeaderWithoutAnOpIsAnError) {
  FrameReader reader;
  feed(reader, raw_frame(R"({"pid": 1})", 0));
  EXPECT_CONTAINS(next_error(reader), "not an object with an 'op'");
}

TEST(FrameReader, HeaderWhoseOpIsNotAStringIsAnError) {
  FrameReader reader;
  feed(reader, raw_frame(R"({"op": 7})", 0));
  EXPECT_CONTAINS(next_error(reader), "'op'");
}

TEST(FrameReader, NanInAHeaderIsNotJson) {
  FrameReader reader;
  feed(reader, raw_frame(R"({"op": "x", "v": NaN})", 0));
  EXPECT_CONTAINS(next_error(reader), "not JSON");
}

// Found by fuzz/worker_reply_fuzz.cpp: nlohmann throws out_of_range, not parse_error, for a
// number beyond double's range, and the uncaught exception ended kbx.
TEST(FrameReader, NumberBeyondDoubleRangeInAHeaderIsAnErrorNotACrash) {
  FrameReader reader;
  feed(reader, raw_frame(R"({"op": "cases", "results": [{"index": -1e400}]})", 0));
  EXPECT_CONTAINS(next_error(reader), "not JSON");
}

// A hostile worker's deeply nested header (a deep value followed by another key) made ordered_json
// copy the value recursively and kbx died of a stack overflow.
TEST(FrameReader, HeaderNestedDeeperThanTheJsonLimitIsAnError) {
  FrameReader reader;
  std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  feed(reader, raw_frame(R"({"op": "cases", "results": )" + deep + R"(, "x": 1})", 0));
  EXPECT_CONTAINS(next_error(reader), "nested deeper than 128 levels");
}

TEST(FrameReader, FrameOverFourGibIsAnErrorBeforeItsBytesArrive) {
  FrameReader reader;
  feed(reader, raw_frame(R"({"op": "x"})", max_frame_bytes));  // header + payload > 4 GiB
  EXPECT_CONTAINS(next_error(reader), "exceeds the 4 GiB limit");
}

TEST(FrameReader, PayloadLengthThatWrapsAroundIsAnError) {
  // header_len + payload_len overflows 64 bits to a small number.
  std::string header = R"({"op": "x"})";
  FrameReader reader;
  feed(reader, raw_frame(header, std::numeric_limits<std::uint64_t>::max() - header.size() + 2,
                         Bytes(16, 0)));
  EXPECT_CONTAINS(next_error(reader), "exceeds the 4 GiB limit");
}

TEST(FrameReader, AnErrorIsRepeatedBecauseTheStreamIsUnusable) {
  FrameReader reader;
  feed(reader, raw_frame("nope", 0));
  next_error(reader);
  feed(reader, encode_frame(frame_with(Json{{"op", "x"}})));
  next_error(reader);
}

// --- tensors ------------------------------------------------------------------------------------

TEST(DecodeTensor, ReadsItsBytesFromThePayloadAtItsOffset) {
  Bytes payload{0xAA, 0xBB};
  Bytes data = float32_bytes({1.5F, -2.0F, 0.25F, 4.0F, 5.0F, 6.0F});
  payload.insert(payload.end(), data.begin(), data.end());
  auto t = decode_tensor(tensor_desc("float32", {2, 3}, 2, 24), payload);
  ASSERT_TRUE(t.ok()) << t.error().what();
  EXPECT_EQ(t->dtype, DType::float32);
  EXPECT_EQ(t->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(t->device, "cuda");
  EXPECT_EQ(t->data, data);
  EXPECT_EQ(t->real_at(1), -2.0);
}

TEST(DecodeTensor, AcceptsScalarsAndEmptyTensors) {
  auto scalar = decode_tensor(tensor_desc("int64", Json::array(), 0, 8), Bytes(8, 0));
  ASSERT_TRUE(scalar.ok()) << scalar.error().what();
  EXPECT_EQ(scalar->numel(), 1);
  auto empty = decode_tensor(tensor_desc("float16", {0, 4}, 0, 0), Bytes{});
  ASSERT_TRUE(empty.ok()) << empty.error().what();
  EXPECT_TRUE(empty->data.empty());
}

TEST(DecodeTensor, ReadsRequiresGradAsABooleanAndDefaultsToFalse) {
  Bytes payload = float32_bytes({1.0F});
  auto plain = decode_tensor(tensor_desc("float32", {1}, 0, 4), payload);
  ASSERT_TRUE(plain.ok()) << plain.error().what();
  EXPECT_FALSE(plain->requires_grad);
  Json desc = tensor_desc("float32", {1}, 0, 4);
  desc["requires_grad"] = true;
  auto tracked = decode_tensor(desc, payload);
  ASSERT_TRUE(tracked.ok()) << tracked.error().what();
  EXPECT_TRUE(tracked->requires_grad);
  desc["requires_grad"] = 1;  // not a boolean: the worker is not trusted to mean true
  auto bad = decode_tensor(desc, payload);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::protocol);
  EXPECT_CONTAINS(bad.error().what(), "requires_grad must be true or false");
}

TEST(DecodeTensor, BytesBeyondThePayloadAreAnError) {
  auto t = decode_tensor(tensor_desc("float32", {2}, 4, 8), Bytes(11, 0));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind(), ErrorKind::protocol);
  EXPECT_CONTAINS(t.error().what(), "does not fit its payload of 11 bytes");
}

TEST(DecodeTensor, OffsetThatWrapsAroundIsAnError) {
  auto t = decode_tensor(tensor_desc("uint8", {1}, std::numeric_limits<std::uint64_t>::max(), 1),
                         Bytes(8, 0));
  EXPECT_FALSE(t.ok());
  auto negative = decode_tensor(
      Json{{"dtype", "uint8"}, {"shape", {1}}, {"offset", -1}, {"nbytes", 1}}, Bytes(8, 0));
  EXPECT_FALSE(negative.ok());
}

TEST(DecodeTensor, NbytesThatDisagreesWithShapeAndDtypeIsAnError) {
  auto t = decode_tensor(tensor_desc("float32", {2, 3}, 0, 12), Bytes(24, 0));
  ASSERT_FALSE(t.ok());
  EXPECT_CONTAINS(t.error().what(), "does not fit");
  EXPECT_FALSE(decode_tensor(tensor_desc("complex64", {3}, 0, 12), Bytes(24, 0)).ok());
}

TEST(DecodeTensor, ShapeWhoseElementCountOverflowsIsAnError) {
  // 2^32 * 2^32 elements wrap to 0, which would match nbytes 0.
  auto t = decode_tensor(tensor_desc("uint8", {std::int64_t{1} << 32, std::int64_t{1} << 32}, 0, 0),
                         Bytes{});
  EXPECT_FALSE(t.ok());
}

TEST(DecodeTensor, NegativeDimensionIsAnError) {
  auto t = decode_tensor(tensor_desc("float32", {-1, 2}, 0, 0), Bytes(8, 0));
  ASSERT_FALSE(t.ok());
  EXPECT_CONTAINS(t.error().what(), "negative dimension");
}

TEST(DecodeTensor, UnknownDtypeIsAnError) {
  auto t = decode_tensor(tensor_desc("float8_e4m3fn", {1}, 0, 1), Bytes(1, 0));
  ASSERT_FALSE(t.ok());
  EXPECT_CONTAINS(t.error().what(), "unknown dtype \"float8_e4m3fn\"");
}

TEST(DecodeTensor, MissingOrIllTypedFieldsAreErrors) {
  Json desc = tensor_desc("float32", {1}, 0, 4);
  for (const char* field : {"dtype", "shape", "offset", "nbytes"}) {
    Json missing = desc;
    missing.erase(field);
    EXPECT_FALSE(decode_tensor(missing, Bytes(4, 0)).ok()) << field;
  }
  Json bad = desc;
  bad["shape"] = "1";
  auto t = decode_tensor(bad, Bytes(4, 0));
  ASSERT_FALSE(t.ok());
  EXPECT_CONTAINS(t.error().what(), "bad tensor descriptor");
  EXPECT_FALSE(decode_tensor(Json("tensor"), Bytes(4, 0)).ok());
}

// Found by fuzz/worker_reply_fuzz.cpp: get<std::uint64_t>() on {"offset": 2.4e107} cast a float
// out of range (undefined behaviour); floats and out-of-range numbers are now protocol errors.
TEST(DecodeTensor, FloatOrOutOfRangeOffsetsNbytesAndDimensionsAreErrors) {
  for (const Json& bad : {Json(2.4e107), Json(4.0), Json(-1), Json(true)}) {
    for (const char* field : {"offset", "nbytes"}) {
      Json desc = tensor_desc("float32", {1}, 0, 4);
      desc[field] = bad;
      auto t = decode_tensor(desc, Bytes(4, 0));
      ASSERT_FALSE(t.ok()) << field << " " << bad.dump();
      EXPECT_CONTAINS(t.error().what(), "integers offset and nbytes");
    }
    Json desc = tensor_desc("float32", Json::array({bad}), 0, 4);
    auto t = decode_tensor(desc, Bytes(4, 0));
    ASSERT_FALSE(t.ok()) << bad.dump();
    EXPECT_CONTAINS(t.error().what(), " dimension in ");
  }
  auto t = decode_tensor(tensor_desc("float32", Json::array({1e300, 1e300}), 0, 4), Bytes(4, 0));
  EXPECT_FALSE(t.ok());
}

// --- leaves -------------------------------------------------------------------------------------

TEST(DecodeLeaves, DecodesEachKindInOrder) {
  Bytes payload = float32_bytes({1.0F, 2.0F});
  Json outputs = Json::array(
      {{{"path", "out[0]"}, {"kind", "tensor"}, {"tensor", tensor_desc("float32", {2}, 0, 8)}},
       {{"path", "out[1]"}, {"kind", "none"}},
       {{"path", "out[2]"}, {"kind", "scalar"}, {"dtype", "int64"}, {"value", 3}},
       {{"path", "out[3]"}, {"kind", "scalar"}, {"dtype", "float64"}, {"value", "nan"}},
       {{"path", "out[4]"}, {"kind", "scalar"}, {"dtype", "complex128"}, {"value", {1.0, -2.0}}},
       {{"path", "out[5]"}, {"kind", "str"}, {"value", "text"}},
       {{"path", "arg0"}, {"kind", "repr"}, {"value", "torch.float32"}}});
  auto leaves = decode_leaves(outputs, payload);
  ASSERT_TRUE(leaves.ok()) << leaves.error().what();
  ASSERT_EQ(leaves->size(), 7U);
  const auto& l = *leaves;
  EXPECT_EQ(l[0].path, "out[0]");
  EXPECT_EQ(l[0].kind, LeafKind::tensor);
  EXPECT_EQ(l[0].tensor.real_at(1), 2.0);
  EXPECT_EQ(l[1].kind, LeafKind::none);
  EXPECT_EQ(l[2].kind, LeafKind::scalar);
  EXPECT_EQ(l[2].value, (Json{{"dtype", "int64"}, {"value", 3}}));
  EXPECT_EQ(l[3].value, (Json{{"dtype", "float64"}, {"value", "nan"}}));
  EXPECT_EQ(l[4].value["value"], Json({1.0, -2.0}));
  EXPECT_EQ(l[5].kind, LeafKind::str);
  EXPECT_EQ(l[5].value, "text");
  EXPECT_EQ(l[6].path, "arg0");
  EXPECT_EQ(l[6].kind, LeafKind::repr);
  EXPECT_EQ(l[6].value, "torch.float32");
}

TEST(DecodeLeaves, EmptyOutputsGiveNoLeaves) {
  auto leaves = decode_leaves(Json::array(), Bytes{});
  ASSERT_TRUE(leaves.ok());
  EXPECT_TRUE(leaves->empty());
}

TEST(DecodeLeaves, OutputsThatAreNotAnArrayAreAnError) {
  auto leaves = decode_leaves(Json{{"path", "out"}}, Bytes{});
  ASSERT_FALSE(leaves.ok());
  EXPECT_CONTAINS(leaves.error().what(), "'outputs' is not an array");
}

TEST(DecodeLeaves, MalformedLeavesAreErrors) {
  for (const Json& leaf : {Json("out"), Json{{"kind", "none"}}, Json{{"path", "out"}},
                           Json{{"path", "out"}, {"kind", "tuple"}},
                           Json{{"path", 0}, {"kind", "none"}}, Json{{"path", "out"}, {"kind", 1}},
                           Json{{"path", "out"}, {"kind", "scalar"}, {"dtype", 5}}}) {
    auto leaves = decode_leaves(Json::array({leaf}), Bytes{});
    ASSERT_FALSE(leaves.ok()) << leaf.dump();
    EXPECT_EQ(leaves.error().kind(), ErrorKind::protocol);
  }
}

TEST(DecodeLeaves, TensorLeafWithABadDescriptorIsAnError) {
  Json outputs = Json::array(
      {{{"path", "out"}, {"kind", "tensor"}, {"tensor", tensor_desc("float32", {4}, 0, 16)}}});
  auto leaves = decode_leaves(outputs, Bytes(8, 0));
  ASSERT_FALSE(leaves.ok());
  EXPECT_CONTAINS(leaves.error().what(), "does not fit");
}

TEST(EncodeLeaves, RoundTripsThroughDecodeLeavesWithTensorsPackedInOrder) {
  std::vector<OutputLeaf> leaves(5);
  leaves[0].path = "out[0]";
  leaves[0].kind = LeafKind::tensor;
  leaves[0].tensor.dtype = DType::float32;
  leaves[0].tensor.shape = {2};
  leaves[0].tensor.device = "cpu";
  leaves[0].tensor.data = float32_bytes({1.0F, 2.0F});
  leaves[1].path = "out[1]";
  leaves[1].kind = LeafKind::scalar;
  leaves[1].value = Json{{"dtype", "bool"}, {"value", true}};
  leaves[2].path = "out[2]";
  leaves[2].kind = LeafKind::tensor;
  leaves[2].tensor.dtype = DType::int16;
  leaves[2].tensor.shape = {1, 3};
  leaves[2].tensor.device = "cuda";
  leaves[2].tensor.data = {1, 0, 2, 0, 3, 0};
  leaves[2].tensor.requires_grad = true;  // carried only where set
  leaves[3].path = "out[3]";
  leaves[3].kind = LeafKind::repr;
  leaves[3].value = "Foo()";
  leaves[4].path = "arg1";
  leaves[4].kind = LeafKind::none;

  Bytes payload{0xEE};  // existing bytes stay in front
  Json header = encode_leaves(leaves, payload);
  EXPECT_EQ(payload.size(), 1U + 8U + 6U);
  EXPECT_EQ(header[2]["tensor"]["offset"], 9);
  std::uint64_t offset = 1;  // the header alone, for a payload written leaf by leaf
  EXPECT_EQ(describe_leaves(leaves, offset), header);
  EXPECT_EQ(offset, payload.size());
  auto decoded = decode_leaves(header, payload);
  ASSERT_TRUE(decoded.ok()) << decoded.error().what();
  ASSERT_EQ(decoded->size(), leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const auto& a = leaves[i];
    const auto& b = (*decoded)[i];
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.value, b.value) << a.path;
    EXPECT_EQ(a.tensor.dtype, b.tensor.dtype);
    EXPECT_EQ(a.tensor.shape, b.tensor.shape);
    EXPECT_EQ(a.tensor.device, b.tensor.device);
    EXPECT_EQ(a.tensor.data, b.tensor.data);
    EXPECT_EQ(a.tensor.requires_grad, b.tensor.requires_grad) << a.path;
  }
  EXPECT_EQ(header[2]["tensor"]["requires_grad"], true);
  EXPECT_FALSE(header[0]["tensor"].contains("requires_grad"));
}

}  // namespace
}  // namespace kbx::sandbox
