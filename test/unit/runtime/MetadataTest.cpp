//===- MetadataTest.cpp - Kernel metadata JSON tests ----------------------===//

#include "tile/Error.h"
#include "tile/Metadata.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

/// The tensor map `json` describes, for a kernel of `numParams` i64s.
TensorMapInfo mapOf(const std::string &json, size_t numParams) {
  std::string params;
  for (size_t i = 0; i < numParams; ++i)
    params += std::string(i ? ", " : "") + R"({"name": "a", "type": "i64"})";
  return KernelMetadata::fromJSON(R"({"kernel": "k", "params": [)" + params +
                                  R"(], "tensor_maps": [)" + json + "]}")
      .tensorMaps[0];
}

std::string errorOf(std::string_view json) {
  try {
    KernelMetadata::fromJSON(json);
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Metadata, ParsesDesignExample) {
  KernelMetadata md = KernelMetadata::fromJSON(R"({
    "kernel": "axpy", "num_warps": 8, "threads_per_block": 256,
    "shared_bytes": 65536, "arch": "sm_90",
    "params": [{"name": "x_ptr", "type": "*fp32", "divisibility": 16},
               {"name": "n", "type": "i32"}],
    "constexprs": {"BLOCK": 1024, "ALPHA": 1.5, "EVEN": true}})");
  EXPECT_EQ(md.kernel, "axpy");
  EXPECT_EQ(md.numWarps, 8u);
  EXPECT_EQ(md.threadsPerBlock, 256u);
  EXPECT_EQ(md.sharedBytes, 65536u);
  EXPECT_EQ(md.arch, "sm_90");
  ASSERT_EQ(md.params.size(), 2u);
  EXPECT_EQ(md.params[0].name, "x_ptr");
  EXPECT_EQ(md.params[0].type, ParamType::pointer(DType::FP32));
  EXPECT_EQ(md.params[0].divisibility, 16u);
  EXPECT_TRUE(md.params[0].isPointer());
  EXPECT_EQ(md.params[1].divisibility, 1u);
  EXPECT_FALSE(md.params[1].isPointer());
  ASSERT_EQ(md.constexprs.size(), 3u);
  EXPECT_EQ(md.constexprs[0], std::make_pair(std::string("BLOCK"),
                                             std::string("1024")));
  EXPECT_EQ(md.constexprs[1].second, "1.5");
  EXPECT_EQ(md.constexprs[2].second, "true");
}

TEST(Metadata, DefaultsForOptionalFields) {
  KernelMetadata md =
      KernelMetadata::fromJSON(R"({"kernel": "k", "num_warps": 2, "params": []})");
  EXPECT_EQ(md.threadsPerBlock, 64u); // num_warps * 32
  EXPECT_EQ(md.sharedBytes, 0u);
  EXPECT_EQ(md.arch, "sm_90");
  EXPECT_TRUE(md.params.empty());
  EXPECT_TRUE(md.constexprs.empty());
  EXPECT_EQ(md.numStages, 3u); // Triton's default
}

TEST(Metadata, NumStages) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "matmul", "num_stages": 4, "params": []})");
  EXPECT_EQ(md.numStages, 4u);
  EXPECT_NE(md.toJSON().find(R"("num_stages":4)"), std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).numStages, 4u);
  EXPECT_EQ(errorOf(R"({"kernel": "k", "num_stages": 0, "params": []})"),
            "invalid kernel metadata: field \"num_stages\" must be positive");
  EXPECT_NE(errorOf(R"({"kernel": "k", "num_stages": "3", "params": []})")
                .find("num_stages"),
            std::string::npos);
}

// A kernel with bulk copies takes its programs' global scratch: written
// only when there is some, read back, absent meaning none.
TEST(Metadata, GlobalScratchBytes) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "global_scratch_bytes": 256, "params": []})");
  EXPECT_EQ(md.globalScratchBytes, 256u);
  EXPECT_NE(md.toJSON().find(R"("global_scratch_bytes":256)"), std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).globalScratchBytes, 256u);
  md.globalScratchBytes = 0;
  EXPECT_EQ(md.toJSON().find("global_scratch_bytes"), std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).globalScratchBytes, 0u);
}

