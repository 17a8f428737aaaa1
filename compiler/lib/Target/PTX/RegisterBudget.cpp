//===- RegisterBudget.cpp - How many registers ptxas may use -------------===//

#include "tilec/Target/PTX/RegisterBudget.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace llvm;

unsigned tilec::registerBudget(const SMLimits &sm, unsigned threads,
                               unsigned sharedBytes, unsigned estimate) {
  constexpr unsigned kMostPerThread = 255, kLeastEstimate = 64;
  // Under 64 registers the steps between occupancies are narrower than the
  // estimate's error: a budget a step too low makes ptxas spill, one a step
  // too high costs a block per SM.
  if (estimate < kLeastEstimate)
    return 0;
  // An estimate at most 5% over a step counts as that step.
  unsigned blocks = std::max(blocksPerSM(sm, threads, estimate, sharedBytes),
                             blocksPerSM(sm, threads, estimate * 100 / 105,
                                         sharedBytes));
  if (blocks == 0)
    return 0;
  unsigned warps = (threads + 31) / 32;
  // The most registers, a multiple of 8 (a warp's 256), with which
  // `blocks` blocks still fit.
  unsigned budget = sm.registers / (blocks * warps) / 256 * 8;
  return budget < kMostPerThread ? budget : 0;
}

namespace {

/// The 32-bit registers a value of type `type` occupies; predicates (i1)
/// live in predicate registers and cost none.
unsigned registersOf(Type *type, const DataLayout &layout) {
  if (type->isVoidTy() || type->isLabelTy() || type->isTokenTy() ||
      type->isMetadataTy())
    return 0;
  if (auto *structType = dyn_cast<StructType>(type)) {
    unsigned total = 0;
    for (Type *element : structType->elements())
      total += registersOf(element, layout);
    return total;
  }
  if (type->getScalarType()->isIntegerTy(1))
    return 0;
  // Shared memory addresses are 32-bit in the SASS, whatever LLVM's width.
  if (type->isPointerTy() && type->getPointerAddressSpace() == 3)
    return 1;
  uint64_t bits = layout.getTypeSizeInBits(type).getFixedValue();
  return unsigned((bits + 31) / 32);
}

/// An instruction ptxas may schedule anywhere before its first user: it
/// neither reads memory nor has effects, and all its users follow it in
/// its block.
bool isMovable(const Instruction &inst) {
  if (isa<PHINode>(inst) || inst.isTerminator() || inst.mayHaveSideEffects() ||
      inst.mayReadFromMemory() || isa<AllocaInst>(inst) || inst.use_empty())
    return false;
  for (const User *user : inst.users()) {
    auto *userInst = dyn_cast<Instruction>(user);
    if (!userInst || isa<PHINode>(userInst) ||
        userInst->getParent() != inst.getParent())
      return false;
  }
  return true;
}

/// A value that needs no register of its own while it waits for its users:
/// a kernel's parameters stay in the constant bank, where instructions read
/// them, and an integer operation of one value with a constant (an address
/// offset, a shift) is folded into its users or redone beside them.
bool isFree(const Value *value) {
  if (isa<Argument>(value))
    return true;
  auto *binary = dyn_cast<BinaryOperator>(value);
  return binary && binary->getType()->isIntOrIntVectorTy() &&
         (isa<Constant>(binary->getOperand(0)) ||
          isa<Constant>(binary->getOperand(1)));
}

/// The liveness of a function's values, in the order of a schedule that
/// places every movable instruction just before its first user.
class PressureSweep {
public:
  explicit PressureSweep(const Function &function)
      : function(function), layout(function.getParent()->getDataLayout()) {
    number();
    computeLiveness();
  }

  unsigned maxPressure() const {
    unsigned most = 0;
    for (const BasicBlock &block : function)
      most = std::max(most, maxPressure(block));
    return most;
  }

private:
  /// Numbers the values that occupy registers (arguments and instructions)
  /// and each instruction's place in the schedule.
  void number() {
    for (const Argument &argument : function.args())
      addValue(&argument);
    for (const BasicBlock &block : function) {
      unsigned index = 0;
      for (const Instruction &inst : block) {
        addValue(&inst);
        if (!isa<PHINode>(inst))
          position[&inst] = ++index;
      }
      // Last users first, so a user's place is known before its operands'.
      for (const Instruction &inst : llvm::reverse(block)) {
        if (!isMovable(inst))
          continue;
        unsigned first = position[&inst];
        bool placed = false;
        for (const User *user : inst.users()) {
          unsigned at = position[cast<Instruction>(user)];
          first = placed ? std::min(first, at) : at;
          placed = true;
        }
        position[&inst] = first;
      }
    }
  }

  void addValue(const Value *value) {
    if (isFree(value))
      return;
    unsigned cost = registersOf(value->getType(), layout);
    if (cost == 0)
      return;
    ids[value] = unsigned(costs.size());
    costs.push_back(cost);
  }

