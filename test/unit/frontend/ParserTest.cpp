//===- ParserTest.cpp - Tests of the .tl parser and AST dump --------------===//

#include "tilec/Frontend/ASTDump.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace tilec;
using namespace tilec::ast;
using llvm::cast;
using llvm::isa;

namespace {

std::unique_ptr<Module> parseOk(llvm::StringRef src) {
  SourceError error;
  std::unique_ptr<Module> module = parseModule(src, "test.tl", error);
  EXPECT_TRUE(module) << "unexpected error " << error.loc.line << ":"
                      << error.loc.col << ": " << error.message;
  return module;
}

/// The error of parsing `src` as "L:C: message", or "ok".
std::string parseError(llvm::StringRef src) {
  SourceError error;
  std::unique_ptr<Module> module = parseModule(src, "test.tl", error);
  if (module)
    return "ok";
  EXPECT_TRUE(error.loc.file && *error.loc.file == "test.tl");
  return std::to_string(error.loc.line) + ":" + std::to_string(error.loc.col) +
         ": " + error.message;
}

std::string dump(llvm::StringRef src) {
  std::unique_ptr<Module> module = parseOk(src);
  if (!module)
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  dumpAST(*module, os);
  return out;
}

/// A compact prefix form of an expression, to check tree shapes.
std::string sexpr(const Expr &e) {
  auto bin = [](llvm::StringRef op, const Expr &l, const Expr &r) {
    return "(" + op.str() + " " + sexpr(l) + " " + sexpr(r) + ")";
  };
  switch (e.kind) {
  case ExprKind::Name: return cast<NameExpr>(e).name;
  case ExprKind::Int: return std::to_string(cast<IntExpr>(e).value);
  case ExprKind::Float: return "float";
  case ExprKind::Bool: return cast<BoolExpr>(e).value ? "True" : "False";
  case ExprKind::None: return "None";
  case ExprKind::String: return "'" + cast<StringExpr>(e).value + "'";
  case ExprKind::Attribute: {
    const auto &a = cast<AttributeExpr>(e);
    return sexpr(*a.base) + "." + a.attr;
  }
  case ExprKind::Call: {
    const auto &c = cast<CallExpr>(e);
    std::string s = "(call " + sexpr(*c.callee);
    for (const ExprPtr &a : c.args)
      s += " " + sexpr(*a);
    for (const Keyword &k : c.keywords)
      s += " " + k.name + "=" + sexpr(*k.value);
    return s + ")";
  }
  case ExprKind::Subscript: {
    const auto &sub = cast<SubscriptExpr>(e);
    std::string s = "(sub " + sexpr(*sub.base);
    for (const ExprPtr &i : sub.indices)
      s += " " + sexpr(*i);
    return s + ")";
  }
  case ExprKind::Slice: {
    const auto &sl = cast<SliceExpr>(e);
    auto part = [](const ExprPtr &p) { return p ? sexpr(*p) : "_"; };
    return "(slice " + part(sl.lower) + " " + part(sl.upper) + " " +
           part(sl.step) + ")";
  }
  case ExprKind::Tuple: {
    const auto &t = cast<TupleExpr>(e);
    std::string s = t.isList ? "[list" : "(tuple";
    for (const ExprPtr &el : t.elements)
      s += " " + sexpr(*el);
    return s + (t.isList ? "]" : ")");
  }
  case ExprKind::Unary: {
    const auto &u = cast<UnaryExpr>(e);
    const char *ops[] = {"neg", "pos", "inv", "not"};
    return "(" + std::string(ops[static_cast<int>(u.op)]) + " " +
           sexpr(*u.operand) + ")";
  }
  case ExprKind::Binary: {
    const auto &b = cast<BinaryExpr>(e);
    const char *ops[] = {"+", "-", "*", "/",  "//", "%",  "**",
                         "@", "&", "|", "^", "<<", ">>"};
    return bin(ops[static_cast<int>(b.op)], *b.lhs, *b.rhs);
  }
  case ExprKind::Compare: {
    const auto &c = cast<CompareExpr>(e);
    const char *ops[] = {"<", "<=", ">",     ">=", "==",
                         "!=", "is", "isnot", "in", "notin"};
    return bin(ops[static_cast<int>(c.op)], *c.lhs, *c.rhs);
  }
  case ExprKind::BoolOp: {
    const auto &b = cast<BoolOpExpr>(e);
    return bin(b.op == BoolOpKind::And ? "and" : "or", *b.lhs, *b.rhs);
  }
  case ExprKind::IfExp: {
    const auto &i = cast<IfExpExpr>(e);
    return "(ifexp " + sexpr(*i.cond) + " " + sexpr(*i.thenValue) + " " +
           sexpr(*i.elseValue) + ")";
  }
  case ExprKind::FString: {
    const auto &f = cast<FStringExpr>(e);
    std::string s = "(fstring '" + f.texts.front() + "'";
    for (size_t i = 0; i < f.fields.size(); ++i)
      s += " " + sexpr(*f.fields[i].value) + " '" + f.texts[i + 1] + "'";
    return s + ")";
  }
  case ExprKind::Dict: {
    const auto &d = cast<DictExpr>(e);
    std::string s = "(dict";
    for (size_t i = 0; i < d.keys.size(); ++i)
      s += " " + (d.keys[i] ? sexpr(*d.keys[i]) : "**") + " " +
           sexpr(*d.values[i]);
    return s + ")";
  }
  case ExprKind::Lambda: {
    const auto &l = cast<LambdaExpr>(e);
    std::string s = "(lambda";
    for (const std::string &param : l.params)
      s += " " + param;
    return s + " " + sexpr(*l.body) + ")";
  }
  case ExprKind::Comprehension: {
    const auto &c = cast<ComprehensionExpr>(e);
    static const char *const results[] = {"list", "gen", "dict", "set"};
    std::string s = std::string("(") + results[int(c.result)] + "-comp " +
                    (c.key ? sexpr(*c.key) + ": " : "") + sexpr(*c.element);
    for (const ComprehensionClause &clause : c.clauses) {
      s += " for " + sexpr(*clause.target) + " in " + sexpr(*clause.iter);
      for (const ExprPtr &condition : clause.conditions)
        s += " if " + sexpr(*condition);
    }
    return s + ")";
  }
  case ExprKind::Starred: {
    const auto &st = cast<StarredExpr>(e);
    return (st.isDouble ? "**" : "*") + sexpr(*st.value);
  }
  case ExprKind::Host:
    return "<" + cast<HostExpr>(e).what + ">";
  }
  return "?";
}

/// Parses `x = <src>` at module level and returns the value's shape.
std::string expr(const std::string &src) {
  std::unique_ptr<Module> module = parseOk("x = " + src + "\n");
  if (!module || module->globals.size() != 1)
    return "<parse failed>";
  return sexpr(*module->globals[0]->value);
}

/// Parses `src` as the body of a kernel and returns its statements; its
/// first line is line 3.
Block body(const std::string &src) {
  std::string text = "@triton.jit\ndef f():\n";
  llvm::StringRef rest = src;
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    text += "    " + line.str() + "\n";
    rest = tail;
  }
  std::unique_ptr<Module> module = parseOk(text);
  if (!module || module->functions.size() != 1)
    return {};
  return std::move(module->functions[0].body);
}

