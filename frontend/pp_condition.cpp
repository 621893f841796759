// Conditions of preprocessor conditionals (see pp_condition.h), and the
// facts they compare: the target's kernel configuration and versions.
#include "frontend/pp_condition.h"


#include <cctype>
#include <cstdlib>
#include <optional>

#include "support/glob.h"

namespace stapx {

namespace {

using PTok = Tok;

// stap's words for a condition that starts with no fact it knows.
const char* const kConditionFacts =
    "'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n"
    "             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n"
    "             comparison between strings or integers";

// What the right operand of a comparison must be, given the left one.
std::string_view right_operand_expected(std::string_view lhs, TokKind kind) {
  if (lhs.rfind("CONFIG_", 0) == 0) return "string, number literal or other CONFIG_... as right side operand";
  if (lhs == "guru_mode") return "number";
  if (kind == TokKind::Ident) return "string literal";
  if (kind == TokKind::String) return "string literal as right value";
  return "number literal as right value";
}

// The facts a condition compares as strings (guru_mode is a number).
bool is_fact(std::string_view s) {
  return s == "kernel_v" || s == "kernel_vr" || s == "systemtap_v" || s == "arch" || s == "runtime" ||
         s == "systemtap_privilege";
}

}  // namespace

// One comparison of a condition: LHS OP RHS.
bool ConditionReader::comparison(std::span<const PTok> c, size_t& i) {
  // Errors point where stap's do: at an operand that cannot start a
  // comparison, at the missing operator, or at a mismatched right operand.
  auto at = [&](size_t k) -> const PTok& { return k < c.size() ? c[k] : *cond_end_; };
  const PTok& l = c[i];
  bool operand = l.kind == TokKind::Ident || l.kind == TokKind::Number ||
                 l.kind == TokKind::String || l.kind == TokKind::Dollar ||
                 (l.kind == TokKind::At && text(l).size() > 1 && text(l)[1] != 'd');
  if (!operand) {
    error(l, kConditionFacts);
    i = c.size();
    return false;
  }
  if (l.kind == TokKind::Ident && !is_fact(text(l)) && text(l) != "guru_mode" && text(l).rfind("CONFIG_", 0) != 0) {
    error(l, kConditionFacts);
    i = c.size();
    return false;
  }
  if (i + 1 >= c.size()) {
    // A fact alone (`%( CONFIG_SMP %? ...`): stap takes the '%?' for the
    // operator and reports the token after it as the wrong right operand.
    // A number or string alone gets stap's list of facts.
    if (l.kind == TokKind::Ident)
      error(cond_after_ ? *cond_after_ : *cond_end_, std::string(right_operand_expected(text(l), l.kind)));
    else
      error(l, kConditionFacts);
    i = c.size();
    return false;
  }
  std::string_view op = i + 1 < c.size() ? text(c[i + 1]) : std::string_view();
  if (op != "==" && op != "!=" && op != "<" && op != "<=" && op != ">" && op != ">=") {
    error(at(i + 1), "comparison operator");
    i = c.size();
    return false;
  }
  // The facts that are names, not versions or numbers, take only == and !=.
  std::string_view lhs = text(l);
  if (l.kind == TokKind::Ident && (lhs == "arch" || lhs == "runtime" || lhs == "systemtap_privilege" ||
                                   lhs == "guru_mode") && op != "==" && op != "!=") {
    error(c[i + 1], "'==' or '!='");
    i = c.size();
    return false;
  }
  if (i + 2 >= c.size()) {
    error(at(i + 2), std::string(right_operand_expected(text(l), l.kind)));
    i = c.size();
    return false;
  }
  const PTok& r = c[i + 2];
  i += 3;
  // A string literal's text; \" and \\ stand for a quote and a backslash
  // (a configured string is compared with its quotes: "\"text\"").
  auto unquote = [&](const PTok& t) {
    std::string_view s = text(t);
    s = s.substr(1, s.size() - 2);
    std::string out;
    out.reserve(s.size());
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] == '\\' && k + 1 < s.size() && (s[k + 1] == '"' || s[k + 1] == '\\')) ++k;
      out += s[k];
    }
    return out;
  };
  auto number = [&](const PTok& t, int64_t& v) -> bool {
    std::string s(text(t));
    if (s == "$#" || s == "@#") {
      v = static_cast<int64_t>(facts_.args.size());
      return true;
    }
    if ((s[0] == '$' || s[0] == '@') && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))) {
      size_t n = std::strtoul(s.c_str() + 1, nullptr, 10);  // saturates, never throws
      if (n == 0 || n > facts_.args.size()) return false;
      s = facts_.args[n - 1];
    } else if (t.kind != TokKind::Number) {
      return false;
    }
    char* end = nullptr;
    v = static_cast<int64_t>(std::strtoull(s.c_str(), &end, 0));
    return end && *end == '\0';
  };
  auto cmp_result = [&](int c3) {
    if (op == "==") return c3 == 0;
    if (op == "!=") return c3 != 0;
    if (op == "<") return c3 < 0;
    if (op == "<=") return c3 <= 0;
    if (op == ">") return c3 > 0;
    return c3 >= 0;
  };
  auto glob = [&](std::string_view value, std::string_view pattern) {
    if (op == "==" || op == "!=") {
      bool m = support::name_matches(pattern, value);
      return op == "==" ? m : !m;
    }
    return cmp_result(compare_versions(value, pattern));
  };
  if (l.kind == TokKind::Ident && r.kind == TokKind::String) {
    std::string pat = unquote(r);
    if (lhs == "kernel_v") return glob(facts_.kernel_v, pat);
    if (lhs == "kernel_vr") return glob(facts_.kernel_vr, pat);
    if (lhs == "systemtap_v") return glob(facts_.systemtap_v, pat);
    if (lhs == "arch") return glob(facts_.arch, pat);
    if (lhs == "runtime") return glob(facts_.runtime, pat);
    if (lhs == "systemtap_privilege") return glob(facts_.privilege, pat);
    if (lhs.rfind("CONFIG_", 0) == 0) {
      return glob(facts_.config.find(lhs).value_or(""), pat);
    }
  }
  if (lhs == "guru_mode") {
    int64_t v = 0;
    if (!number(r, v)) {
      error(r, "number");
      return false;
    }
    return cmp_result((facts_.guru ? 1 : 0) - static_cast<int>(v));
  }
  if (l.kind == TokKind::String && r.kind == TokKind::String)
    return cmp_result(unquote(l).compare(unquote(r)));
  int64_t a = 0, b = 0;
  if (number(l, a) && number(r, b)) return cmp_result(a < b ? -1 : a > b ? 1 : 0);
  // CONFIG_A >= CONFIG_B, CONFIG_A > 4: compare configured numbers.
  auto config_number = [&](const PTok& t, int64_t& v) {
    std::string_view s = text(t);
    if (s.rfind("CONFIG_", 0) != 0) return number(t, v);
    std::optional<std::string_view> value = facts_.config.find(s);
    if (!value || value->empty()) return false;
    std::string digits(*value);
    char* end = nullptr;
    v = static_cast<int64_t>(std::strtoll(digits.c_str(), &end, 0));
    return end && *end == '\0';
  };
  if (config_number(l, a) && config_number(r, b)) return cmp_result(a < b ? -1 : a > b ? 1 : 0);
  // A configured value that is not a number, against a number (CONFIG_SMP,
  // "y", == 1): stap's refusal, at the option.
  if (lhs.rfind("CONFIG_", 0) == 0 && r.kind == TokKind::Number) {
    std::optional<std::string_view> value = facts_.config.find(lhs);
    if (value && !value->empty()) {
      error_text(l, "Config option value not a number");
      return false;
    }
  }
  if (text(l).substr(0, 7) == "CONFIG_" || text(r).substr(0, 7) == "CONFIG_") return false;
  if (l.kind == TokKind::Ident && !is_fact(lhs) && lhs.rfind("CONFIG_", 0) != 0)
    error(l, kConditionFacts);
  else
    error(r, std::string(right_operand_expected(lhs, l.kind)));
  return false;
}