  int idOf(const Value *value) const {
    auto it = ids.find(value);
    return it == ids.end() ? -1 : int(it->second);
  }

  /// Live-in and live-out sets of every block, by the usual backward
  /// dataflow; a phi's operand is used at the end of its incoming block.
  void computeLiveness() {
    unsigned n = unsigned(costs.size());
    DenseMap<const BasicBlock *, BitVector> upward, defined, phiDefs;
    for (const BasicBlock &block : function) {
      BitVector &up = upward[&block], &defs = defined[&block],
                &phis = phiDefs[&block];
      up.resize(n);
      defs.resize(n);
      phis.resize(n);
      for (const Instruction &inst : block) {
        if (int id = idOf(&inst); id >= 0) {
          defs.set(id);
          if (isa<PHINode>(inst))
            phis.set(id);
        }
        if (isa<PHINode>(inst))
          continue;
        for (const Value *operand : inst.operands())
          if (int id = idOf(operand); id >= 0 && !defs.test(id))
            up.set(id);
      }
      liveIn[&block] = BitVector(n);
      liveOut[&block] = BitVector(n);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const BasicBlock &block : llvm::reverse(function)) {
        BitVector out(n);
        for (const BasicBlock *successor : successors(&block)) {
          BitVector through = liveIn[successor];
          through.reset(phiDefs[successor]);
          out |= through;
          for (const PHINode &phi : successor->phis())
            if (int id = idOf(phi.getIncomingValueForBlock(&block)); id >= 0)
              out.set(id);
        }
        BitVector in = out;
        in.reset(defined[&block]);
        in |= upward[&block];
        in |= phiDefs[&block];
        if (out != liveOut[&block] || in != liveIn[&block]) {
          liveOut[&block] = std::move(out);
          liveIn[&block] = std::move(in);
          changed = true;
        }
      }
    }
  }

  /// The most registers live after any instruction of `block`.
  unsigned maxPressure(const BasicBlock &block) const {
    unsigned end = 0;
    for (const Instruction &inst : block)
      if (!isa<PHINode>(inst))
        end = std::max(end, position.lookup(&inst));
    ++end;
    // Each value is live from its definition (or the block's start) to its
    // last use in the block (or the block's end, when live out).
    DenseMap<unsigned, unsigned> start, last;
    const BitVector &in = liveIn.find(&block)->second;
    const BitVector &out = liveOut.find(&block)->second;
    for (unsigned id : in.set_bits())
      start[id] = 0;
    for (const Instruction &inst : block) {
      if (isa<PHINode>(inst))
        continue;
      unsigned at = position.lookup(&inst);
      if (int id = idOf(&inst); id >= 0)
        start[id] = at;
      for (const Value *operand : inst.operands())
        if (int id = idOf(operand); id >= 0)
          last[id] = std::max(last.lookup(id), at);
    }
    SmallVector<int> delta(end + 1, 0);
    for (auto [id, from] : start) {
      unsigned to = out.test(id) ? end : last.lookup(id);
      if (to <= from)
        continue;
      delta[from] += int(costs[id]);
      delta[to] -= int(costs[id]);
    }
    int live = 0, most = 0;
    for (int change : delta) {
      live += change;
      most = std::max(most, live);
    }
    return unsigned(most);
  }

  const Function &function;
  const DataLayout &layout;
  DenseMap<const Value *, unsigned> ids;
  SmallVector<unsigned> costs;
  DenseMap<const Instruction *, unsigned> position;
  DenseMap<const BasicBlock *, BitVector> liveIn, liveOut;
};

/// The product of the "nvvm.reqntid" dimensions ("256,1,1"); 0 without.
unsigned requiredThreads(const Function &kernel) {
  Attribute attribute = kernel.getFnAttribute("nvvm.reqntid");
  if (!attribute.isValid())
    return 0;
  unsigned threads = 1;
  SmallVector<StringRef> dims;
  attribute.getValueAsString().split(dims, ',');
  for (StringRef dim : dims) {
    unsigned extent = 0;
    if (dim.trim().getAsInteger(10, extent) || extent == 0)
      return 0;
    threads *= extent;
  }
  return threads;
}

} // namespace

unsigned tilec::estimateRegisters(const Function &kernel) {
  return PressureSweep(kernel).maxPressure();
}

void tilec::setRegisterBudget(Function &kernel, StringRef arch,
                              unsigned sharedBytes) {
  unsigned threads = requiredThreads(kernel);
  if (threads == 0 || kernel.hasFnAttribute("nvvm.maxnreg"))
    return;
  unsigned estimate = estimateRegisters(kernel);
  if (unsigned budget =
          registerBudget(smLimits(arch), threads, sharedBytes, estimate))
    kernel.addFnAttr("nvvm.maxnreg", std::to_string(budget));
}
