//===- BankConflicts.cpp - A model of shared-memory bank conflicts --------===//

#include "BankConflicts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;

int64_t mlir::tilegpu::countWavefronts(ArrayRef<int64_t> addresses,
                                       unsigned bytes) {
  constexpr unsigned kBanks = 32, kWordBytes = 4;
  unsigned lanesPerPhase =
      std::min<unsigned>(addresses.size(), 128 / std::max(bytes, kWordBytes));
  int64_t total = 0;
  for (size_t first = 0; first < addresses.size(); first += lanesPerPhase) {
    llvm::SmallDenseSet<int64_t, 64> words[kBanks];
    for (size_t lane = first;
         lane < std::min(addresses.size(), first + lanesPerPhase); ++lane)
      for (int64_t word = addresses[lane] / kWordBytes;
           word * kWordBytes < addresses[lane] + std::max(bytes, 1u); ++word)
        words[word % kBanks].insert(word);
    size_t ways = 1;
    for (const auto &bank : words)
      ways = std::max<size_t>(ways, bank.size());
    total += ways;
  }
  return total;
}
