//===- DiskCache.h - Compiled kernels kept across processes -----*- C++ -*-===//
//
// The JIT keeps what it compiles on disk, so that a new process launches a
// kernel it has seen before without compiling it. An entry is a file named
// after a 64-bit hash of its key (the source, the specialization, the
// options, the target and tilec's version); it holds the whole key, so a
// hash collision is a miss, the contents of the other files it was made
// from (the modules a kernel imports), so editing one is a miss, and a
// checksum of everything, so a truncated or corrupt entry is a miss too
// (and the next store replaces it). Stores
// write a file of their own and rename it over the entry, so readers see a
// whole entry or none, and processes and threads that compile the same
// kernel at once leave one entry.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISKCACHE_H
#define TILE_DISKCACHE_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tile {

class DiskCache {
public:
  /// Where the JIT caches: $TILEC_CACHE_DIR; else $XDG_CACHE_HOME/tilec;
  /// else $HOME/.cache/tilec. Empty (no caching) when TILEC_CACHE_DIR is
  /// set to "" or none of them is set.
  static std::string defaultDirectory();

  /// A cache in `directory`, created on the first store.
  explicit DiskCache(std::string directory);

  const std::string &directory() const { return directory_; }

  /// The entry's path for `key`.
  std::string pathOf(const std::string &key) const;

  /// The sections stored under `key`, if its entry is there and intact and
  /// each file it depends on still holds what it held when stored.
  std::optional<std::vector<std::string>> load(const std::string &key) const;

  /// Stores `sections` under `key`, atomically; false when the directory or
  /// file cannot be written (the cache then just misses). `dependencies`
  /// are the files the sections were made from besides the key (a kernel's
  /// imported modules), each path with the contents it had then: a load
  /// misses once one of them holds something else.
  bool store(const std::string &key, const std::vector<std::string> &sections,
             const std::vector<std::pair<std::string, std::string>>
                 &dependencies = {}) const;

private:
  std::string directory_;
};

} // namespace tile

#endif // TILE_DISKCACHE_H
