// CPU kernels for text ops: StringNormalizer and TfIdfVectorizer.
//
// StringNormalizer follows ONNX Runtime's behaviour: stop words are whole
// elements, compared case-insensitively (by lower-casing both sides) unless
// is_case_sensitive is set. Case changes are Unicode's simple mappings
// (glibc's C.UTF-8); malformed UTF-8 passes through unchanged. The locale
// attribute is ignored.
//
// TfIdfVectorizer builds an n-gram trie from the pool in init() and walks it
// per row exactly like the reference implementation.
//
// StringConcat, StringSplit and RegexFullMatch (opset 20) follow the ONNX
// reference: StringSplit splits like Python's str.split, RegexFullMatch
// matches the whole string with std::regex's ECMAScript grammar, which
// covers the RE2 syntax of common patterns (classes, \b, anchors,
// repetition bounds, alternation) but not RE2's (?P<name>) groups or
// \C; a pattern it cannot compile is refused at load.
//
// All kernels are stateless after init(); compute() is const and thread-safe.
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <limits>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/elementwise_common.h"

namespace sy {
namespace {

// ---------------------------------------------------------------- UTF-8 case mapping

// Unicode's simple case mappings, from glibc's C.UTF-8 locale (what ONNX
// Runtime's towupper/towlower give, and Python's str.upper bar its
// multi-character expansions). A hand table had covered a few blocks only,
// and paired U+0130 with U+0131. Without that locale, ASCII alone.
locale_t utf8_ctype() {
  static const locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return l;
}

uint32_t change_case_cp(uint32_t c, bool upper) {
  if (locale_t l = utf8_ctype())
    return static_cast<uint32_t>(upper ? towupper_l(static_cast<wint_t>(c), l) : towlower_l(static_cast<wint_t>(c), l));
  if (upper) return c >= 'a' && c <= 'z' ? c - 32 : c;
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The code point of the well-formed UTF-8 sequence at s[i] and its length,
// or length 0 (a stray byte, a truncated, overlong or surrogate sequence).
std::pair<uint32_t, size_t> decode_utf8(const std::string& s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return {b, 1};
  const size_t n = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return {0, 0};
  uint32_t c = b & (0x7Fu >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return {0, 0};
    c = (c << 6) | (t & 0x3Fu);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMin[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {0, 0};
  return {c, n};
}

// Malformed UTF-8 is copied as it is, byte by byte.
std::string change_case(const std::string& s, bool upper) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto [c, n] = decode_utf8(s, i);
    if (n == 0) {
      out += s[i++];
      continue;
    }
    append_utf8(out, change_case_cp(c, upper));
    i += n;
  }
  return out;
}

// ---------------------------------------------------------------- StringNormalizer

// InvalidArgument unless input i is a string tensor.
Status require_strings(const KernelContext& ctx, size_t i, const char* what) {
  const RuntimeValue& v = ctx.input_value(i);
  if (!v.is_tensor() || v.tensor().dtype() != DataType::kString)
    return InvalidArgument(ctx.node().describe(), ": ", what, " must be a string tensor");
  return OkStatus();
}

class StringNormalizerKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    std::string action = node.attr_string("case_change_action", "NONE");
    if (action == "LOWER") {
      action_ = Action::kLower;
    } else if (action == "UPPER") {
      action_ = Action::kUpper;
    } else if (action == "NONE") {
      action_ = Action::kNone;
    } else {
      return InvalidArgument(node.describe(), ": unknown case_change_action '", action, "'");
    }
    case_sensitive_ = node.attr_int("is_case_sensitive", 0) != 0;
    for (const std::string& w : node.attr_strings("stopwords"))
      stopwords_.insert(case_sensitive_ ? w : change_case(w, false));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_strings(ctx, 0, "input"));
    const Tensor& x = ctx.input(0);
    const bool two_d = x.rank() == 2;
    if (!(x.rank() == 1 || (two_d && x.dim(0) == 1)))
      return InvalidArgument(ctx.node().describe(), ": input must be [C] or [1, C], got ", x.describe());

