//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "Npy.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace tilec::npy;

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// A cursor over the header dict: {'descr': '<f4', 'fortran_order': False,
/// 'shape': (3, 4), }
struct HeaderParser {
  const std::string &text;
  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  bool string(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool word(std::string &out) {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() && std::isalpha((unsigned char)text[pos]))
      ++pos;
    out = text.substr(start, pos - start);
    return !out.empty();
  }
  bool integer(int64_t &out) {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
      ++pos;
    if (pos == start || pos - start > 18)
      return false;
    out = std::stoll(text.substr(start, pos - start));
    // Python 2 era files may write 3L.
    if (pos < text.size() && text[pos] == 'L')
      ++pos;
    return true;
  }
  bool shape(std::vector<int64_t> &out) {
    if (!consume('('))
      return false;
    out.clear();
    while (!consume(')')) {
      int64_t extent;
      if (!integer(extent))
        return false;
      out.push_back(extent);
      if (!consume(',') && !peek(')'))
        return false;
    }
    return true;
  }
};

bool parseHeader(const std::string &header, Array &array, std::string &error) {
  HeaderParser p{header};
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!p.consume('{')) {
    error = "the header is not a Python dict";
    return false;
  }
  while (!p.consume('}')) {
    std::string key;
    if (!p.string(key) || !p.consume(':')) {
      error = "malformed header '" + header + "'";
      return false;
    }
    if (key == "descr") {
      if (!p.string(array.descr)) {
        error = "'descr' is not a simple dtype string (structured arrays are "
                "not supported)";
        return false;
      }
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string value;
      if (!p.word(value) || (value != "True" && value != "False")) {
        error = "malformed 'fortran_order'";
        return false;
      }
      if (value == "True") {
        error = "Fortran-order arrays are not supported: save a C-order "
                "array (np.ascontiguousarray)";
        return false;
      }
      haveOrder = true;
    } else if (key == "shape") {
      if (!p.shape(array.shape)) {
        error = "malformed 'shape'";
        return false;
      }
      haveShape = true;
    } else {
      error = "unexpected key '" + key + "' in the header";
      return false;
    }
    if (!p.consume(',') && !p.peek('}')) {
      error = "malformed header '" + header + "'";
      return false;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape) {
    error = "the header lacks 'descr', 'fortran_order' or 'shape'";
    return false;
  }

  const std::string &d = array.descr;
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=') ||
      !std::strchr("fiub", d[1]) || !std::isdigit((unsigned char)d[2])) {
    if (!d.empty() && d[0] == '>')
      error = "big-endian dtype '" + d + "' is not supported";
    else
      error = "unsupported dtype '" + d + "'";
    return false;
  }
  array.kind = d[1];
  array.itemSize = unsigned(std::atoi(d.c_str() + 2));
  bool ok = array.kind == 'f'   ? (array.itemSize == 2 || array.itemSize == 4 ||
                                 array.itemSize == 8)
            : array.kind == 'b' ? array.itemSize == 1
                                : (array.itemSize == 1 || array.itemSize == 2 ||
                                   array.itemSize == 4 || array.itemSize == 8);
  if (!ok) {
    error = "unsupported dtype '" + d + "'";
    return false;
  }
  // Canonical spelling, as numpy writes it back.
  array.descr = std::string(array.itemSize == 1 ? "|" : "<") + array.kind +
                std::to_string(array.itemSize);
  return true;
}

} // namespace

AlignedBuffer::AlignedBuffer(size_t bytes) : bytes(bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  storage.reset(
      static_cast<uint8_t *>(std::aligned_alloc(64, rounded ? rounded : 64)));
  if (!storage)
    throw std::bad_alloc();
  std::memset(storage.get(), 0, rounded ? rounded : 64);
}

size_t Array::numElements() const {
  size_t n = 1;
  for (int64_t extent : shape)
    n *= size_t(extent);
  return n;
}

std::string Array::dtypeName() const {
  if (kind == 'b')
    return "bool";
  std::string base = kind == 'f' ? "float" : kind == 'i' ? "int" : "uint";
  return base + std::to_string(8 * itemSize);
}

bool tilec::npy::read(const std::string &path, Array &array,
                      std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return false;
  }
  std::string contents((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "read error";
    return false;
  }
  if (contents.size() < kMagicSize + 4 ||
      contents.compare(0, kMagicSize, kMagic) != 0) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  unsigned major = (unsigned char)contents[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength =
        (unsigned char)contents[8] | size_t((unsigned char)contents[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12) {
      error = "truncated header";
      return false;
    }
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength = headerLength << 8 | (unsigned char)contents[8 + i];
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (contents.size() < headerStart + headerLength) {
    error = "truncated header";
    return false;
  }
  std::string header = contents.substr(headerStart, headerLength);
  if (!parseHeader(header, array, error))
    return false;

  size_t offset = headerStart + headerLength;
  size_t bytes = array.numElements() * array.itemSize;
  if (contents.size() - offset != bytes) {
    std::ostringstream os;
    os << "the data has " << contents.size() - offset << " bytes, the shape ";
    os << "and dtype '" << array.descr << "' need " << bytes;
    error = os.str();
    return false;
  }
  array.data = AlignedBuffer(bytes);
  std::memcpy(array.data.data(), contents.data() + offset, bytes);
  return true;
}

bool tilec::npy::write(const std::string &path, const Array &array,
                       std::string &error) {
  std::string header =
      "{'descr': '" + array.descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    header +=
        std::to_string(array.shape[i]) +
        (array.shape.size() == 1 || i + 1 < array.shape.size() ? "," : "") +
        (i + 1 < array.shape.size() ? " " : "");
  header += "), }";
  // Pad with spaces so the data starts at a multiple of 64, then '\n'.
  bool v2 = header.size() + 64 > 65535;
  size_t total = (v2 ? 12 : 10) + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = std::strerror(errno);
    return false;
  }
  out.write(kMagic, kMagicSize);
  out.put(char(v2 ? 2 : 1)).put(0);
  size_t length = header.size();
  for (int i = 0; i < (v2 ? 4 : 2); ++i)
    out.put(char((length >> (8 * i)) & 0xff));
  out << header;
  out.write(reinterpret_cast<const char *>(array.data.data()),
            std::streamsize(array.data.size()));
  if (!out.flush()) {
    error = std::strerror(errno);
    return false;
  }
  return true;
}