TEST(Metadata, PTXVersion) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "ptx_version": 84, "params": []})");
  EXPECT_EQ(md.ptxVersion, 84u);
  EXPECT_NE(md.toJSON().find(R"("arch":"sm_90","ptx_version":84,)"),
            std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).ptxVersion, 84u);
  // Not said: 0, and not written.
  md.ptxVersion = 0;
  EXPECT_EQ(md.toJSON().find("ptx_version"), std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).ptxVersion, 0u);
  // Times ten, an integer.
  EXPECT_EQ(errorOf(R"({"kernel": "k", "ptx_version": 8, "params": []})"),
            "invalid kernel metadata: field \"ptx_version\" must be the PTX "
            "ISA version times ten (81 for 8.1), got 8");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "ptx_version": 8.4, "params": []})"),
            "invalid kernel metadata: field \"ptx_version\" must be a "
            "non-negative integer, got 8.4");
}

// Neighbouring programs that share copies as clusters: written only above
// 1, read back, a CTA a program still.
TEST(Metadata, ClusterPrograms) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "cluster_programs": 2, "params": []})");
  EXPECT_EQ(md.clusterPrograms, 2u);
  EXPECT_EQ(md.ctasPerCluster(), 1u);
  EXPECT_NE(md.toJSON().find(R"("num_stages":3,"cluster_programs":2,)"),
            std::string::npos)
      << md.toJSON();
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).toJSON(), md.toJSON());
  md.clusterPrograms = 1;
  EXPECT_EQ(md.toJSON().find("cluster_programs"), std::string::npos);
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).clusterPrograms, 1u);
  // Whether whole row sectors changed the code: written only when true.
  md.rowSectorsMatter = true;
  EXPECT_NE(md.toJSON().find(R"("row_sectors_matter":true)"),
            std::string::npos);
  EXPECT_TRUE(KernelMetadata::fromJSON(md.toJSON()).rowSectorsMatter);
  md.rowSectorsMatter = false;
  EXPECT_EQ(md.toJSON().find("row_sectors"), std::string::npos);
  EXPECT_EQ(errorOf(R"({"kernel": "k", "cluster_programs": 0, "params": []})"),
            "invalid kernel metadata: field \"cluster_programs\" must be a "
            "positive integer, got 0");
}

// Programs that run as thread-block clusters: written only for a cluster
// of more than one CTA, read back, absent meaning (1, 1, 1).
TEST(Metadata, ClusterDims) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "cluster_dims": [4, 1, 1], "params": []})");
  EXPECT_EQ(md.clusterDims, (std::array<unsigned, 3>{4, 1, 1}));
  EXPECT_EQ(md.ctasPerCluster(), 4u);
  EXPECT_NE(md.toJSON().find(R"("num_stages":3,"cluster_dims":[4,1,1],)"),
            std::string::npos)
      << md.toJSON();
  md.clusterDims = {2, 2, 2};
  KernelMetadata back = KernelMetadata::fromJSON(md.toJSON());
  EXPECT_EQ(back.clusterDims, (std::array<unsigned, 3>{2, 2, 2}));
  EXPECT_EQ(back.ctasPerCluster(), 8u);
  EXPECT_EQ(back.toJSON(), md.toJSON());
  // None: not written, and read as one CTA.
  md.clusterDims = {1, 1, 1};
  EXPECT_EQ(md.toJSON().find("cluster_dims"), std::string::npos);
  KernelMetadata plain = KernelMetadata::fromJSON(md.toJSON());
  EXPECT_EQ(plain.clusterDims, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_EQ(plain.ctasPerCluster(), 1u);
  // Three positive integers.
  EXPECT_EQ(errorOf(R"({"kernel": "k", "cluster_dims": [2, 1], "params": []})"),
            "invalid kernel metadata: field \"cluster_dims\" must be an array "
            "of 3 positive integers, got [2,1]");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "cluster_dims": 2, "params": []})"),
            "invalid kernel metadata: field \"cluster_dims\" must be an array "
            "of 3 positive integers, got 2");
  EXPECT_EQ(
      errorOf(R"({"kernel": "k", "cluster_dims": [0, 1, 1], "params": []})"),
      "invalid kernel metadata: field \"cluster_dims\" must hold positive "
      "integers, got [0,1,1]");
  EXPECT_NE(
      errorOf(R"({"kernel": "k", "cluster_dims": [2, "1", 1], "params": []})")
          .find("cluster_dims"),
      std::string::npos);
  EXPECT_NE(
      errorOf(R"({"kernel": "k", "cluster_dims": [-2, 1, 1], "params": []})")
          .find("cluster_dims"),
      std::string::npos);
}

