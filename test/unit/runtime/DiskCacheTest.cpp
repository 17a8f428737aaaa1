//===- DiskCacheTest.cpp - The JIT's on-disk cache (no GPU) ---------------===//
//
// What a process compiled, a later one finds; every input of the
// specialization changes the entry; a truncated or corrupt entry is
// rebuilt; 8 threads and 4 processes compiling the same kernel at once
// leave one intact entry.
//
//===----------------------------------------------------------------------===//

#include "tile/DiskCache.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tile;

namespace {

const char *kAdd = R"(import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
)";

/// A fresh, empty directory for one test.
std::string freshDirectory(const char *name) {
  std::string dir = ::testing::TempDir() + "tilec-cache-" + name + "-" +
                    std::to_string(getpid());
  std::string command = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

/// The names of the files in `dir`.
std::set<std::string> listFiles(const std::string &dir) {
  std::set<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *entry = readdir(d))
      if (entry->d_name[0] != '.')
        names.insert(entry->d_name);
    closedir(d);
  }
  return names;
}

std::vector<KernelArg> addArgs(uint64_t x = 0x1000, uint64_t y = 0x2000,
                               int32_t n = 100) {
  return {Ptr<float>(x), Ptr<float>(y), n};
}

JITOptions sm90(unsigned warps = 4) {
  JITOptions options;
  options.arch = "sm_90";
  options.numWarps = warps;
  return options;
}

TEST(DiskCache, EntriesRoundTripAndRejectWhatIsNotTheirs) {
  DiskCache cache(freshDirectory("roundtrip") + "/nested/dir");
  EXPECT_FALSE(cache.load("key").has_value());
  ASSERT_TRUE(cache.store("key", {"ptx\nwith end 3 lines", std::string(3, '\0')}));
  auto sections = cache.load("key");
  ASSERT_TRUE(sections.has_value());
  EXPECT_EQ(*sections, (std::vector<std::string>{"ptx\nwith end 3 lines",
                                                 std::string(3, '\0')}));
  EXPECT_FALSE(cache.load("another key").has_value());
  // A different key that lands on the same file (a collision) is a miss.
  std::rename(cache.pathOf("key").c_str(), cache.pathOf("other").c_str());
  EXPECT_FALSE(cache.load("other").has_value());
  // Off: no directory.
  EXPECT_FALSE(DiskCache("").store("key", {"x"}));
  EXPECT_FALSE(DiskCache("").load("key").has_value());
}

