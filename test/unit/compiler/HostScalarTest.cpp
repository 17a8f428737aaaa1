//===- HostScalarTest.cpp - Host Python's scalar ---------------------------===//

#include "tilec/Frontend/HostScalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using tilec::HostScalar;

// Python's repr: what the JIT's cache keys, the autotuner's descriptions and
// -D text spell. The expected strings are CPython 3's.
TEST(HostScalar, ReprIsPythons) {
  auto f = [](double d) { return HostScalar::ofFloat(d).repr(); };
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(f(1.0), "1.0");
  EXPECT_EQ(f(-0.0), "-0.0");
  EXPECT_EQ(f(123456.0), "123456.0");
  EXPECT_EQ(f(1e15), "1000000000000000.0");
  EXPECT_EQ(f(1e16), "1e+16");
  EXPECT_EQ(f(1.5e-5), "1.5e-05");
  EXPECT_EQ(f(0.0001), "0.0001");
  EXPECT_EQ(f(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(f(5e-324), "5e-324");
  EXPECT_EQ(f(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(f(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(f(std::nan("")), "nan");
  EXPECT_EQ(HostScalar::ofInt(-9223372036854775807 - 1).repr(),
            "-9223372036854775808");
  EXPECT_EQ(HostScalar::ofBool(true).repr(), "True");
  EXPECT_EQ(HostScalar().repr(), "None");
  EXPECT_EQ(HostScalar::ofString("ieee").repr(), "'ieee'");
  EXPECT_EQ(HostScalar::ofString("it's").repr(), "\"it's\"");
  EXPECT_EQ(HostScalar::ofString("a'b\"c\n").repr(), "'a\\'b\"c\\n'");
}

// A literal's repr reads back as the same scalar.
TEST(HostScalar, ReprReadsBack) {
  for (HostScalar s :
       {HostScalar::ofInt(64), HostScalar::ofInt(-3), HostScalar::ofFloat(0.1),
        HostScalar::ofFloat(2.5e-7), HostScalar::ofFloat(1e300),
        HostScalar::ofBool(false), HostScalar::ofString("tf32"),
        HostScalar()}) {
    std::optional<HostScalar> back = HostScalar::parseLiteral(s.repr());
    ASSERT_TRUE(back) << s.repr();
    EXPECT_EQ(*back, s) << s.repr();
  }
}

} // namespace