// A stream-K kernel's partial bytes and whether a kernel could be one:
// written only where set; its workspace is a zeroed flag a sharer, padded
// to 128 bytes, then a partial a sharer.
TEST(Metadata, StreamK) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "stream_k_splittable": true,
          "stream_k_partial_bytes": 65536, "params": []})");
  EXPECT_TRUE(md.streamKSplittable);
  EXPECT_EQ(md.streamKPartialBytes, 65536u);
  EXPECT_EQ(md.streamKWorkspaceBytes(132), 640u + 132u * 65536u);
  EXPECT_EQ(md.streamKWorkspaceBytes(32), 128u + 32u * 65536u);
  KernelMetadata back = KernelMetadata::fromJSON(md.toJSON());
  EXPECT_TRUE(back.streamKSplittable);
  EXPECT_EQ(back.streamKPartialBytes, 65536u);
  KernelMetadata plain = KernelMetadata::fromJSON(
      R"({"kernel": "k", "params": []})");
  EXPECT_FALSE(plain.streamKSplittable);
  EXPECT_EQ(plain.streamKPartialBytes, 0u);
  EXPECT_EQ(plain.toJSON().find("stream_k"), std::string::npos);
  EXPECT_NE(errorOf(R"({"kernel": "k", "stream_k_partial_bytes": -1, "params": []})")
                .find("stream_k_partial_bytes"),
            std::string::npos);
}

// A persistent kernel: "persistent" read and written back, absent for
// false.
TEST(Metadata, Persistent) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "k", "persistent": true, "params": []})");
  EXPECT_TRUE(md.persistent);
  EXPECT_TRUE(KernelMetadata::fromJSON(md.toJSON()).persistent);
  KernelMetadata plain =
      KernelMetadata::fromJSON(R"({"kernel": "k", "params": []})");
  EXPECT_FALSE(plain.persistent);
  EXPECT_EQ(plain.toJSON().find("persistent"), std::string::npos);
  EXPECT_NE(errorOf(R"({"kernel": "k", "persistent": 1, "params": []})")
                .find("persistent"),
            std::string::npos);
}

TEST(Metadata, DriverForPTXVersion) {
  // PTX's release history: 7.x with CUDA 11.x, 8.0-8.5 with 12.0-12.5,
  // 8.6-8.8 with 12.7-12.9, 9.x with 13.x.
  EXPECT_EQ(getMinDriverVersion(70), 11000);
  EXPECT_EQ(getMinDriverVersion(78), 11080);
  EXPECT_EQ(getMinDriverVersion(81), 12010);
  EXPECT_EQ(getMinDriverVersion(84), 12040);
  EXPECT_EQ(getMinDriverVersion(85), 12050);
  EXPECT_EQ(getMinDriverVersion(86), 12070);
  EXPECT_EQ(getMinDriverVersion(88), 12090);
  EXPECT_EQ(getMinDriverVersion(90), 13000);
  EXPECT_EQ(getMinDriverVersion(65), 0);
  EXPECT_EQ(getMinDriverVersion(0), 0);

  KernelMetadata md;
  md.kernel = "fp8_dot";
  md.ptxVersion = 84;
  EXPECT_EQ(checkDriverVersion(md, 12040), "");
  EXPECT_EQ(checkDriverVersion(md, 13000), "");
  EXPECT_EQ(checkDriverVersion(md, 12020),
            "kernel fp8_dot: its PTX is ISA 8.4, which needs a CUDA 12.4 or "
            "newer driver, and this driver is CUDA 12.2: update the driver, "
            "or load the kernel's cubin (tilec --emit=cubin), which any CUDA "
            "12 driver loads");
  // Metadata that does not say is not checked.
  md.ptxVersion = 0;
  EXPECT_EQ(checkDriverVersion(md, 11000), "");
}

// The launcher builds these maps (HostTensorMaps.h in the compiler): a
// recipe per field, over the parameters' values.
constexpr const char *kTensorMapsJSON = R"({"kernel": "k", "params": [
    {"name": "a", "type": "*fp16"}, {"name": "M", "type": "i32"},
    {"name": "K", "type": "i32"}],
  "tensor_maps": [{"base": ["add", ["arg", 0], ["mul", ["arg", 1], 2]],
                   "dims": [["arg", 2], ["i32", ["add", ["arg", 1], 64]]],
                   "strides": [["ceildiv", ["arg", 2], 8]],
                   "box": [64, 128], "element_bytes": 2, "swizzle": 128}]})";