    const std::string* in = x.data<std::string>();
    std::vector<std::string> kept;
    kept.reserve(static_cast<size_t>(x.numel()));
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string& s = in[i];
      if (!stopwords_.empty() && stopwords_.count(case_sensitive_ ? s : change_case(s, false))) continue;
      switch (action_) {
        case Action::kLower: kept.push_back(change_case(s, false)); break;
        case Action::kUpper: kept.push_back(change_case(s, true)); break;
        case Action::kNone: kept.push_back(s); break;
      }
    }
    // An all-stop-word input yields one empty string rather than an empty tensor.
    if (kept.empty()) kept.emplace_back();
    const int64_t n = static_cast<int64_t>(kept.size());
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kString, two_d ? Dims{1, n} : Dims{n}));
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < n; ++i) o[i] = std::move(kept[static_cast<size_t>(i)]);
    return OkStatus();
  }

 private:
  enum class Action { kNone, kLower, kUpper };
  Action action_ = Action::kNone;
  bool case_sensitive_ = false;
  std::unordered_set<std::string> stopwords_;
};

// ---------------------------------------------------------------- TfIdfVectorizer

class TfIdfVectorizerKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const std::string where = node.describe();
    std::string mode = node.attr_string("mode", "");
    if (mode == "TF") {
      mode_ = Mode::kTf;
    } else if (mode == "IDF") {
      mode_ = Mode::kIdf;
    } else if (mode == "TFIDF") {
      mode_ = Mode::kTfIdf;
    } else {
      return InvalidArgument(where, ": mode must be TF, IDF or TFIDF, got '", mode, "'");
    }
    min_gram_ = node.attr_int("min_gram_length", 0);
    max_gram_ = node.attr_int("max_gram_length", 0);
    max_skip_ = node.attr_int("max_skip_count", 0);
    if (min_gram_ < 1 || max_gram_ < min_gram_ || max_gram_ > (1 << 20) || max_skip_ < 0 || max_skip_ > (1 << 20))
      return InvalidArgument(where, ": need 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
    const std::vector<int64_t> counts = node.attr_ints("ngram_counts");
    indexes_ = node.attr_ints("ngram_indexes");
    weights_ = node.attr_floats("weights");
    if (indexes_.empty()) return InvalidArgument(where, ": ngram_indexes must not be empty");
    // The output has max(ngram_indexes) + 1 columns: the largest int64
    // would overflow that sum (fuzz seed 1133).
    for (int64_t v : indexes_)
      if (v < 0 || v == std::numeric_limits<int64_t>::max())
        return InvalidArgument(where, ": ngram_indexes must be in [0, ", std::numeric_limits<int64_t>::max(), "), got ",
                               v);
    output_size_ = *std::max_element(indexes_.begin(), indexes_.end()) + 1;
    // weights[i] is the weight of the pool's i-th n-gram, which counts into
    // column ngram_indexes[i] (not of column i: the two differ whenever the
    // indexes are not 0, 1, 2, ...).
    if (!weights_.empty() && weights_.size() < indexes_.size())
      return InvalidArgument(where, ": weights has ", weights_.size(), " entries but ngram_indexes has ",
                             indexes_.size());

    // Pool items become int64 tokens; strings get dense ids from a vocabulary.
    std::vector<int64_t> pool = node.attr_ints("pool_int64s");
    const std::vector<std::string> strings = node.attr_strings("pool_strings");
    strings_ = !strings.empty();
    if (strings_ == !pool.empty()) return InvalidArgument(where, ": exactly one of pool_int64s and pool_strings is needed");
    if (strings_) {
      for (const std::string& s : strings) pool.push_back(vocab_.emplace(s, static_cast<int64_t>(vocab_.size())).first->second);
    }

    nodes_.assign(1, TrieNode{});
    const int64_t total = static_cast<int64_t>(pool.size());
    int64_t ngram_id = 1;  // 0 marks a trie node that ends no n-gram
    for (size_t i = 0; i < counts.size(); ++i) {
      const int64_t size = static_cast<int64_t>(i) + 1;
      const int64_t start = counts[i];
      const int64_t end = i + 1 < counts.size() ? counts[i + 1] : total;
      if (start < 0 || end < start || end > total)
        return InvalidArgument(where, ": ngram_counts are not increasing offsets into the pool");
      const int64_t ngrams = (end - start) / size;
      if (size < min_gram_ || size > max_gram_) {
        ngram_id += ngrams;
        continue;
      }
      for (int64_t g = 0; g < ngrams; ++g) {
        int32_t cur = 0;
        for (int64_t k = 0; k < size; ++k) {
          const int64_t tok = pool[static_cast<size_t>(start + g * size + k)];
          auto it = nodes_[static_cast<size_t>(cur)].children.find(tok);
          if (it == nodes_[static_cast<size_t>(cur)].children.end()) {
            const int32_t next = static_cast<int32_t>(nodes_.size());
            nodes_[static_cast<size_t>(cur)].children.emplace(tok, next);
            nodes_.emplace_back();
            cur = next;
          } else {
            cur = it->second;
          }
        }
        if (ngram_id - 1 >= static_cast<int64_t>(indexes_.size()))
          return InvalidArgument(where, ": the pool has more n-grams than ngram_indexes entries");
        nodes_[static_cast<size_t>(cur)].column = indexes_[static_cast<size_t>(ngram_id - 1)];
        ++ngram_id;
      }
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const std::string where = ctx.node().describe();
    const RuntimeValue& xv = ctx.input_value(0);
    if (!xv.is_tensor() || !xv.tensor().defined()) return InvalidArgument(where, ": input must be a tensor");
    const Tensor& x = xv.tensor();
    const DataType dt = x.dtype();
    if (strings_ ? dt != DataType::kString : (dt != DataType::kInt32 && dt != DataType::kInt64))
      return InvalidArgument(where, ": input ", x.describe(), " does not match the pool type");
    if (x.rank() > 2) return InvalidArgument(where, ": input must be [C] or [B, C], got ", x.describe());
    const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    const int64_t cols = x.rank() == 2 ? x.dim(1) : x.numel();
    const Dims out_dims = x.rank() == 2 ? Dims{rows, output_size_} : Dims{output_size_};
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kFloat, out_dims));
    if (out->numel() == 0) return OkStatus();  // no rows: ngram_indexes may claim any width

    // Tokens of the input; strings not in the pool get -1, which no trie edge has.
    std::vector<int64_t> toks(static_cast<size_t>(x.numel()));
    for (size_t i = 0; i < toks.size(); ++i) {
      if (strings_) {
        auto it = vocab_.find(x.data<std::string>()[i]);
        toks[i] = it == vocab_.end() ? -1 : it->second;
      } else {
        toks[i] = x.int_at(static_cast<int64_t>(i));
      }
    }

    std::vector<int64_t> freq(static_cast<size_t>(rows * output_size_), 0);
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t* t = toks.data() + row * cols;
      int64_t* f = freq.data() + row * output_size_;
      int64_t start_size = min_gram_;
      for (int64_t skip = 1; skip <= max_skip_ + 1; ++skip) {
        // A gram that no longer fits in the row at this skip fits at none
        // larger: stop, rather than try all max_skip_count (up to 2^20).
        if (skip * (start_size - 1) >= cols) break;
        for (int64_t s = 0; s < cols; ++s) {
          if (s + skip * (start_size - 1) >= cols) break;
          int32_t cur = 0;
          int64_t size = 1;
          for (int64_t item = s; size <= max_gram_ && item < cols; item += skip, ++size) {
            const auto& ch = nodes_[static_cast<size_t>(cur)].children;
            auto it = ch.find(t[item]);
            if (it == ch.end()) break;
            cur = it->second;
            const int64_t col = nodes_[static_cast<size_t>(cur)].column;
            if (size >= start_size && col >= 0) ++f[col];
          }
        }
        // Unigrams do not depend on the skip distance: count them once.
        if (start_size == 1) {
          ++start_size;
          if (start_size > max_gram_) break;
        }
      }
    }

    // Each column's weight (the output is as large, so this is too).
    std::vector<float> column_weight(static_cast<size_t>(output_size_), 1.0f);
    if (!weights_.empty())
      for (size_t i = 0; i < indexes_.size(); ++i) column_weight[static_cast<size_t>(indexes_[i])] = weights_[i];
    float* o = out->data<float>();
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t c = 0; c < output_size_; ++c) {
        const int64_t n = freq[static_cast<size_t>(row * output_size_ + c)];
        const float w = column_weight[static_cast<size_t>(c)];
        float v = 0;
        switch (mode_) {
          case Mode::kTf: v = static_cast<float>(n); break;
          case Mode::kIdf: v = n > 0 ? w : 0.0f; break;
          case Mode::kTfIdf: v = w * static_cast<float>(n); break;
        }
        o[row * output_size_ + c] = v;
      }
    }
    return OkStatus();
  }

 private:
  enum class Mode { kTf, kIdf, kTfIdf };
  struct TrieNode {
    std::unordered_map<int64_t, int32_t> children;
    int64_t column = -1;  // output column of the n-gram ending here, or -1
  };
  Mode mode_ = Mode::kTf;
  int64_t min_gram_ = 1, max_gram_ = 1, max_skip_ = 0, output_size_ = 0;
  std::vector<int64_t> indexes_;
  std::vector<float> weights_;
  bool strings_ = false;
  std::unordered_map<std::string, int64_t> vocab_;
  std::vector<TrieNode> nodes_;
};

