//===- MetadataJSON.cpp - Kernel metadata to and from JSON ----------------===//
//
// The one mapping between KernelMetadata and its JSON form (the `k.json`
// beside `k.ptx`), through nlohmann-json. The reader is strict: a missing or
// mistyped field, an unknown dtype or a duplicated key is an error that
// names the field, since a launcher that guessed would launch wrongly.
//
//===----------------------------------------------------------------------===//

#include "tile/Error.h"
#include "tile/Metadata.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <set>
#include <vector>

using namespace tile;
using json = nlohmann::ordered_json;

namespace {

[[noreturn]] void fail(const std::string &message) {
  throw Error("invalid kernel metadata: " + message);
}

const char *kindName(const json &value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
  case json::value_t::number_float:
    return "a number";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "a value";
  }
}

/// Parses `text`, refusing duplicated keys (nlohmann keeps the last, which
/// would hide a launcher's mistake).
json parseDocument(std::string_view text) {
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int, json::parse_event_t event, json &value) {
    switch (event) {
    case json::parse_event_t::object_start:
      keys.emplace_back();
      break;
    case json::parse_event_t::object_end:
      keys.pop_back();
      break;
    case json::parse_event_t::key:
      if (!keys.back().insert(value.get<std::string>()).second &&
          duplicate.empty())
        duplicate = value.get<std::string>();
      break;
    default:
      break;
    }
    return true;
  };
  json document;
  try {
    document = json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error &e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2:
    // ...": the part from "at line" on.
    std::string what = e.what();
    size_t at = what.find("at line");
    fail(at == std::string::npos ? what : what.substr(at));
  }
  if (!duplicate.empty())
    fail("duplicate key \"" + duplicate + "\"");
  return document;
}

const json &require(const json &object, const char *key,
                    const std::string &where) {
  auto it = object.find(key);
  if (it == object.end())
    fail("missing field \"" + where + key + "\"");
  return *it;
}

