//===- BankConflicts.cpp - A model of shared-memory bank conflicts --------===//

#include "BankConflicts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;

int64_t mlir::tilegpu::countWavefronts(ArrayRef<int64_t> addresses,
                                       unsigned bytes) {
  constexpr int64_t kBanks = 32, kWordBytes = 4;
  size_t lanesPerPhase = std::min<size_t>(
      addresses.size(), 128 / std::max<unsigned>(bytes, kWordBytes));
  int64_t total = 0;
  for (size_t first = 0; first < addresses.size(); first += lanesPerPhase) {
    // The distinct words of the phase; each bank serves its words in turn.
    SmallVector<int64_t, 128> words;
    for (size_t lane = first;
         lane < std::min(addresses.size(), first + lanesPerPhase); ++lane)
      for (int64_t word = addresses[lane] / kWordBytes;
           word * kWordBytes < addresses[lane] + std::max(bytes, 1u); ++word)
        words.push_back(word);
    llvm::sort(words);
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int64_t perBank[kBanks] = {};
    int64_t ways = 1;
    for (int64_t word : words)
      ways = std::max(ways, ++perBank[word % kBanks]);
    total += ways;
  }
  return total;
}