const char *kAddKernel = R"(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)
)";

TEST(ParserTest, AddKernelDump) {
  EXPECT_EQ(dump(kAddKernel), R"(Module
  Import triton as triton @1:1
  Import triton.language as tl @2:1
  FunctionDef add_kernel @5:1
    Decorator
      Attribute jit @4:9
        Name triton @4:2
    Param x_ptr @5:16
    Param y_ptr @5:23
    Param out_ptr @5:30
    Param n_elements @5:39
    Param BLOCK_SIZE @5:51
      Annotation
        Attribute constexpr @5:66
          Name tl @5:63
    Assign @6:5
      Target
        Name pid @6:5
      Call @6:11
        Attribute program_id @6:14
          Name tl @6:11
        Keyword axis @6:25
          Int 0 @6:30
    Assign @7:5
      Target
        Name block_start @7:5
      Binary * @7:23
        Name pid @7:19
        Name BLOCK_SIZE @7:25
    Assign @8:5
      Target
        Name offsets @8:5
      Binary + @8:27
        Name block_start @8:15
        Call @8:29
          Attribute arange @8:32
            Name tl @8:29
          Int 0 @8:39
          Name BLOCK_SIZE @8:42
    Assign @9:5
      Target
        Name mask @9:5
      Compare < @9:20
        Name offsets @9:12
        Name n_elements @9:22
    Assign @10:5
      Target
        Name x @10:5
      Call @10:9
        Attribute load @10:12
          Name tl @10:9
        Binary + @10:23
          Name x_ptr @10:17
          Name offsets @10:25
        Keyword mask @10:34
          Name mask @10:39
    Assign @11:5
      Target
        Name y @11:5
      Call @11:9
        Attribute load @11:12
          Name tl @11:9
        Binary + @11:23
          Name y_ptr @11:17
          Name offsets @11:25
        Keyword mask @11:34
          Name mask @11:39
    Assign @12:5
      Target
        Name output @12:5
      Binary + @12:16
        Name x @12:14
        Name y @12:18
    Expr @13:5
      Call @13:5
        Attribute store @13:8
          Name tl @13:5
        Binary + @13:22
          Name out_ptr @13:14
          Name offsets @13:24
        Name output @13:33
        Keyword mask @13:41
          Name mask @13:46
)");
}