TEST(Metadata, TensorMapRecipes) {
  KernelMetadata md = KernelMetadata::fromJSON(kTensorMapsJSON);
  ASSERT_EQ(md.tensorMaps.size(), 1u);
  const TensorMapInfo &map = md.tensorMaps[0];
  EXPECT_EQ(map.box, (std::vector<unsigned>{64, 128}));
  EXPECT_EQ(map.elementBytes, 2u);
  EXPECT_EQ(map.swizzle, 128u);
  std::vector<int64_t> args = {0x7f0000001000, 100, 1000};
  EXPECT_EQ(map.base.evaluate(args), 0x7f0000001000 + 200);
  EXPECT_EQ(map.dims[0].evaluate(args), 1000);
  EXPECT_EQ(map.dims[1].evaluate(args), 164);
  EXPECT_EQ(map.strides[0].evaluate(args), 125);
  // i32 arithmetic wraps as the kernel's does.
  args[1] = 2147483647;
  EXPECT_EQ(map.dims[1].evaluate(args), -2147483585);
  // Written back as read.
  KernelMetadata again = KernelMetadata::fromJSON(md.toJSON());
  ASSERT_EQ(again.tensorMaps.size(), 1u);
  EXPECT_EQ(again.toJSON(), md.toJSON());
  EXPECT_NE(md.toJSON().find(
                R"("tensor_maps":[{"base":["add",["arg",0],["mul",["arg",1],2]],"dims":[["arg",2],["i32",["add",["arg",1],64]]],"strides":[["ceildiv",["arg",2],8]],"box":[64,128],"element_bytes":2,"swizzle":128}])"),
            std::string::npos);
}

TEST(Metadata, HostExprArithmetic) {
  auto eval = [](const char *expr, std::vector<int64_t> args = {}) {
    std::string json = std::string(R"({"base": 0, "dims": [)") + expr +
                       R"(], "strides": [], "box": [1], "element_bytes": 1})";
    return mapOf(json, 2).dims[0].evaluate(args);
  };
  EXPECT_EQ(eval(R"(["div", -7, 2])"), -3);  // toward zero
  EXPECT_EQ(eval(R"(["ceildiv", 7, 2])"), 4);
  EXPECT_EQ(eval(R"(["ceildiv", -7, 2])"), -3);
  EXPECT_EQ(eval(R"(["ceildiv", 8, 2])"), 4);
  EXPECT_EQ(eval(R"(["rem", -7, 2])"), -1);
  EXPECT_EQ(eval(R"(["min", ["arg", 0], ["arg", 1]])", {5, -3}), -3);
  EXPECT_EQ(eval(R"(["max", ["arg", 0], ["arg", 1]])", {5, -3}), 5);
  EXPECT_EQ(eval(R"(["sub", ["arg", 0], 9])", {5, 0}), -4);
  EXPECT_EQ(eval(R"(["div", 7, 0])"), 0);
  // The launch's programs along a dimension.
  HostExpr grid = mapOf(R"({"base": 0, "dims": [["grid", 2]], "strides": [], "box": [1], "element_bytes": 1})",
                        0)
                      .dims[0];
  EXPECT_EQ(grid.evaluate({}, {4, 5, 6}), 6);
  EXPECT_EQ(grid.evaluate({}), 1);
}

TEST(Metadata, TensorMapErrors) {
  auto withMap = [](const std::string &map) {
    return errorOf(R"({"kernel": "k", "params": [{"name": "n", "type": "i32"}],
                       "tensor_maps": [)" + map + "]}");
  };
  EXPECT_NE(withMap(R"({"base": ["arg", 1], "dims": [1], "strides": [], "box": [1], "element_bytes": 1})")
                .find("names parameter 1 of 1"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"base": ["pow", 1, 2], "dims": [1], "strides": [], "box": [1], "element_bytes": 1})")
                .find("unknown operation \"pow\""),
            std::string::npos);
  EXPECT_NE(withMap(R"({"base": ["add", 1], "dims": [1], "strides": [], "box": [1], "element_bytes": 1})")
                .find("takes 2 operand(s)"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"base": 0, "dims": [["grid", 3]], "strides": [], "box": [1], "element_bytes": 1})")
                .find("grid dimension 3, not 0, 1 or 2"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"base": 0, "dims": [1, 2], "strides": [], "box": [1, 1], "element_bytes": 1})")
                .find("one stride fewer"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"base": 0, "dims": [1], "strides": [], "box": [1]})")
                .find("missing field \"tensor_maps[0].element_bytes\""),
            std::string::npos);
}