// The trailer's section count lies outside the checksum: a huge or wrong
// one is a miss, never an allocation of that many sections.
TEST(DiskCache, WrongSectionCountIsAMiss) {
  DiskCache cache(freshDirectory("count"));
  ASSERT_TRUE(cache.store("key", {"a", "b"}));
  std::string path = cache.pathOf("key");
  std::string data;
  {
    std::ifstream in(path, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t end = data.rfind("end 2 ");
  ASSERT_NE(end, std::string::npos);
  for (const char *count : {"999999999999999999", "3", "1"}) {
    std::string damaged = data.substr(0, end) + "end " + count +
                          data.substr(end + 5);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    EXPECT_FALSE(cache.load("key").has_value()) << count;
  }
}

TEST(DiskCache, DefaultDirectory) {
  setenv("TILEC_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/some/where");
  setenv("TILEC_CACHE_DIR", "", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "");
  unsetenv("TILEC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/xdg/tilec");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/user", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/home/user/.cache/tilec");
}

// A second JITFunction (a new process, as far as the cache can tell) finds
// the first one's kernel on disk and compiles nothing.
TEST(DiskCache, HitAfterRestart) {
  std::string dir = freshDirectory("restart");
  JITFunction first(kAdd, "add.tl");
  first.setCacheDirectory(dir);
  JITFunction::Compiled compiled = first.compile(addArgs(), {{"BLOCK", 128}}, sm90());
  EXPECT_FALSE(compiled.fromDiskCache);
  EXPECT_EQ(first.compileCount(), 1u);
  EXPECT_EQ(listFiles(dir).size(), 1u);

  JITFunction second(kAdd, "add.tl");
  second.setCacheDirectory(dir);
  JITFunction::Compiled cached = second.compile(addArgs(), {{"BLOCK", 128}}, sm90());
  EXPECT_TRUE(cached.fromDiskCache);
  EXPECT_EQ(second.compileCount(), 0u);
  EXPECT_EQ(cached.ptx, compiled.ptx);
  EXPECT_EQ(cached.metadata.toJSON(), compiled.metadata.toJSON());
}

// Editing a module the kernel imports recompiles it, as editing the kernel's
// own file does; so does moving the import path.
TEST(DiskCache, ImportedModulesAreInputs) {
  std::string dir = freshDirectory("imports");
  std::string package = dir + "-src/pkg";
  ASSERT_EQ(std::system(("mkdir -p '" + package + "'").c_str()), 0);
  std::ofstream(package + "/__init__.py") << "";
  auto writeHelper = [&](const char *offset) {
    std::ofstream(package + "/helpers.py", std::ios::trunc)
        << "import triton\n\n\n@triton.jit\ndef bump(x):\n    return x + "
        << offset << "\n";
  };
  const std::string kernel = R"(import triton
import triton.language as tl

from .helpers import bump


@triton.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, bump(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
)";
  std::ofstream(package + "/add.py") << kernel;
  auto compile = [&](std::vector<std::string> importPath = {}) {
    JITFunction f = JITFunction::fromFile(package + "/add.py", "",
                                          std::move(importPath));
    f.setCacheDirectory(dir);
    return f.compile(addArgs(), {{"BLOCK", 128}}, sm90());
  };
  writeHelper("1");
  JITFunction::Compiled first = compile();
  EXPECT_FALSE(first.fromDiskCache);
  EXPECT_TRUE(compile().fromDiskCache);
  writeHelper("2");
  JITFunction::Compiled edited = compile();
  EXPECT_FALSE(edited.fromDiskCache);
  EXPECT_NE(edited.ptx, first.ptx);
  EXPECT_TRUE(compile().fromDiskCache);
  EXPECT_FALSE(compile({dir + "-src"}).fromDiskCache);
  // A helper that is gone is a miss, and then the compile's error.
  std::remove((package + "/helpers.py").c_str());
  EXPECT_THROW(compile(), Error);
}

// Every input that changes the compiled kernel changes the entry.
TEST(DiskCache, KeyChangesWithEveryInput) {
  std::string dir = freshDirectory("keys");
  auto compileWith = [&](const char *source, std::vector<KernelArg> args,
                         Constexprs constexprs, JITOptions options) {
    JITFunction f(source, "add.tl");
    f.setCacheDirectory(dir);
    return f.compile(args, constexprs, options).fromDiskCache;
  };
  std::string edited = std::string(kAdd) + "\n# edited\n";
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, sm90()));
  EXPECT_TRUE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, sm90()));
  EXPECT_FALSE(compileWith(edited.c_str(), addArgs(), {{"BLOCK", 128}}, sm90()));
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 256}}, sm90()));
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, sm90(8)));
  JITOptions sm80 = sm90();
  sm80.arch = "sm_80";
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, sm80));
  JITOptions stages = sm90();
  stages.numStages = 2;
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, stages));
  JITOptions debug = sm90();
  debug.debug = true;
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, debug));
  // The cluster split: 0, which a launch decides by its grid, is 1 where
  // there is no grid (compile()), and finds 1's entry.
  JITOptions single = sm90();
  single.clusterSplitK = 1;
  EXPECT_TRUE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, single));
  JITOptions split = sm90();
  split.clusterSplitK = 2;
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, split));
  JITOptions producers = sm90();
  producers.warpSpecialize = WarpSpecialize::Off;
  EXPECT_FALSE(compileWith(kAdd, addArgs(), {{"BLOCK", 128}}, producers));
  // Alignment (an unaligned x) and divisibility (n = 98: 2 where 100 is 4)
  // are specializations, but only as far as they can change the code: 96
  // and 100 are both 16 bytes of fp32 (tile/Specialization.h; 96's whole
  // 32-byte sectors change no code of this kernel: KernelMetadata::
  // rowSectorsMatter).
  EXPECT_FALSE(compileWith(kAdd, addArgs(0x1004), {{"BLOCK", 128}}, sm90()));
  EXPECT_FALSE(compileWith(kAdd, addArgs(0x1000, 0x2000, 98), {{"BLOCK", 128}}, sm90()));
  EXPECT_TRUE(compileWith(kAdd, addArgs(0x1000, 0x2000, 96), {{"BLOCK", 128}}, sm90()));
  // Another element type.
  EXPECT_FALSE(compileWith(kAdd, {Ptr<fp16>(uint64_t(0x1000)),
                                  Ptr<fp16>(uint64_t(0x2000)), int32_t(100)},
                           {{"BLOCK", 128}}, sm90()));
  EXPECT_EQ(listFiles(dir).size(), 12u);
}