TEST(ParserTest, AddKernelShape) {
  std::unique_ptr<Module> module = parseOk(kAddKernel);
  ASSERT_TRUE(module);
  ASSERT_EQ(module->imports.size(), 2u);
  EXPECT_EQ(module->imports[1].module, "triton.language");
  EXPECT_EQ(module->imports[1].name, "");
  EXPECT_EQ(module->imports[1].alias, "tl");
  ASSERT_EQ(module->functions.size(), 1u);
  const FunctionDef &fn = module->functions[0];
  EXPECT_EQ(fn.name, "add_kernel");
  ASSERT_EQ(fn.decorators.size(), 1u);
  EXPECT_EQ(sexpr(*fn.decorators[0]), "triton.jit");
  ASSERT_EQ(fn.params.size(), 5u);
  EXPECT_EQ(fn.params[4].name, "BLOCK_SIZE");
  ASSERT_TRUE(fn.params[4].annotation);
  EXPECT_EQ(sexpr(*fn.params[4].annotation), "tl.constexpr");
  EXPECT_FALSE(fn.params[0].annotation);
  ASSERT_EQ(fn.body.size(), 8u);
  const auto *first = llvm::dyn_cast<AssignStmt>(fn.body[0].get());
  ASSERT_TRUE(first);
  EXPECT_EQ(sexpr(*first->value), "(call tl.program_id axis=0)");
  EXPECT_EQ(sexpr(*cast<AssignStmt>(*fn.body[2]).value),
            "(+ block_start (call tl.arange 0 BLOCK_SIZE))");
  EXPECT_EQ(sexpr(*cast<ExprStmt>(*fn.body[7]).value),
            "(call tl.store (+ out_ptr offsets) output mask=mask)");
  EXPECT_EQ(*fn.loc.file, "test.tl");
  EXPECT_EQ(fn.loc.file, module->file);
}

TEST(ParserTest, Precedence) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("-x ** 2"), "(neg (** x 2))");
  EXPECT_EQ(expr("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(expr("2 ** -1"), "(** 2 (neg 1))");
  EXPECT_EQ(expr("a | b ^ c & d << 1 + 2"),
            "(| a (^ b (& c (<< d (+ 1 2)))))");
  EXPECT_EQ(expr("a @ b // c % d / e"), "(/ (% (// (@ a b) c) d) e)");
  EXPECT_EQ(expr("~a + -b"), "(+ (inv a) (neg b))");
  EXPECT_EQ(expr("a < b + 1"), "(< a (+ b 1))");
  EXPECT_EQ(expr("not a == b"), "(not (== a b))");
  EXPECT_EQ(expr("a or b and not c"), "(or a (and b (not c)))");
  EXPECT_EQ(expr("a and b and c"), "(and (and a b) c)");
  EXPECT_EQ(expr("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(expr("a if c or d else b if e else f"),
            "(ifexp (or c d) a (ifexp e b f))");
  EXPECT_EQ(expr("a not in b"), "(notin a b)");
  EXPECT_EQ(expr("a is not None"), "(isnot a None)");
  EXPECT_EQ(expr("a is None"), "(is a None)");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(ParserTest, BinaryLocationIsOperator) {
  std::unique_ptr<Module> module = parseOk("x = a +  b\n");
  ASSERT_TRUE(module);
  const Expr &value = *module->globals[0]->value;
  EXPECT_EQ(value.loc.line, 1u);
  EXPECT_EQ(value.loc.col, 7u);
}

TEST(ParserTest, Atoms) {
  EXPECT_EQ(expr("'a' \"b\"  'c'"), "'abc'");
  EXPECT_EQ(expr("True"), "True");
  EXPECT_EQ(expr("None"), "None");
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a, b)"), "(tuple a b)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("[]"), "[list]");
  EXPECT_EQ(expr("[a, b,]"), "[list a b]");
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("0x7fffffffffffffff"), "9223372036854775807");
  EXPECT_EQ(expr("0b101 + 0o17 + 1_000"), "(+ (+ 5 15) 1000)");
  std::unique_ptr<Module> module = parseOk("x = 1.5e3\ny = .25\n");
  ASSERT_TRUE(module);
  EXPECT_DOUBLE_EQ(cast<FloatExpr>(*module->globals[0]->value).value, 1500.0);
  EXPECT_DOUBLE_EQ(cast<FloatExpr>(*module->globals[1]->value).value, 0.25);
}