// "accesses": what each bounded access reaches, read back as written, and
// evaluated for a launch.
TEST(Metadata, Accesses) {
  const char *json = R"({"kernel": "k", "params": [
      {"name": "x", "type": "*fp16"}, {"name": "n", "type": "i32"},
      {"name": "s", "type": "i64"}],
    "accesses": [{"param": 0, "offset": 3, "terms": [
        {"stride": ["arg", 2], "count": ["grid", 0], "scale": 8,
         "extent": 8, "bound": ["arg", 1]},
        {"stride": -1, "count": 5, "scale": 1, "extent": 1}],
      "fits": [{"bits": 32, "value": 0, "terms": [[8, ["grid", 0]], [1, 8],
                                                  [["arg", 2], ["grid", 1]]]}]}]})";
  KernelMetadata md = KernelMetadata::fromJSON(json);
  ASSERT_EQ(md.accesses.size(), 1u);
  const AccessInfo &access = md.accesses[0];
  EXPECT_EQ(access.param, 0u);
  ASSERT_EQ(access.terms.size(), 2u);
  EXPECT_TRUE(access.terms[0].bounded);
  EXPECT_FALSE(access.terms[1].bounded);
  EXPECT_EQ(access.terms[0].scale, 8);
  ASSERT_EQ(access.fits.size(), 1u);
  EXPECT_EQ(access.fits[0].terms.size(), 3u);
  // A pair of two [name, n] expressions stays a pair, not a JSON object.
  EXPECT_EQ(KernelMetadata::fromJSON(md.toJSON()).toJSON(), md.toJSON());
  EXPECT_NE(md.toJSON().find(R"([["arg",2],["grid",1]])"), std::string::npos);

  // t < n over 4 programs of 8: the last t is min(n, 32) - 1, times the
  // stride, past the offset of 3; the second term only goes down.
  int64_t values[] = {0, 20, 2};
  EXPECT_EQ(access.reachedElements(values, 3, {4, 1, 1}), 3u + 19 * 2 + 1);
  values[1] = 100;
  EXPECT_EQ(access.reachedElements(values, 3, {4, 1, 1}), 3u + 31 * 2 + 1);
  values[1] = 0; // masked off everywhere
  EXPECT_EQ(access.reachedElements(values, 3, {4, 1, 1}), 0u);
  values[1] = 100;
  values[2] = -2; // a negative stride reaches no further than t = 0
  EXPECT_EQ(access.reachedElements(values, 3, {4, 1, 1}), 4u);
  // t passes 2^31 - 1 in 32-bit arithmetic beyond 2^28 programs, and the
  // kernel's addresses are not the formula's: not checked.
  values[2] = 2;
  EXPECT_EQ(access.reachedElements(values, 3, {int64_t(1) << 28, 1, 1}),
            3u + 99 * 2 + 1);
  EXPECT_EQ(access.reachedElements(values, 3, {(int64_t(1) << 28) + 1, 1, 1}),
            0u);

  values[0] = 0x10000; // x's address
  uint64_t bytes[] = {100, 0, 0};
  EXPECT_EQ(checkBufferSizes(md, values, bytes, {4, 1, 1}),
            "kernel k: argument 0 (x) needs 132 bytes (66 fp16 elements) for "
            "this launch, but its buffer has 100 bytes");
  bytes[0] = 132;
  EXPECT_EQ(checkBufferSizes(md, values, bytes, {4, 1, 1}), "");

  // A null x that the launch touches, whatever its bytes; none where the
  // masks keep every program off it.
  values[0] = 0;
  bytes[0] = 0;
  EXPECT_TRUE(access.reachesAny(values, 3, {4, 1, 1}));
  EXPECT_EQ(checkBufferSizes(md, values, bytes, {4, 1, 1}),
            "kernel k: argument 0 (x) is null, and the kernel accesses it at "
            "this launch");
  values[1] = 0;
  EXPECT_FALSE(access.reachesAny(values, 3, {4, 1, 1}));
  EXPECT_EQ(checkBufferSizes(md, values, bytes, {4, 1, 1}), "");
}