const json *find(const json &object, const char *key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string getString(const json &value, const std::string &field) {
  if (!value.is_string())
    fail("field \"" + field + "\" must be a string, got " + kindName(value));
  return value.get<std::string>();
}

/// `value` as an integer (non-negative, where `nonNegative`).
int64_t getInteger(const json &value, const std::string &field,
                   bool nonNegative = false) {
  bool negative = value.is_number_integer() && !value.is_number_unsigned() &&
                  value.get<int64_t>() < 0;
  bool isInteger = value.is_number_integer() && !(nonNegative && negative);
  if (!isInteger)
    fail("field \"" + field + "\" must be " +
         (nonNegative ? "a non-negative integer" : "an integer") + ", got " +
         (value.is_number() ? value.dump() : std::string(kindName(value))));
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
    fail("field \"" + field + "\" is out of range: " + value.dump());
  return value.get<int64_t>();
}

bool getBool(const json &value, const std::string &field) {
  if (!value.is_boolean())
    fail("field \"" + field + "\" must be true or false, got " +
         kindName(value));
  return value.get<bool>();
}

unsigned getUnsigned(const json &value, const std::string &field) {
  int64_t n = getInteger(value, field, /*nonNegative=*/true);
  if (n > int64_t(std::numeric_limits<unsigned>::max()))
    fail("field \"" + field + "\" is out of range: " + value.dump());
  return static_cast<unsigned>(n);
}

const json &requireArray(const json &object, const char *key,
                         const std::string &where) {
  const json &value = require(object, key, where);
  if (!value.is_array())
    fail("field \"" + where + key + "\" must be an array, got " +
         kindName(value));
  return value;
}

//===----------------------------------------------------------------------===//
// HostExpr: a number, or [op, operands...]
//===----------------------------------------------------------------------===//

HostExpr readHostExpr(const json &value, const std::string &field,
                      size_t numParams) {
  HostExpr expr;
  if (!value.is_array()) {
    expr.value = getInteger(value, field);
    return expr;
  }
  if (value.empty() || !value[0].is_string())
    fail("field \"" + field + "\" must start with an operation's name");
  std::string name = value[0].get<std::string>();
  std::optional<HostExpr::Op> op = HostExpr::parseOp(name);
  if (!op)
    fail("field \"" + field + "\" names an unknown operation \"" + name + "\"");
  unsigned operands = HostExpr::numOperands(*op);
  if (value.size() != operands + 1)
    fail("field \"" + field + "\": \"" + name + "\" takes " +
         std::to_string(operands) + " operand(s)");
  expr.op = *op;
  if (expr.op == HostExpr::Op::Arg) {
    expr.value = getInteger(value[1], field + "[1]");
    if (expr.value < 0 || size_t(expr.value) >= numParams)
      fail("field \"" + field + "\" names parameter " +
           std::to_string(expr.value) + " of " + std::to_string(numParams));
    return expr;
  }
  if (expr.op == HostExpr::Op::Grid) {
    expr.value = getInteger(value[1], field + "[1]");
    if (expr.value < 0 || expr.value > 2)
      fail("field \"" + field + "\" names grid dimension " +
           std::to_string(expr.value) + ", not 0, 1 or 2");
    return expr;
  }
  for (size_t i = 1; i < value.size(); ++i)
    expr.operands.push_back(readHostExpr(
        value[i], field + "[" + std::to_string(i) + "]", numParams));
  return expr;
}

json writeHostExpr(const HostExpr &expr) {
  if (expr.op == HostExpr::Op::Constant)
    return expr.value;
  json out = json::array({std::string(HostExpr::opName(expr.op))});
  if (expr.op == HostExpr::Op::Arg || expr.op == HostExpr::Op::Grid)
    out.push_back(expr.value);
  for (const HostExpr &operand : expr.operands)
    out.push_back(writeHostExpr(operand));
  return out;
}

std::vector<HostExpr> readHostExprs(const json &object, const char *key,
                                    const std::string &where,
                                    size_t numParams) {
  const json &items = requireArray(object, key, where);
  std::vector<HostExpr> out;
  for (size_t i = 0; i < items.size(); ++i)
    out.push_back(readHostExpr(
        items[i], where + key + "[" + std::to_string(i) + "]", numParams));
  return out;
}

json writeHostExprs(const std::vector<HostExpr> &exprs) {
  json out = json::array();
  for (const HostExpr &expr : exprs)
    out.push_back(writeHostExpr(expr));
  return out;
}

//===----------------------------------------------------------------------===//
// Tensor maps and accesses
//===----------------------------------------------------------------------===//

TensorMapInfo readTensorMap(const json &map, const std::string &where,
                            size_t numParams) {
  if (!map.is_object())
    fail(where + " must be an object, got " + kindName(map));
  std::string prefix = where + ".";
  TensorMapInfo info;
  info.base =
      readHostExpr(require(map, "base", prefix), prefix + "base", numParams);
  info.dims = readHostExprs(map, "dims", prefix, numParams);
  info.strides = readHostExprs(map, "strides", prefix, numParams);
  const json &box = requireArray(map, "box", prefix);
  for (size_t i = 0; i < box.size(); ++i)
    info.box.push_back(
        getUnsigned(box[i], prefix + "box[" + std::to_string(i) + "]"));
  info.elementBytes = getUnsigned(require(map, "element_bytes", prefix),
                                  prefix + "element_bytes");
  if (const json *v = find(map, "swizzle"))
    info.swizzle = getUnsigned(*v, prefix + "swizzle");
  if (std::string error = info.verify(numParams); !error.empty())
    fail(where + " " + error);
  return info;
}

json writeTensorMap(const TensorMapInfo &info) {
  return {{"base", writeHostExpr(info.base)},
          {"dims", writeHostExprs(info.dims)},
          {"strides", writeHostExprs(info.strides)},
          {"box", info.box},
          {"element_bytes", info.elementBytes},
          {"swizzle", info.swizzle}};
}

AccessInfo readAccess(const json &access, const std::string &where,
                      const std::vector<ParamInfo> &params) {
  if (!access.is_object())
    fail(where + " must be an object, got " + kindName(access));
  std::string prefix = where + ".";
  size_t numParams = params.size();
  AccessInfo info;
  int64_t param = getInteger(require(access, "param", prefix), prefix + "param",
                             /*nonNegative=*/true);
  if (size_t(param) >= numParams || !params[size_t(param)].isPointer())
    fail(prefix + "param must name a pointer parameter, not " +
         std::to_string(param));
  info.param = unsigned(param);
  info.offset = readHostExpr(require(access, "offset", prefix),
                             prefix + "offset", numParams);
  const json &terms = requireArray(access, "terms", prefix);
  for (size_t i = 0; i < terms.size(); ++i) {
    const json &t = terms[i];
    std::string at = prefix + "terms[" + std::to_string(i) + "].";
    if (!t.is_object())
      fail(at + " must be an object");
    AccessInfo::Term term;
    term.stride = readHostExpr(require(t, "stride", at), at + "stride", numParams);
    term.count = readHostExpr(require(t, "count", at), at + "count", numParams);
    term.scale = getInteger(require(t, "scale", at), at + "scale", true);
    term.extent = getInteger(require(t, "extent", at), at + "extent", true);
    if (term.extent < 1)
      fail(at + "extent must be positive");
    if (const json *bound = find(t, "bound")) {
      term.bounded = true;
      term.bound = readHostExpr(*bound, at + "bound", numParams);
    }
    info.terms.push_back(std::move(term));
  }
  const json &fits = requireArray(access, "fits", prefix);
  for (size_t i = 0; i < fits.size(); ++i) {
    const json &f = fits[i];
    std::string at = prefix + "fits[" + std::to_string(i) + "].";
    if (!f.is_object())
      fail(at + " must be an object");
    AccessInfo::Fit fit;
    fit.bits = getUnsigned(require(f, "bits", at), at + "bits");
    if (fit.bits < 2 || fit.bits > 64)
      fail(at + "bits must be 2 to 64");
    fit.value = readHostExpr(require(f, "value", at), at + "value", numParams);
    const json &list = requireArray(f, "terms", at);
    for (size_t k = 0; k < list.size(); ++k) {
      const json &pair = list[k];
      std::string field = at + "terms[" + std::to_string(k) + "]";
      if (!pair.is_array() || pair.size() != 2)
        fail(field + " must be [coefficient, count]");
      fit.terms.emplace_back(readHostExpr(pair[0], field + "[0]", numParams),
                             readHostExpr(pair[1], field + "[1]", numParams));
    }
    info.fits.push_back(std::move(fit));
  }
  return info;
}

json writeAccess(const AccessInfo &info) {
  json terms = json::array();
  for (const AccessInfo::Term &term : info.terms) {
    json t = {{"stride", writeHostExpr(term.stride)},
              {"count", writeHostExpr(term.count)},
              {"scale", term.scale},
              {"extent", term.extent}};
    if (term.bounded)
      t["bound"] = writeHostExpr(term.bound);
    terms.push_back(std::move(t));
  }
  json fits = json::array();
  for (const AccessInfo::Fit &fit : info.fits) {
    json pairs = json::array();
    for (const auto &[coefficient, count] : fit.terms)
      // json::array: a braced pair of ["arg", i]s would become an object.
      pairs.push_back(
          json::array({writeHostExpr(coefficient), writeHostExpr(count)}));
    fits.push_back({{"bits", fit.bits},
                    {"value", writeHostExpr(fit.value)},
                    {"terms", std::move(pairs)}});
  }
  return {{"param", info.param},
          {"offset", writeHostExpr(info.offset)},
          {"terms", std::move(terms)},
          {"fits", std::move(fits)}};
}

} // namespace