TEST(ParserTest, Subscripts) {
  EXPECT_EQ(expr("a[:, None]"), "(sub a (slice _ _ _) None)");
  EXPECT_EQ(expr("a[None, :]"), "(sub a None (slice _ _ _))");
  EXPECT_EQ(expr("a[1:2:3]"), "(sub a (slice 1 2 3))");
  EXPECT_EQ(expr("a[::2]"), "(sub a (slice _ _ 2))");
  EXPECT_EQ(expr("a[i:]"), "(sub a (slice i _ _))");
  EXPECT_EQ(expr("a[i, j]"), "(sub a i j)");
  EXPECT_EQ(expr("a[i][j]"), "(sub (sub a i) j)");
  EXPECT_EQ(expr("x.y[0].z(1)"), "(call (sub x.y 0).z 1)");
  std::unique_ptr<Module> module = parseOk("x = abc[:, None]\n");
  ASSERT_TRUE(module);
  const Expr &sub = *module->globals[0]->value;
  EXPECT_EQ(sub.loc.col, 8u); // the '['
}

TEST(ParserTest, Calls) {
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(a, b, c=1, d=e + 1,)"), "(call f a b c=1 d=(+ e 1))");
  EXPECT_EQ(expr("tl.zeros((M, N), dtype=tl.float32)"),
            "(call tl.zeros (tuple M N) dtype=tl.float32)");
  EXPECT_EQ(expr("f(a == b)"), "(call f (== a b))");
  EXPECT_EQ(expr("f(a)(b)"), "(call (call f a) b)");
}

TEST(ParserTest, Assignments) {
  Block b = body("a, b = f()\nx = y = 1\nz = 1, 2\nacc += a * b\nn: tl.constexpr = 4\n"
                 "(c, d) = e\nt[0] = o.p = 2");
  ASSERT_EQ(b.size(), 7u);
  const auto &tuple = cast<AssignStmt>(*b[0]);
  ASSERT_EQ(tuple.targets.size(), 1u);
  EXPECT_EQ(sexpr(*tuple.targets[0]), "(tuple a b)");
  EXPECT_EQ(sexpr(*tuple.value), "(call f)");

  const auto &chained = cast<AssignStmt>(*b[1]);
  ASSERT_EQ(chained.targets.size(), 2u);
  EXPECT_EQ(sexpr(*chained.targets[0]), "x");
  EXPECT_EQ(sexpr(*chained.targets[1]), "y");
  EXPECT_EQ(sexpr(*chained.value), "1");

  EXPECT_EQ(sexpr(*cast<AssignStmt>(*b[2]).value), "(tuple 1 2)");
  // A kernel's f-string: its texts around its fields, adjacent literals
  // joined.
  Block f = body("s = f\"uint{n}x{m + 1}\" 'b'\n");
  EXPECT_EQ(sexpr(*cast<AssignStmt>(*f[0]).value),
            "(fstring 'uint' n 'x' (+ m 1) 'b')");

  const auto &aug = cast<AugAssignStmt>(*b[3]);
  EXPECT_EQ(aug.op, BinaryOp::Add);
  EXPECT_EQ(sexpr(*aug.target), "acc");
  EXPECT_EQ(sexpr(*aug.value), "(* a b)");

  const auto &ann = cast<AssignStmt>(*b[4]);
  ASSERT_TRUE(ann.annotation);
  EXPECT_EQ(sexpr(*ann.annotation), "tl.constexpr");
  EXPECT_EQ(sexpr(*ann.value), "4");

  EXPECT_EQ(sexpr(*cast<AssignStmt>(*b[5]).targets[0]), "(tuple c d)");
  EXPECT_EQ(cast<AssignStmt>(*b[6]).targets.size(), 2u);

  Block ops = body("a -= 1\na *= 1\na /= 1\na //= 1\na %= 1\na **= 1\n"
                   "a &= 1\na |= 1\na ^= 1\na <<= 1\na >>= 1\na @= 1");
  std::vector<BinaryOp> expected = {
      BinaryOp::Sub,    BinaryOp::Mul,    BinaryOp::Div,   BinaryOp::FloorDiv,
      BinaryOp::Mod,    BinaryOp::Pow,    BinaryOp::BitAnd, BinaryOp::BitOr,
      BinaryOp::BitXor, BinaryOp::LShift, BinaryOp::RShift, BinaryOp::MatMul};
  ASSERT_EQ(ops.size(), expected.size());
  for (size_t i = 0; i < ops.size(); ++i)
    EXPECT_EQ(cast<AugAssignStmt>(*ops[i]).op, expected[i]);
}