// COND := AND ('||' AND)* ; AND := CMP ('&&' CMP)*  (no parentheses, as stap)
bool ConditionReader::operator()(std::span<const PTok> c, const PTok& end, const PTok* after) {
  cond_end_ = &end;
  cond_after_ = after;
  if (c.empty()) return false;
  size_t i = 0;
  bool any = false;
  // A '&&' or '||' last, right before the '%?': stap's list of what a
  // comparison starts with, at the '%?'.
  auto ends_after_operator = [&] {
    if (i < c.size()) return false;
    error(end, kConditionFacts);
    return true;
  };
  while (i < c.size()) {
    bool all = true;
    while (true) {
      bool v = comparison(c, i);
      all = all && v;
      if (i < c.size() && text(c[i]) == "&&") {
        ++i;
        if (ends_after_operator()) return false;
        continue;
      }
      break;
    }
    any = any || all;
    if (i < c.size() && text(c[i]) == "||") {
      ++i;
      if (ends_after_operator()) return false;
      continue;
    }
    if (i < c.size()) {
      error(c[i], "'&&', '||' or '%?'");
      break;
    }
  }
  return any;
}

KernelConfig::KernelConfig(std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  for (const auto& [name, value] : values) set(name, value);
}

std::string_view KernelConfig::keep(std::string text) {
  texts_.push_back(std::make_shared<const std::string>(std::move(text)));
  return *texts_.back();
}

KernelConfig KernelConfig::from_text(std::string text) {
  KernelConfig c;
  std::string_view rest = c.keep(std::move(text));
  // (A Debian .config has a CONFIG_ line per 30-odd bytes.)
  c.values_.reserve(rest.size() / 32);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.substr(0, 7) != "CONFIG_") continue;  // "# CONFIG_X is not set", comments
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    // A string value keeps its quotes, as stap compares it: `CONFIG_X ==
    // "\"text\""`, and `CONFIG_LOCALVERSION == ""` is false for `""`.
    c.insert_or_assign(line.substr(0, eq), line.substr(eq + 1));
  }
  return c;
}

void KernelConfig::set(std::string_view name, std::string_view value) {
  std::string_view both = keep(std::string(name) + std::string(value));
  insert_or_assign(both.substr(0, name.size()), both.substr(name.size()));
}

void KernelConfig::insert_or_assign(std::string_view name, std::string_view value) {
  values_.place(name) = {name, value};
}

std::optional<std::string_view> KernelConfig::find(std::string_view name) const {
  if (const Value* v = values_.find(name)) return v->value;
  return std::nullopt;
}

// Like glibc's strverscmp for the version strings scripts use: runs of
// digits compare as numbers (their first 19 digits), everything else
// bytewise.
int compare_versions(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // The number a run of digits starts with, and where the run ends.
  auto number = [&](std::string_view s, size_t& i) {
    unsigned long long v = 0;
    for (size_t n = 0; i < s.size() && digit(s[i]); ++i, ++n)
      if (n < 19) v = v * 10 + static_cast<unsigned>(s[i] - '0');
    return v;
  };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      unsigned long long x = number(a, i), y = number(b, j);
      if (x != y) return x < y ? -1 : 1;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
      ++i;
      ++j;
    }
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

}  // namespace stapx