//===----------------------------------------------------------------------===//
// KernelMetadata
//===----------------------------------------------------------------------===//

KernelMetadata KernelMetadata::fromJSON(std::string_view text) {
  json root = parseDocument(text);
  if (!root.is_object())
    fail(std::string("expected an object at the top level, got ") +
         kindName(root));

  KernelMetadata md;
  md.kernel = getString(require(root, "kernel", ""), "kernel");
  if (md.kernel.empty())
    fail("field \"kernel\" is empty");
  if (const json *v = find(root, "num_warps"))
    md.numWarps = getUnsigned(*v, "num_warps");
  if (const json *v = find(root, "threads_per_block"))
    md.threadsPerBlock = getUnsigned(*v, "threads_per_block");
  else
    md.threadsPerBlock = md.numWarps * 32;
  if (const json *v = find(root, "shared_bytes"))
    md.sharedBytes = getUnsigned(*v, "shared_bytes");
  if (const json *v = find(root, "arch"))
    md.arch = getString(*v, "arch");
  if (const json *v = find(root, "ptx_version")) {
    md.ptxVersion = getUnsigned(*v, "ptx_version");
    if (md.ptxVersion < 10)
      fail("field \"ptx_version\" must be the PTX ISA version times ten "
           "(81 for 8.1), got " +
           v->dump());
  }
  if (const json *v = find(root, "num_stages"))
    md.numStages = getUnsigned(*v, "num_stages");
  if (const json *v = find(root, "global_scratch_bytes"))
    md.globalScratchBytes = getUnsigned(*v, "global_scratch_bytes");
  if (const json *v = find(root, "turnstiles"))
    md.turnstiles = getBool(*v, "turnstiles");
  if (const json *v = find(root, "cluster_splittable"))
    md.clusterSplittable = getBool(*v, "cluster_splittable");
  if (const json *v = find(root, "cluster_dims")) {
    if (!v->is_array() || v->size() != 3)
      fail("field \"cluster_dims\" must be an array of 3 positive integers, "
           "got " + v->dump());
    for (unsigned d = 0; d < 3; ++d) {
      md.clusterDims[d] = getUnsigned((*v)[d], "cluster_dims");
      if (md.clusterDims[d] == 0)
        fail("field \"cluster_dims\" must hold positive integers, got " +
             v->dump());
    }
  }
  if (const json *v = find(root, "cluster_programs")) {
    md.clusterPrograms = getUnsigned(*v, "cluster_programs");
    if (md.clusterPrograms == 0)
      fail("field \"cluster_programs\" must be a positive integer, got " +
           v->dump());
  }
  if (const json *v = find(root, "row_sectors_matter"))
    md.rowSectorsMatter = getBool(*v, "row_sectors_matter");
  if (const json *v = find(root, "stream_k_splittable"))
    md.streamKSplittable = getBool(*v, "stream_k_splittable");
  if (const json *v = find(root, "stream_k_partial_bytes"))
    md.streamKPartialBytes = getUnsigned(*v, "stream_k_partial_bytes");
  if (const json *v = find(root, "persistent"))
    md.persistent = getBool(*v, "persistent");
  if (md.numWarps == 0 || md.numWarps > 32)
    fail("field \"num_warps\" must be 1 to 32, got " +
         std::to_string(md.numWarps));
  if (md.numStages == 0)
    fail("field \"num_stages\" must be positive");
  if (md.threadsPerBlock == 0 || md.threadsPerBlock > 1024)
    fail("field \"threads_per_block\" must be in [1, 1024], got " +
         std::to_string(md.threadsPerBlock));

  const json &params = requireArray(root, "params", "");
  for (size_t i = 0; i < params.size(); ++i) {
    const json &p = params[i];
    std::string where = "params[" + std::to_string(i) + "].";
    if (!p.is_object())
      fail("params[" + std::to_string(i) + "] must be an object, got " +
           kindName(p));
    ParamInfo info;
    info.name = getString(require(p, "name", where), where + "name");
    std::string type = getString(require(p, "type", where), where + "type");
    // Only the table's own spellings: what tilec writes.
    std::optional<ParamType> parsed = ParamType::parse(type);
    if (!parsed || parsed->str() != type)
      fail(where + "type \"" + type + "\" is not a known type (a dtype or a "
                   "pointer to one: " + listDTypes() + ")");
    info.type = *parsed;
    if (const json *v = find(p, "divisibility"))
      info.divisibility = getUnsigned(*v, where + "divisibility");
    if (info.divisibility == 0)
      fail(where + "divisibility must be positive");
    md.params.push_back(std::move(info));
  }

  if (const json *maps = find(root, "tensor_maps")) {
    if (!maps->is_array())
      fail(std::string("field \"tensor_maps\" must be an array, got ") +
           kindName(*maps));
    for (size_t i = 0; i < maps->size(); ++i)
      md.tensorMaps.push_back(readTensorMap(
          (*maps)[i], "tensor_maps[" + std::to_string(i) + "]",
          md.params.size()));
  }

  if (const json *list = find(root, "accesses")) {
    if (!list->is_array())
      fail(std::string("field \"accesses\" must be an array, got ") +
           kindName(*list));
    for (size_t i = 0; i < list->size(); ++i)
      md.accesses.push_back(readAccess(
          (*list)[i], "accesses[" + std::to_string(i) + "]", md.params));
  }

  if (const json *c = find(root, "constexprs")) {
    if (!c->is_object())
      fail(std::string("field \"constexprs\" must be an object, got ") +
           kindName(*c));
    for (const auto &[name, value] : c->items())
      md.constexprs.emplace_back(name, value.dump());
  }
  return md;
}

