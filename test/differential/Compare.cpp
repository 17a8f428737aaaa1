//===- Compare.cpp - The checks of a run ----------------------------------===//

#include "Compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace difftest;

namespace {

/// At most this many mismatching elements are listed per buffer.
constexpr size_t kListed = 8;

std::string position(const Buffer &b, size_t i) {
  char text[64];
  if (b.cols > 0)
    std::snprintf(text, sizeof text, "[%zu] (row %zu, col %zu)", i, i / b.cols,
                  i % b.cols);
  else
    std::snprintf(text, sizeof text, "[%zu]", i);
  return text;
}

std::string number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

bool agree(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b))
    return a == b;
  return std::fabs(a - b) <= tolerance;
}

} // namespace

std::vector<double> difftest::elementsOf(const Buffer &b, const Image &image) {
  ImageLayout l = layoutOf(b);
  std::vector<double> values(b.size());
  unsigned size = bytesOf(b.dtype);
  for (size_t i = 0; i < b.size(); ++i)
    values[i] = decode(b.dtype, &image[l.lead + i * size]);
  return values;
}

void difftest::checkImages(const KernelCase &c,
                           const std::vector<Image> &images,
                           const std::string &side,
                           std::vector<std::string> &problems) {
  for (size_t k = 0; k < c.buffers.size(); ++k) {
    const Buffer &b = c.buffers[k];
    const Image &image = images[k];
    ImageLayout l = layoutOf(b);
    // The first damaged byte of [from, to), reported.
    auto damaged = [&](size_t from, size_t to, bool before) {
      for (size_t i = from; i < to; ++i) {
        if (image[i] == guardByte(i))
          continue;
        long distance = before ? long(l.lead - i) : long(i - l.lead - l.data);
        long element =
            before ? -long((distance + bytesOf(b.dtype) - 1) / bytesOf(b.dtype))
                   : long(b.size()) + distance / long(bytesOf(b.dtype));
        problems.push_back(side + ": the guard " +
                           (before ? "before " : "after ") + b.name +
                           " was written: byte " + std::to_string(distance) +
                           (before ? " before the data" : " past the end") +
                           " (element " + std::to_string(element) + ")");
        return true;
      }
      return false;
    };
    if (!damaged(0, l.lead, true))
      damaged(l.lead + l.data, l.total(), false);
    if (b.output)
      continue;
    Image original = makeImage(b);
    if (std::memcmp(original.data() + l.lead, image.data() + l.lead, l.data) !=
        0) {
      std::vector<double> now = elementsOf(b, image);
      for (size_t i = 0; i < b.size(); ++i) {
        unsigned size = bytesOf(b.dtype);
        if (std::memcmp(original.data() + l.lead + i * size,
                        image.data() + l.lead + i * size, size) != 0) {
          problems.push_back(side + ": input " + b.name +
                             " was modified: " + position(b, i) + " is " +
                             number(now[i]) + ", was " + number(b.init[i]));
          break;
        }
      }
    }
  }
}

std::vector<std::vector<double>>
difftest::outputsOf(const KernelCase &c, const std::vector<Image> &images) {
  std::vector<std::vector<double>> out(c.buffers.size());
  for (size_t k = 0; k < c.buffers.size(); ++k)
    if (c.buffers[k].output)
      out[k] = elementsOf(c.buffers[k], images[k]);
  return out;
}

std::vector<std::vector<double>> difftest::expectedOf(const KernelCase &c) {
  std::vector<std::vector<double>> out(c.buffers.size());
  for (size_t k = 0; k < c.buffers.size(); ++k)
    if (c.buffers[k].output)
      out[k] = c.buffers[k].expected;
  return out;
}

void difftest::compareOutputs(const KernelCase &c,
                              const std::vector<Image> &got,
                              const std::string &gotName,
                              const std::vector<std::vector<double>> &want,
                              const std::string &wantName,
                              std::vector<std::string> &problems) {
  for (size_t k = 0; k < c.buffers.size(); ++k) {
    const Buffer &b = c.buffers[k];
    if (!b.output || want[k].empty())
      continue;
    std::vector<double> values = elementsOf(b, got[k]);
    size_t bad = 0;
    std::string listed;
    for (size_t i = 0; i < values.size(); ++i) {
      double tolerance = b.tolerance.empty() ? 0.0 : b.tolerance[i];
      if (agree(values[i], want[k][i], tolerance))
        continue;
      if (++bad <= kListed)
        listed += "\n    " + b.name + position(b, i) + ": " + gotName + " " +
                  number(values[i]) + ", " + wantName + " " +
                  number(want[k][i]) + " (|difference| " +
                  number(std::fabs(values[i] - want[k][i])) + ", tolerance " +
                  number(tolerance) + ")";
    }
    if (bad)
      problems.push_back(gotName + " and " + wantName + " differ in " +
                         std::to_string(bad) + " of " +
                         std::to_string(values.size()) + " elements of " +
                         b.name + " (" + sigName(b.dtype) + "):" + listed);
  }
}