TEST(ParserTest, ElifChain) {
  Block b = body("if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    pass\n"
                 "else:\n    x = 3");
  ASSERT_EQ(b.size(), 1u);
  const auto &top = cast<IfStmt>(*b[0]);
  EXPECT_EQ(sexpr(*top.cond), "a");
  ASSERT_EQ(top.then.size(), 1u);
  ASSERT_EQ(top.orelse.size(), 1u);
  const auto &elif1 = cast<IfStmt>(*top.orelse[0]);
  EXPECT_EQ(sexpr(*elif1.cond), "b");
  EXPECT_EQ(elif1.loc.line, 5u);
  EXPECT_EQ(elif1.loc.col, 5u);
  ASSERT_EQ(elif1.orelse.size(), 1u);
  const auto &elif2 = cast<IfStmt>(*elif1.orelse[0]);
  EXPECT_EQ(sexpr(*elif2.cond), "c");
  EXPECT_TRUE(isa<PassStmt>(*elif2.then[0]));
  ASSERT_EQ(elif2.orelse.size(), 1u);
  EXPECT_TRUE(isa<AssignStmt>(*elif2.orelse[0]));

  EXPECT_EQ(dump("@jit\ndef f():\n    if a: x = 1\n    else: x = 2\n"),
            R"(Module
  FunctionDef f @2:1
    Decorator
      Name jit @1:2
    If @3:5
      Name a @3:8
      Then
        Assign @3:11
          Target
            Name x @3:11
          Int 1 @3:15
      Else
        Assign @4:11
          Target
            Name x @4:11
          Int 2 @4:15
)");
}

TEST(ParserTest, Loops) {
  Block b = body("for i in range(0, K, BLOCK):\n    acc += i\n"
                 "for i, j in pairs:\n    break\n"
                 "while i < n:\n    i += 1\n    continue");
  ASSERT_EQ(b.size(), 3u);
  const auto &f = cast<ForStmt>(*b[0]);
  EXPECT_EQ(sexpr(*f.target), "i");
  EXPECT_EQ(sexpr(*f.iter), "(call range 0 K BLOCK)");
  ASSERT_EQ(f.body.size(), 1u);
  EXPECT_EQ(sexpr(*cast<ForStmt>(*b[1]).target), "(tuple i j)");
  EXPECT_TRUE(isa<BreakStmt>(*cast<ForStmt>(*b[1]).body[0]));
  const auto &w = cast<WhileStmt>(*b[2]);
  EXPECT_EQ(sexpr(*w.cond), "(< i n)");
  ASSERT_EQ(w.body.size(), 2u);
  EXPECT_TRUE(isa<ContinueStmt>(*w.body[1]));
}

TEST(ParserTest, SimpleStatements) {
  Block b = body("return\nreturn a, b\nassert x > 0, 'msg'\nassert y\n"
                 "a = 1; b = 2;\npass\n'docstring'\nf(x)");
  ASSERT_EQ(b.size(), 9u);
  EXPECT_FALSE(cast<ReturnStmt>(*b[0]).value);
  EXPECT_EQ(sexpr(*cast<ReturnStmt>(*b[1]).value), "(tuple a b)");
  const auto &a = cast<AssertStmt>(*b[2]);
  EXPECT_EQ(sexpr(*a.cond), "(> x 0)");
  EXPECT_EQ(sexpr(*a.message), "'msg'");
  EXPECT_FALSE(cast<AssertStmt>(*b[3]).message);
  EXPECT_TRUE(isa<AssignStmt>(*b[4]));
  EXPECT_TRUE(isa<AssignStmt>(*b[5]));
  EXPECT_TRUE(isa<PassStmt>(*b[6]));
  EXPECT_TRUE(isa<ExprStmt>(*b[7]));
  EXPECT_TRUE(isa<ExprStmt>(*b[8]));
}

TEST(ParserTest, FunctionSignature) {
  std::unique_ptr<Module> module = parseOk(
      "@triton.jit(do_not_specialize=['n'])\n@other\n"
      "def k(a, b: tl.tensor, c=1, d: tl.constexpr = 2,) -> tl.tensor:\n"
      "    '''Doc.'''\n    return a\n");
  ASSERT_TRUE(module);
  const FunctionDef &fn = module->functions[0];
  ASSERT_EQ(fn.decorators.size(), 2u);
  EXPECT_EQ(sexpr(*fn.decorators[0]),
            "(call triton.jit do_not_specialize=[list 'n'])");
  EXPECT_EQ(sexpr(*fn.decorators[1]), "other");
  ASSERT_EQ(fn.params.size(), 4u);
  EXPECT_FALSE(fn.params[0].annotation || fn.params[0].defaultValue);
  EXPECT_TRUE(fn.params[1].annotation && !fn.params[1].defaultValue);
  EXPECT_TRUE(!fn.params[2].annotation && fn.params[2].defaultValue);
  EXPECT_TRUE(fn.params[3].annotation && fn.params[3].defaultValue);
  EXPECT_EQ(fn.params[3].loc.col, 29u);
  ASSERT_TRUE(fn.returns);
  EXPECT_EQ(sexpr(*fn.returns), "tl.tensor");
  EXPECT_EQ(fn.loc.line, 3u);
  EXPECT_EQ(fn.body.size(), 2u);
}