TEST(Metadata, AccessErrors) {
  auto errorWith = [](const std::string &access) {
    return errorOf(R"({"kernel": "k", "params": [{"name": "x", "type": "*fp32"},
                     {"name": "n", "type": "i32"}], "accesses": [)" +
                   access + "]}");
  };
  EXPECT_EQ(errorWith(R"({"param": 1, "offset": 0, "terms": [], "fits": []})"),
            "invalid kernel metadata: accesses[0].param must name a pointer "
            "parameter, not 1");
  EXPECT_EQ(errorWith(R"({"param": 0, "offset": 0, "terms": [{"stride": 1,
                "count": 1, "scale": 1, "extent": 0}], "fits": []})"),
            "invalid kernel metadata: accesses[0].terms[0].extent must be "
            "positive");
  EXPECT_EQ(errorWith(R"({"param": 0, "offset": ["arg", 2], "terms": [],
                "fits": []})"),
            "invalid kernel metadata: field \"accesses[0].offset\" names "
            "parameter 2 of 2");
  EXPECT_EQ(errorWith(R"({"param": 0, "offset": 0, "terms": [], "fits": [
                {"bits": 65, "value": 0, "terms": []}]})"),
            "invalid kernel metadata: accesses[0].fits[0].bits must be 2 to "
            "64");
  EXPECT_EQ(errorWith(R"({"param": 0, "offset": 0, "terms": [], "fits": [
                {"bits": 32, "value": 0, "terms": [[1]]}]})"),
            "invalid kernel metadata: accesses[0].fits[0].terms[0] must be "
            "[coefficient, count]");
}

TEST(Metadata, ToJSONMatchesDesignLayout) {
  KernelMetadata md;
  md.kernel = "axpy";
  md.params = {{"x_ptr", ParamType::pointer(DType::FP32), 16}};
  md.constexprs = {{"BLOCK", "1024"}};
  EXPECT_EQ(md.toJSON(),
            R"({"kernel":"axpy","num_warps":4,"threads_per_block":128,)"
            R"("shared_bytes":0,"arch":"sm_90","num_stages":3,)"
            R"("params":[{"name":"x_ptr","type":"*fp32","divisibility":16}],)"
            R"("constexprs":{"BLOCK":1024}})");
}

TEST(Metadata, RoundTrip) {
  KernelMetadata md;
  md.kernel = "we\"ird\\name\n\t\x01é";
  md.numWarps = 8;
  md.threadsPerBlock = 256;
  md.sharedBytes = 98304;
  md.arch = "sm_80";
  md.numStages = 5;
  md.ptxVersion = 83;
  md.params = {{"a\"b", ParamType::pointer(DType::BF16), 16}, {"n", ParamType::scalar(DType::I64), 8}, {"s", ParamType::scalar(DType::FP32), 1},
               {"m", ParamType::pointer(DType::I1), 1}};
  md.constexprs = {{"BLOCK", "1024"},
                   {"EPS", "-0.0015"},
                   {"FLAG", "false"},
                   {"NAME", "\"x\\ny\""},
                   {"SHAPE", "[1,[2,3],{\"k\":null}]"}};
  std::string json = md.toJSON();
  KernelMetadata back = KernelMetadata::fromJSON(json);
  EXPECT_EQ(back.kernel, md.kernel);
  EXPECT_EQ(back.numWarps, md.numWarps);
  EXPECT_EQ(back.threadsPerBlock, md.threadsPerBlock);
  EXPECT_EQ(back.sharedBytes, md.sharedBytes);
  EXPECT_EQ(back.arch, md.arch);
  EXPECT_EQ(back.numStages, md.numStages);
  EXPECT_EQ(back.ptxVersion, md.ptxVersion);
  ASSERT_EQ(back.params.size(), md.params.size());
  for (size_t i = 0; i < md.params.size(); ++i) {
    EXPECT_EQ(back.params[i].name, md.params[i].name);
    EXPECT_EQ(back.params[i].type, md.params[i].type);
    EXPECT_EQ(back.params[i].divisibility, md.params[i].divisibility);
  }
  EXPECT_EQ(back.constexprs, md.constexprs);
  EXPECT_EQ(back.toJSON(), json);
}

TEST(Metadata, StringEscapes) {
  KernelMetadata md = KernelMetadata::fromJSON(
      R"({"kernel": "a\u00e9\ud83d\ude00\/\b\f\r", "params": []})");
  EXPECT_EQ(md.kernel, "a\xc3\xa9\xf0\x9f\x98\x80/\b\f\r");
}