// A truncated entry and one with a flipped byte are misses; the compile
// that follows writes the entry whole again.
TEST(DiskCache, DamagedEntryIsRebuilt) {
  std::string dir = freshDirectory("damaged");
  JITFunction f(kAdd, "add.tl");
  f.setCacheDirectory(dir);
  std::string ptx = f.compile(addArgs(), {{"BLOCK", 128}}, sm90()).ptx;
  std::string path = dir + "/" + *listFiles(dir).begin();
  struct stat whole;
  ASSERT_EQ(stat(path.c_str(), &whole), 0);

  ASSERT_EQ(truncate(path.c_str(), whole.st_size / 2), 0);
  JITFunction::Compiled rebuilt = f.compile(addArgs(), {{"BLOCK", 128}}, sm90());
  EXPECT_FALSE(rebuilt.fromDiskCache);
  EXPECT_EQ(rebuilt.ptx, ptx);
  struct stat after;
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_size, whole.st_size);

  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(whole.st_size / 3);
    file.put('#');
  }
  EXPECT_FALSE(f.compile(addArgs(), {{"BLOCK", 128}}, sm90()).fromDiskCache);
  EXPECT_TRUE(f.compile(addArgs(), {{"BLOCK", 128}}, sm90()).fromDiskCache);
  EXPECT_EQ(f.compileCount(), 3u);
}

/// Compiles the kernel from `threads` threads at once, each through its own
/// JITFunction; true when every one got the same PTX.
bool compileConcurrently(const std::string &dir, unsigned threads) {
  std::vector<std::string> ptx(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      JITFunction f(kAdd, "add.tl");
      f.setCacheDirectory(dir);
      ptx[t] = f.compile(addArgs(), {{"BLOCK", 128}}, sm90()).ptx;
    });
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &text : ptx)
    if (text.empty() || text != ptx.front())
      return false;
  return true;
}

/// One entry, no temporary files left, and it loads intact.
void expectOneIntactEntry(const std::string &dir) {
  std::set<std::string> files = listFiles(dir);
  ASSERT_EQ(files.size(), 1u) << "left: " << files.size() << " files";
  EXPECT_NE(files.begin()->find(".tlc"), std::string::npos);
  EXPECT_EQ(files.begin()->find(".tmp"), std::string::npos);
  JITFunction f(kAdd, "add.tl");
  f.setCacheDirectory(dir);
  EXPECT_TRUE(f.compile(addArgs(), {{"BLOCK", 128}}, sm90()).fromDiskCache);
}

TEST(DiskCache, EightThreadsLeaveOneEntry) {
  std::string dir = freshDirectory("threads");
  EXPECT_TRUE(compileConcurrently(dir, 8));
  expectOneIntactEntry(dir);
}

// Four processes of two threads each (forked before this process compiles
// anything, so no compiler state crosses the fork).
TEST(DiskCache, FourProcessesLeaveOneEntry) {
  std::string dir = freshDirectory("processes");
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0)
      _exit(compileConcurrently(dir, 2) ? 0 : 1);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  expectOneIntactEntry(dir);
}

} // namespace