TEST(ParserTest, ModuleLevel) {
  std::unique_ptr<Module> module = parseOk(
      "'''Module docstring.'''\n"
      "import triton, numpy as np\n"
      "from triton.language import constexpr as C, float32\n"
      "from a.b import (c,\n    d,)\n"
      "BLOCK = 128\n"
      "A = B = 2\n"
      "@triton.jit\ndef f():\n    pass\n\n"
      "if __name__ == \"__main__\":\n"
      "    import torch\n    print(f\"{torch.rand(3)}\")\n"
      "    class X: pass\n"
      "else:\n    pass\n"
      "@triton.jit\ndef g(): return 1\n");
  ASSERT_TRUE(module);
  ASSERT_EQ(module->imports.size(), 7u);
  EXPECT_EQ(module->imports[0].module, "triton");
  EXPECT_EQ(module->imports[0].alias, "triton");
  EXPECT_EQ(module->imports[1].module, "numpy");
  EXPECT_EQ(module->imports[1].alias, "np");
  EXPECT_EQ(module->imports[2].module, "triton.language");
  EXPECT_EQ(module->imports[2].name, "constexpr");
  EXPECT_EQ(module->imports[2].alias, "C");
  EXPECT_EQ(module->imports[3].name, "float32");
  EXPECT_EQ(module->imports[3].alias, "float32");
  EXPECT_EQ(module->imports[5].name, "d");
  EXPECT_FALSE(module->imports[5].conditional);
  // Imports in a module-level `if` or `try` are kept, as alternatives.
  EXPECT_EQ(module->imports[6].module, "torch");
  EXPECT_TRUE(module->imports[6].conditional);
  ASSERT_EQ(module->globals.size(), 2u);
  EXPECT_EQ(module->globals[1]->targets.size(), 2u);
  ASSERT_EQ(module->functions.size(), 2u);
  EXPECT_EQ(module->functions[1].name, "g");
  EXPECT_TRUE(isa<ReturnStmt>(*module->functions[1].body[0]));
  EXPECT_TRUE(module->hostDefs.empty());
}

// Relative and wildcard imports, and the alternatives of `try`/`except`.
TEST(ParserTest, RelativeImports) {
  std::unique_ptr<Module> module = parseOk(
      "from .utils import a, b as c\n"
      "from .. import ops\n"
      "from ...x.y import *\n"
      "try:\n"
      "    from triton.language.extra.libdevice import rsqrt\n"
      "except ModuleNotFoundError:\n"
      "    from triton.language.extra.cuda.libdevice import rsqrt\n");
  ASSERT_TRUE(module);
  ASSERT_EQ(module->imports.size(), 6u);
  EXPECT_EQ(module->imports[0].level, 1u);
  EXPECT_EQ(module->imports[0].module, "utils");
  EXPECT_EQ(module->imports[1].alias, "c");
  EXPECT_EQ(module->imports[2].level, 2u);
  EXPECT_EQ(module->imports[2].module, "");
  EXPECT_EQ(module->imports[2].name, "ops");
  EXPECT_EQ(module->imports[3].level, 3u);
  EXPECT_EQ(module->imports[3].module, "x.y");
  EXPECT_EQ(module->imports[3].name, "*");
  EXPECT_FALSE(module->imports[3].conditional);
  EXPECT_EQ(module->imports[4].module, "triton.language.extra.libdevice");
  EXPECT_TRUE(module->imports[4].conditional);
  EXPECT_EQ(module->imports[5].module, "triton.language.extra.cuda.libdevice");
  EXPECT_TRUE(module->imports[5].conditional);
}

