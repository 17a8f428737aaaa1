//===- Generator.cpp - A random kernel from a seed ------------------------===//

#include "Generator.h"

#include "Families.h"
#include "Random.h"

using namespace difftest;

KernelCase difftest::generate(uint64_t seed) {
  Rng rng(seed);
  KernelCase c;
  switch (rng.weighted({4, 2, 1, 2.5, 1.5})) {
  case 0:
    c = elementwiseCase(rng);
    break;
  case 1:
    c = reduceCase(rng);
    break;
  case 2:
    c = softmaxCase(rng);
    break;
  case 3:
    c = dotCase(rng);
    break;
  default:
    c = atomicCase(rng);
    break;
  }
  c.seed = seed;
  return c;
}
