//===- FuzzInput.cpp - A fuzz input: a .tl file and its options -----------===//

#include "FuzzInput.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <vector>

namespace {

/// Splits a RUN line's text into words as a shell would for our purposes:
/// whitespace separates, double or single quotes group.
std::vector<std::string> splitWords(const std::string &line) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t') {
      if (inWord)
        words.push_back(word);
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord)
    words.push_back(word);
  return words;
}

unsigned parseUnsigned(const std::string &text, unsigned fallback) {
  if (text.empty() || text.size() > 4 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return fallback;
  return unsigned(std::stoul(text));
}

/// Reads the options of one RUN line into `options`; true if it named any.
bool readRunLine(const std::string &line, tilec::CompileOptions &options) {
  std::vector<std::string> words = splitWords(line);
  bool named = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string &word = words[i];
    bool hasNext = i + 1 < words.size();
    auto value = [&](const std::string &flag, std::string &out) {
      if (word == flag && hasNext) {
        out = words[++i];
        return true;
      }
      if (word.rfind(flag + "=", 0) == 0) {
        out = word.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    std::string text;
    if (value("--signature", options.signature) ||
        value("--kernel", options.kernel)) {
      named = true;
    } else if (value("--num-warps", text)) {
      unsigned warps = parseUnsigned(text, 4);
      options.numWarps =
          warps && warps <= 32 && !(warps & (warps - 1)) ? warps : 4;
      named = true;
    } else if (value("--num-stages", text)) {
      options.numStages = std::max(1u, std::min(parseUnsigned(text, 3), 8u));
      named = true;
    } else if (value("--arch", text)) {
      if (text == "sm_80" || text == "sm_90" || text == "sm_90a")
        options.arch = text;
      named = true;
    } else if (word == "--device-tensor-maps") {
      options.deviceTensorMaps = named = true;
    } else if (word == "--debug") {
      options.debug = named = true;
    } else if (word == "--deterministic") {
      options.deterministic = named = true;
    } else if ((word == "-D" && hasNext) ||
               (word.size() > 2 && word.rfind("-D", 0) == 0)) {
      std::string definition = word == "-D" ? words[++i] : word.substr(2);
      size_t equals = definition.find('=');
      if (equals != std::string::npos && equals > 0)
        options.constexprs.emplace_back(
            definition.substr(0, equals),
            tilec::HostScalar::parse(definition.substr(equals + 1)));
      named = true;
    }
  }
  return named;
}

} // namespace

tilec::CompileOptions
tilec::fuzz::optionsFromRunLines(const std::string &source) {
  size_t start = 0;
  while (start < source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string::npos)
      end = source.size();
    std::string line = source.substr(start, end - start);
    start = end + 1;
    size_t run = line.find("RUN:");
    if (run == std::string::npos)
      continue;
    CompileOptions options;
    if (readRunLine(line.substr(run + 4), options))
      return options;
  }
  return CompileOptions();
}

std::string tilec::fuzz::diagnosticsProblem(const CompileResult &result) {
  if (result.ok)
    return "";
  // The first error of a failed compile, after any located warnings:
  // `fuzz.tl:LINE:COL: error: ...`. A --kernel naming no kernel is an
  // option error, rightly unlocated.
  static const std::regex located(R"(^fuzz\.tl:[0-9]+:[0-9]+: error: )");
  static const std::regex optionError(R"(^fuzz\.tl: error: no kernel named )");
  static const std::regex anyError(R"(^fuzz\.tl(:[0-9]+:[0-9]+)?: error: )");
  const std::string &diagnostics = result.diagnostics;
  // A diagnostic line (not a quoted source line) saying it is tilec's fault.
  static const std::regex internal(
      R"(^fuzz\.tl(:[0-9]+:[0-9]+)?: error: internal error)");
  std::string firstError;
  for (size_t start = 0; start < diagnostics.size();) {
    size_t end = diagnostics.find('\n', start);
    if (end == std::string::npos)
      end = diagnostics.size();
    std::string line = diagnostics.substr(start, end - start);
    if (std::regex_search(line, internal))
      return "an internal error:\n" + diagnostics;
    if (firstError.empty() && std::regex_search(line, anyError))
      firstError = line;
    start = end + 1;
  }
  if (!std::regex_search(firstError, located) &&
      !std::regex_search(firstError, optionError))
    return "an error without a source location:\n" + diagnostics;
  return "";
}

void tilec::fuzz::checkDiagnostics(const CompileResult &result) {
  std::string problem = diagnosticsProblem(result);
  if (problem.empty())
    return;
  std::fprintf(stderr, "tilec fuzz: the compile failed with %s\n",
               problem.c_str());
  std::abort();
}