// Around its kernels a tutorial file holds host Python: autotune configs,
// launchers, tests. The parser skips it, keeping the names it defines.
TEST(ParserTest, HostCode) {
  std::unique_ptr<Module> module = parseOk(
      "DEVICE = triton.runtime.driver.active.get_active_torch_device()\n"
      "configs = [triton.Config({'BM': bm, **extra}, num_warps=w)\n"
      "           for bm in [64, 128] if bm > 0 for w in (4, 8)]\n"
      "names = {f'k{i}' for i in range(3)}; width: int\n"
      "table = {1: 'a', 'b': [*xs], 'c': ...}\n"
      "assert DEVICE, 'no device'\n"
      "def get_configs(pre_hook=None, *args, **kw) -> list:\n"
      "    with open(x) as f: return [c for c in configs]\n"
      "class Launcher(object):\n"
      "    def __call__(self): raise NotImplementedError\n"
      "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
      "finally:\n    pass\n"
      "for i in range(3):\n    del i\nelse:\n    pass\n"
      "def small_configs(n, *rest, **kw):\n"
      "    return [c for c in configs if c.kwargs['BM'] <= n]\n"
      "@triton.autotune(configs=get_configs(), key=['M'],\n"
      "                 prune_configs_by={'early_config_prune': lambda c, "
      "n, **kw: c})\n"
      "@triton.heuristics({'EVEN_K': lambda args: args['K'] % 2 == 0})\n"
      "@triton.jit\n"
      "def kernel(x, EVEN_K: tl.constexpr):\n    pass\n");
  ASSERT_TRUE(module);
  ASSERT_EQ(module->functions.size(), 1u);
  const FunctionDef &kernel = module->functions[0];
  EXPECT_EQ(sexpr(*kernel.decorators[1]),
            "(call triton.heuristics (dict 'EVEN_K' (lambda args "
            "(== (% (sub args 'K') 2) 0))))");
  // Lambdas keep their positional parameters; `**kw` takes the rest.
  EXPECT_EQ(sexpr(*cast<CallExpr>(*kernel.decorators[0]).keywords[2].value),
            "(dict 'early_config_prune' (lambda c n c))");
  // A host function whose body the parser cannot read (`with`) is kept by
  // name only; one it can is parsed, so that decorators can call it.
  ASSERT_EQ(module->hostDefs.size(), 3u);
  EXPECT_EQ(module->hostDefs[0].name, "get_configs");
  EXPECT_FALSE(module->hostDefs[0].function);
  EXPECT_EQ(module->hostDefs[1].name, "Launcher");
  EXPECT_EQ(module->hostDefs[1].loc.line, 9u);
  EXPECT_EQ(module->hostDefs[2].name, "small_configs");
  ASSERT_TRUE(module->hostDefs[2].function);
  EXPECT_EQ(module->hostDefs[2].function->params.size(), 1u);
  // `torch = None` in the except clause is an alternative binding.
  ASSERT_EQ(module->globals.size(), 5u);
  EXPECT_TRUE(module->globals[4]->conditional);
  EXPECT_EQ(sexpr(*module->globals[4]->value), "None");
  EXPECT_EQ(sexpr(*module->globals[1]->value),
            "(list-comp (call triton.Config (dict 'BM' bm ** extra) num_warps=w) "
            "for bm "
            "in [list 64 128] if (> bm 0) for w in (tuple 4 8))");
  EXPECT_EQ(sexpr(*module->globals[2]->value),
            "(set-comp <an f-string> for i in (call range 3))");
  EXPECT_EQ(sexpr(*module->globals[3]->value),
            "(dict 1 'a' 'b' [list *xs] 'c' <'...'>)");

  EXPECT_EQ(dump("from m import a as b\nX = 1\n"), R"(Module
  ImportFrom m import a as b @1:1
  Assign @2:1
    Target
      Name X @2:1
    Int 1 @2:5
)");
  // A one-line main guard is skipped too.
  EXPECT_EQ(parseError("if __name__ == '__main__': main()\n"), "ok");
}

TEST(ParserTest, DumpExpressions) {
  EXPECT_EQ(dump("x = a[1:, None] if not c else -2.5 ** 'q\\n'\n"),
            R"(Module
  Assign @1:1
    Target
      Name x @1:1
    IfExp @1:5
      Unary not @1:20
        Name c @1:24
      Subscript @1:6
        Name a @1:5
        Slice @1:7
          Lower
            Int 1 @1:7
        None @1:11
      Unary - @1:31
        Binary ** @1:36
          Float 2.5 @1:32
          String "q\n" @1:39
)");
  EXPECT_EQ(dump("x = (a, [b]), 0.1, True is not False or y in z\n"),
            R"(Module
  Assign @1:1
    Target
      Name x @1:1
    Tuple @1:5
      Tuple @1:5
        Name a @1:6
        List @1:9
          Name b @1:10
      Float 0.1 @1:15
      BoolOp or @1:38
        Compare is not @1:25
          Bool True @1:20
          Bool False @1:32
        Compare in @1:43
          Name y @1:41
          Name z @1:46
)");
}