TEST(Metadata, ToJSONRejectsMalformedConstexpr) {
  KernelMetadata md;
  md.kernel = "k";
  md.constexprs = {{"BLOCK", "10 24"}};
  try {
    md.toJSON();
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("constexpr BLOCK"), std::string::npos)
        << e.what();
  }
}

// nlohmann-json reads the text; its errors say where and what.
TEST(Metadata, SyntaxErrors) {
  auto expectError = [](const std::string &json, const char *where,
                        const char *what) {
    std::string error = errorOf(json);
    EXPECT_EQ(error.rfind("invalid kernel metadata: at ", 0), 0u) << error;
    EXPECT_NE(error.find(where), std::string::npos) << error;
    EXPECT_NE(error.find(what), std::string::npos) << error;
  };
  expectError("", "line 1, column 1", "unexpected end of input");
  expectError("{\"kernel\": \"k\",\n \"params\" []}", "line 2, column 11",
              "expected ':'");
  expectError(R"({"kernel": "k", "params": [],})", "line 1, column 30",
              "expected string literal");
  expectError(R"({"kernel": "k", "params": []} x)", "line 1, column 31",
              "expected end of input");
  expectError(R"({"kernel": "k)", "line 1, column 14", "missing closing quote");
  expectError(R"({"kernel": "\q"})", "line 1", "after backslash");
  expectError(R"({"num_warps": 012})", "line 1", "expected");
  expectError(R"({"num_warps": 1.})", "line 1", "expected digit after '.'");
  expectError(R"({"kernel": tru})", "line 1", "invalid literal");
  expectError("{\"kernel\": \"a\nb\"}", "line 2", "control character");
  expectError(R"({"kernel": "\ud800"})", "line 1", "surrogate");
  // nlohmann's parser keeps its own stack: deep nesting is no crash.
  expectError(std::string(100000, '['), "column 100001",
              "unexpected end of input");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "kernel": "j", "params": []})"),
            "invalid kernel metadata: duplicate key \"kernel\"");
}

TEST(Metadata, FieldErrors) {
  EXPECT_EQ(errorOf(R"([1])"), "invalid kernel metadata: expected an object "
                               "at the top level, got an array");
  EXPECT_EQ(errorOf(R"({"params": []})"),
            "invalid kernel metadata: missing field \"kernel\"");
  EXPECT_EQ(errorOf(R"({"kernel": "k"})"),
            "invalid kernel metadata: missing field \"params\"");
  EXPECT_EQ(errorOf(R"({"kernel": 3, "params": []})"),
            "invalid kernel metadata: field \"kernel\" must be a string, got "
            "a number");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "num_warps": 134217729, "params": []})"),
            "invalid kernel metadata: field \"num_warps\" must be 1 to 32, "
            "got 134217729");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "num_warps": -4, "params": []})"),
            "invalid kernel metadata: field \"num_warps\" must be a "
            "non-negative integer, got -4");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "shared_bytes": 1e3, "params": []})"),
            "invalid kernel metadata: field \"shared_bytes\" must be a "
            "non-negative integer, got 1000.0");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "shared_bytes": 99999999999, "params": []})"),
            "invalid kernel metadata: field \"shared_bytes\" is out of range: "
            "99999999999");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "threads_per_block": 2048, "params": []})"),
            "invalid kernel metadata: field \"threads_per_block\" must be in "
            "[1, 1024], got 2048");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "params": {}})"),
            "invalid kernel metadata: field \"params\" must be an array, got "
            "an object");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "params": [{"name": "x"}]})"),
            "invalid kernel metadata: missing field \"params[0].type\"");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "params": [{"name": "x", "type": "*f32"}]})"),
            "invalid kernel metadata: params[0].type \"*f32\" is not a known "
            "type (a dtype or a pointer to one: i1, i8, i16, i32, i64, u8, "
            "u16, u32, u64, fp8e5, fp8e4nv, fp16, bf16, fp32, fp64)");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "params": [{"name": "x", "type": "i32",
                        "divisibility": 0}]})"),
            "invalid kernel metadata: params[0].divisibility must be positive");
  EXPECT_EQ(errorOf(R"({"kernel": "k", "params": [], "constexprs": [1]})"),
            "invalid kernel metadata: field \"constexprs\" must be an object, "
            "got an array");
}

} // namespace