std::string KernelMetadata::toJSON() const {
  // Keys in the order a reader expects them, not sorted.
  json out;
  out["kernel"] = kernel;
  out["num_warps"] = numWarps;
  out["threads_per_block"] = threadsPerBlock;
  out["shared_bytes"] = sharedBytes;
  out["arch"] = arch;
  if (ptxVersion)
    out["ptx_version"] = ptxVersion;
  out["num_stages"] = numStages;
  if (globalScratchBytes)
    out["global_scratch_bytes"] = globalScratchBytes;
  if (turnstiles)
    out["turnstiles"] = true;
  if (clusterSplittable)
    out["cluster_splittable"] = true;
  if (ctasPerCluster() != 1)
    out["cluster_dims"] = clusterDims;
  if (clusterPrograms != 1)
    out["cluster_programs"] = clusterPrograms;
  if (rowSectorsMatter)
    out["row_sectors_matter"] = true;
  if (streamKSplittable)
    out["stream_k_splittable"] = true;
  if (streamKPartialBytes)
    out["stream_k_partial_bytes"] = streamKPartialBytes;
  if (persistent)
    out["persistent"] = true;
  out["params"] = json::array();
  for (const ParamInfo &param : params)
    out["params"].push_back({{"name", param.name},
                             {"type", param.type.str()},
                             {"divisibility", param.divisibility}});
  if (!tensorMaps.empty()) {
    json maps = json::array();
    for (const TensorMapInfo &map : tensorMaps)
      maps.push_back(writeTensorMap(map));
    out["tensor_maps"] = std::move(maps);
  }
  if (!accesses.empty()) {
    json list = json::array();
    for (const AccessInfo &access : accesses)
      list.push_back(writeAccess(access));
    out["accesses"] = std::move(list);
  }
  out["constexprs"] = json::object();
  for (const auto &[name, text] : constexprs) {
    // Parsed, not pasted, so a malformed value cannot make malformed JSON.
    try {
      out["constexprs"][name] = json::parse(text);
    } catch (const json::parse_error &e) {
      throw Error("constexpr " + name + " = '" + text +
                  "' is not JSON text: " + e.what());
    }
  }
  return out.dump();
}