TEST(ParserTest, SyntaxErrors) {
  // Layout.
  EXPECT_EQ(parseError("x = 1\n  y = 2\n"), "2:3: unexpected indent");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = 1\n        y = 2\n"),
            "4:9: unexpected indent");
  EXPECT_EQ(parseError("@jit\ndef f():\n    if x:\n        y = 1\n      z = 2\n"),
            "5:7: unindent does not match any outer indentation level");
  EXPECT_EQ(parseError("@jit\ndef f():\nx = 1\n"),
            "3:1: expected an indented block after function definition on "
            "line 2");
  EXPECT_EQ(parseError("@jit\ndef f():\n    if x:\n    y = 1\n"),
            "4:5: expected an indented block after 'if' statement on line 3");
  // Punctuation.
  EXPECT_EQ(parseError("@jit\ndef f()\n    pass\n"), "2:8: expected ':'");
  EXPECT_EQ(parseError("@jit\ndef f():\n    if x\n        pass\n"),
            "3:9: expected ':'");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = (1 + 2))\n"), "3:16: unmatched ')'");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f(1, 2\n"),
            "3:10: '(' was never closed");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = = 1\n"), "3:9: invalid syntax");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = 1 2\n"), "3:11: invalid syntax");
  EXPECT_EQ(parseError("@jit\ndef f():\n    for i range(3):\n        pass\n"),
            "3:11: expected 'in'");
  // Literals.
  EXPECT_EQ(parseError("@jit\ndef f():\n    s = 'abc\n"),
            "3:9: unterminated string literal");
  EXPECT_EQ(parseError("x = 18446744073709551616\n"),
            "1:5: integer literal is too large (2^64 or more)");
  // f-strings parse in kernels; their malformed fields are errors.
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'{y}'\n"), "ok");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'{}'\n"),
            "3:9: f-string: empty expression not allowed");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'{y!x}'\n"),
            "3:9: f-string: invalid conversion character: expected 's', "
            "'r', or 'a'");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'a}'\n"),
            "3:9: f-string: single '}' is not allowed");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'{y'\n"),
            "3:9: f-string: expecting '}'");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = f'{y +}'\n"),
            "3:9: invalid syntax");
  // Unsupported constructs.
  EXPECT_EQ(parseError("@jit\ndef f():\n    return a < b < c\n"),
            "3:18: chained comparisons are not supported");
  EXPECT_EQ(parseError("x = a >= b != c\n"),
            "1:12: chained comparisons are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    g(*args)\n"),
            "3:7: *args and **kwargs are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    g(**kw)\n"),
            "3:7: *args and **kwargs are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    g(a=1, b)\n"),
            "3:12: positional argument follows keyword argument");
  EXPECT_EQ(parseError("@jit\ndef f():\n    def g():\n        pass\n"),
            "3:5: nested function definitions are not supported");
  EXPECT_EQ(parseError("if x:\npass\n"),
            "2:1: expected an indented block after 'if' statement on line 1");
  EXPECT_EQ(parseError("return 1\n"), "1:1: 'return' outside function");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x: int\n"),
            "3:11: annotations without a value are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    f() = 1\n"),
            "3:5: cannot assign to function call");
  EXPECT_EQ(parseError("@jit\ndef f():\n    1 = x\n"),
            "3:5: cannot assign to literal");
  EXPECT_EQ(parseError("@jit\ndef f(a=1, b):\n    pass\n"),
            "2:12: parameter without a default follows parameter with a "
            "default");
  EXPECT_EQ(parseError("@jit\ndef f(a, a):\n    pass\n"),
            "2:10: duplicate argument 'a' in function definition");
  EXPECT_EQ(parseError("@jit\ndef f(*a):\n    pass\n"),
            "2:7: '*' parameters are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = lambda: 1\n"),
            "3:9: lambda expressions are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = a if b\n"),
            "3:15: expected 'else' after 'if' expression");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = {}\n"),
            "3:9: dict and set literals are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    x = [i for i in y]\n"),
            "3:12: comprehensions are not supported");
  EXPECT_EQ(parseError("from .. import\n"),
            "1:15: expected name to import");
  EXPECT_EQ(parseError("from . import *, x\n"), "1:16: invalid syntax");
  EXPECT_EQ(parseError("@jit\ndef f():\n    with a:\n        pass\n"),
            "3:5: 'with' statements are not supported");
  EXPECT_EQ(parseError("@jit\ndef f():\n    if (n := 3):\n        pass\n"),
            "3:11: assignment expressions are not supported");
  // The first error wins, even when the tokenizer fails further down.
  EXPECT_EQ(parseError("@jit\ndef f(:\n    pass\ns = 'abc\n"),
            "2:7: expected parameter name");
}

} // namespace