// ---------------------------------------------------------------- opset-20 string ops

class StringConcatKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_strings(ctx, 0, "X"));
    RETURN_IF_ERROR(require_strings(ctx, 1, "Y"));
    return elementwise::string_binary<std::string>(ctx, ctx.input(0), ctx.input(1), DataType::kString,
                                                   [](const std::string& a, const std::string& b) { return a + b; });
  }
};

// Python's str.split(delimiter or None, maxsplit): without a delimiter,
// runs of whitespace separate the parts and none is empty.
std::vector<std::string> split_like_python(const std::string& s, const std::string& delim, int64_t maxsplit) {
  std::vector<std::string> parts;
  int64_t splits = 0;
  if (delim.empty()) {
    auto space = [](char c) { return std::string_view(" \t\n\v\f\r\x1c\x1d\x1e\x1f").find(c) != std::string::npos; };
    size_t i = 0;
    while (true) {
      while (i < s.size() && space(s[i])) ++i;
      if (i == s.size()) break;
      if (maxsplit >= 0 && splits == maxsplit) {
        parts.push_back(s.substr(i));
        break;
      }
      size_t j = i;
      while (j < s.size() && !space(s[j])) ++j;
      parts.push_back(s.substr(i, j - i));
      ++splits;
      i = j;
    }
    return parts;
  }
  size_t start = 0;
  while (maxsplit < 0 || splits < maxsplit) {
    const size_t at = s.find(delim, start);
    if (at == std::string::npos) break;
    parts.push_back(s.substr(start, at - start));
    start = at + delim.size();
    ++splits;
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Y: the parts, padded with "" to the most any element has, as a new last
// axis; Z: how many parts each element has.
class StringSplitKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    delimiter_ = node.attr_string("delimiter", "");
    maxsplit_ = node.has_attr("maxsplit") ? node.attr_int("maxsplit", -1) : -1;
    if (maxsplit_ < -1) maxsplit_ = -1;  // Python treats any negative maxsplit as no limit
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_strings(ctx, 0, "X"));
    const Tensor& x = ctx.input(0);
    const std::string* in = x.data<std::string>();
    std::vector<std::vector<std::string>> parts(static_cast<size_t>(x.numel()));
    int64_t widest = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      parts[i] = split_like_python(in[i], delimiter_, maxsplit_);
      widest = std::max<int64_t>(widest, static_cast<int64_t>(parts[i].size()));
    }
    Dims yd = x.dims();
    yd.push_back(widest);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kString, yd));
    ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output(1, DataType::kInt64, x.dims()));
    std::string* yo = y->data<std::string>();
    int64_t* zo = z->data<int64_t>();
    for (size_t i = 0; i < parts.size(); ++i) {
      zo[i] = static_cast<int64_t>(parts[i].size());
      for (size_t k = 0; k < parts[i].size(); ++k) yo[i * static_cast<size_t>(widest) + k] = std::move(parts[i][k]);
    }
    return OkStatus();
  }

 private:
  std::string delimiter_;
  int64_t maxsplit_ = -1;
};

class RegexFullMatchKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const std::string pattern = node.attr_string("pattern", "");
    try {
      regex_ = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return InvalidArgument(node.describe(), ": pattern '", pattern, "' is not a regular expression Switchyard can ",
                             "compile (ECMAScript grammar): ", e.what());
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_strings(ctx, 0, "X"));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kBool, x.dims()));
    const std::string* in = x.data<std::string>();
    bool* out = y->data<bool>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = std::regex_match(in[i], regex_);
    return OkStatus();
  }

 private:
  std::regex regex_;
};

void add(KernelRegistry& r, const char* op, int since, KernelFactory f) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.factory = f;
  r.add(std::move(d));
}

}  // namespace

void register_cpu_misc_text_kernels(KernelRegistry& r) {
  add(r, "StringNormalizer", 10, &make_kernel<StringNormalizerKernel>);
  add(r, "TfIdfVectorizer", 9, &make_kernel<TfIdfVectorizerKernel>);
  add(r, "StringConcat", 20, &make_kernel<StringConcatKernel>);
  add(r, "StringSplit", 20, &make_kernel<StringSplitKernel>);
  add(r, "RegexFullMatch", 20, &make_kernel<RegexFullMatchKernel>);
}

}  // namespace sy
