//===- DiskCache.cpp - Compiled kernels kept across processes -------------===//
//
// An entry's layout, every length in decimal bytes:
//
//   tilec-cache 2\n
//   <length>\n<key>           then the dependencies and each section the
//                              same way
//   end <section count> <FNV-1a 64 of everything before "end", in hex>\n
//
// The dependencies section is itself a list of sections: a file's path,
// then its contents, for each file the entry was made from besides its key.
//
//===----------------------------------------------------------------------===//

#include "tile/DiskCache.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace tile;

namespace {

constexpr const char *kMagic = "tilec-cache 2\n";

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", (unsigned long long)value);
  return text;
}

void appendSection(std::string &out, const std::string &bytes) {
  out += std::to_string(bytes.size());
  out += '\n';
  out += bytes;
}

/// Reads one length-prefixed section at `pos`; false past the end or on a
/// malformed length.
bool readSection(const std::string &data, size_t &pos, std::string &out) {
  size_t newline = data.find('\n', pos);
  if (newline == std::string::npos || newline == pos || newline - pos > 19)
    return false;
  uint64_t length = 0;
  for (size_t i = pos; i < newline; ++i) {
    if (data[i] < '0' || data[i] > '9')
      return false;
    length = length * 10 + uint64_t(data[i] - '0');
  }
  pos = newline + 1;
  if (length > data.size() - pos)
    return false;
  out.assign(data, pos, size_t(length));
  pos += size_t(length);
  return true;
}

/// The bytes of the file at `path`; none where it cannot be read.
std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  if (path.empty())
    return false;
  struct stat info;
  if (stat(path.c_str(), &info) == 0)
    return S_ISDIR(info.st_mode);
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0 &&
      !makeDirectories(path.substr(0, slash)))
    return false;
  return mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}

} // namespace

std::string DiskCache::defaultDirectory() {
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tilec";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tilec";
  return "";
}

DiskCache::DiskCache(std::string directory) : directory_(std::move(directory)) {}

std::string DiskCache::pathOf(const std::string &key) const {
  return directory_ + "/" + hex(fnv1a(key)) + ".tlc";
}

std::optional<std::vector<std::string>>
DiskCache::load(const std::string &key) const {
  if (directory_.empty())
    return std::nullopt;
  std::optional<std::string> entry = readFile(pathOf(key));
  if (!entry)
    return std::nullopt;
  const std::string &data = *entry;
  size_t magic = std::char_traits<char>::length(kMagic);
  if (data.compare(0, magic, kMagic) != 0)
    return std::nullopt;
  size_t end = data.rfind("end ");
  if (end == std::string::npos || end < magic)
    return std::nullopt;
  std::istringstream trailer(data.substr(end + 4));
  size_t count = 0;
  std::string checksum;
  if (!(trailer >> count >> checksum) ||
      checksum != hex(fnv1a(data.substr(0, end))))
    return std::nullopt;
  size_t pos = magic;
  std::string storedKey, dependencies;
  if (!readSection(data, pos, storedKey) || storedKey != key ||
      !readSection(data, pos, dependencies))
    return std::nullopt;
  for (size_t at = 0; at < dependencies.size();) {
    std::string path, contents;
    if (!readSection(dependencies, at, path) ||
        !readSection(dependencies, at, contents) || readFile(path) != contents)
      return std::nullopt;
  }
  // The count lies outside the checksum: read what is there, then compare,
  // rather than trusting it with an allocation.
  std::vector<std::string> sections;
  while (pos < end) {
    if (!readSection(data, pos, sections.emplace_back()))
      return std::nullopt;
  }
  if (pos != end || sections.size() != count)
    return std::nullopt;
  return sections;
}

bool DiskCache::store(const std::string &key,
                      const std::vector<std::string> &sections,
                      const std::vector<std::pair<std::string, std::string>>
                          &dependencies) const {
  if (directory_.empty() || !makeDirectories(directory_))
    return false;
  std::string files;
  for (const auto &[path, contents] : dependencies) {
    appendSection(files, path);
    appendSection(files, contents);
  }
  std::string data = kMagic;
  appendSection(data, key);
  appendSection(data, files);
  for (const std::string &section : sections)
    appendSection(data, section);
  data += "end " + std::to_string(sections.size()) + " " + hex(fnv1a(data)) +
          "\n";
  // A file no other writer uses, renamed over the entry in one step.
  static std::atomic<unsigned> counter{0};
  std::ostringstream temp;
  temp << pathOf(key) << ".tmp." << getpid() << "."
       << std::hash<std::thread::id>()(std::this_thread::get_id()) << "."
       << counter++;
  {
    std::ofstream out(temp.str(), std::ios::binary | std::ios::trunc);
    if (!out || !out.write(data.data(), std::streamsize(data.size())) ||
        !out.flush()) {
      std::remove(temp.str().c_str());
      return false;
    }
  }
  if (std::rename(temp.str().c_str(), pathOf(key).c_str()) != 0) {
    std::remove(temp.str().c_str());
    return false;
  }
  return true;
}
