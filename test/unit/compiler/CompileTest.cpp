//===- CompileTest.cpp - tilec::compile on source strings -----------------===//

#include "tilec/Compiler.h"

#include <gtest/gtest.h>

namespace {

const char *kSource = R"(import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
)";

TEST(CompileTest, SourceToPTXFillsMetadata) {
  tilec::CompileOptions options;
  options.signature = "*fp32:16, *fp32:16, i32:16, 256";
  options.numWarps = 2;
  options.arch = "sm_80";
  tilec::CompileResult result = tilec::compile(kSource, "copy.tl", options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_NE(result.text.find(".target sm_80"), std::string::npos);
  EXPECT_NE(result.text.find(".visible .entry copy_kernel("), std::string::npos);
  EXPECT_NE(result.text.find("ld.global.v4.b32"), std::string::npos);
  const tile::KernelMetadata &m = result.metadata;
  EXPECT_EQ(m.kernel, "copy_kernel");
  EXPECT_EQ(m.numWarps, 2u);
  EXPECT_EQ(m.threadsPerBlock, 64u);
  EXPECT_EQ(m.sharedBytes, 0u);
  EXPECT_EQ(m.arch, "sm_80");
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_EQ(m.params[0].name, "x_ptr");
  EXPECT_EQ(m.params[0].type.str(), "*fp32");
  EXPECT_EQ(m.params[0].divisibility, 16u);
  EXPECT_EQ(m.params[2].name, "n");
  EXPECT_EQ(m.params[2].type.str(), "i32");
  EXPECT_EQ(m.params[2].divisibility, 16u);
  ASSERT_EQ(m.constexprs.size(), 1u);
  EXPECT_EQ(m.constexprs[0].first, "BLOCK");
  EXPECT_EQ(m.constexprs[0].second, "256");
}

TEST(CompileTest, EntryNameAndEarlierStage) {
  tilec::CompileOptions options;
  options.signature = "*fp32, *fp32, i32, 128";
  options.entryName = "renamed";
  tilec::CompileResult ptx = tilec::compile(kSource, "copy.tl", options);
  ASSERT_TRUE(ptx.ok) << ptx.diagnostics;
  EXPECT_EQ(ptx.metadata.kernel, "renamed");
  EXPECT_NE(ptx.text.find(".visible .entry renamed("), std::string::npos);

  options.stopAfter = tilec::Stage::Tile;
  tilec::CompileResult tile = tilec::compile(kSource, "copy.tl", options);
  ASSERT_TRUE(tile.ok) << tile.diagnostics;
  // The rename applies from the first MLIR stage on.
  EXPECT_NE(tile.text.find("func.func @renamed("), std::string::npos)
      << tile.text;
  EXPECT_NE(tile.text.find("tile.make_range {end = 128 : i32, start = 0 : i32}"),
            std::string::npos);
}

TEST(CompileTest, SyntaxErrorIsAFileLineColDiagnostic) {
  const char *bad = "import triton\n"
                    "import triton.language as tl\n"
                    "\n"
                    "@triton.jit\n"
                    "def k(x_ptr):\n"
                    "    y = (1 +\n";
  tilec::CompileOptions options;
  tilec::CompileResult result = tilec::compile(bad, "bad.tl", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("bad.tl:"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find(": error: "), std::string::npos)
      << result.diagnostics;
  // The format is file:line:col: error:.
  size_t at = result.diagnostics.find("bad.tl:");
  ASSERT_NE(at, std::string::npos);
  unsigned line = 0, col = 0;
  char rest[8] = {};
  EXPECT_EQ(std::sscanf(result.diagnostics.c_str() + at, "bad.tl:%u:%u: %6s",
                        &line, &col, rest),
            3)
      << result.diagnostics;
  EXPECT_GE(line, 6u);
  EXPECT_GE(col, 1u);
  EXPECT_STREQ(rest, "error:");
  EXPECT_TRUE(result.text.empty());
}

TEST(CompileTest, UnknownNameIsReportedWhereItIs) {
  const char *bad = "import triton\n"
                    "import triton.language as tl\n"
                    "\n"
                    "@triton.jit\n"
                    "def k(x_ptr):\n"
                    "    tl.store(x_ptr, undefined_name)\n";
  tilec::CompileOptions options;
  options.signature = "*fp32";
  tilec::CompileResult result = tilec::compile(bad, "names.tl", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("names.tl:6:21: error:"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("undefined_name"), std::string::npos);
}

TEST(CompileTest, ArchitectureNamesThePTXTarget) {
  tilec::CompileOptions options;
  options.signature = "*fp32:16, *fp32:16, i32:16, 256";
  options.arch = "sm_90a";
  tilec::CompileResult result = tilec::compile(kSource, "copy.tl", options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_NE(result.text.find(".target sm_90a"), std::string::npos);
  EXPECT_EQ(result.metadata.arch, "sm_90a");

  options.arch = "sm_89";
  result = tilec::compile(kSource, "copy.tl", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("unsupported GPU architecture 'sm_89' "
                                    "(expected sm_80, sm_90 or sm_90a)"),
            std::string::npos)
      << result.diagnostics;
}

// A launch's argument types (the JIT's) are Triton's signature syntax, read
// by the same parser as --signature: ":16" and ":1" take effect, and any
// other hint is an error at the parameter, naming the argument.
TEST(CompileTest, LaunchArgumentTypesTakeTritonsHints) {
  const char *source = "import triton\n"
                       "import triton.language as tl\n"
                       "\n"
                       "@triton.jit\n"
                       "def k(x_ptr, n, BLOCK: tl.constexpr = 128):\n"
                       "    offs = tl.arange(0, BLOCK)\n"
                       "    tl.store(x_ptr + offs, 1.0, mask=offs < n)\n";
  tilec::CompileOptions options;
  options.stopAfter = tilec::Stage::Tile;
  options.argTypes = {"*fp32:16", "i32:1"};
  tilec::CompileResult result = tilec::compile(source, "k.tl", options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_NE(result.text.find("tile.divisibility = 16 : i32, tile.name = "
                             "\"x_ptr\""),
            std::string::npos)
      << result.text;
  EXPECT_NE(result.text.find("n = 1 : i64"), std::string::npos) << result.text;

  options.argTypes = {"*fp32:16", "i32:7"};
  result = tilec::compile(source, "k.tl", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find(
                "k.tl:5:14: error: argument type 'i32:7' for 'n': the hint "
                "after ':' must be 16, 8, 4 or 2 (divisible by it; a pointer "
                "aligned to that many bytes) or 1 (an integer equal to 1), "
                "not '7'"),
            std::string::npos)
      << result.diagnostics;
}

} // namespace
