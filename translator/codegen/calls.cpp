// Calls: built-ins (printf and its kin, exit...), script functions through
// the context's frames, embedded-C functions inlined or called, and
// /* stable */ values computed once per hit.
#include "translator/codegen/generator.h"

#include "frontend/format.h"
#include "frontend/printer.h"

namespace stapx::codegen {

std::string Codegen::builtin(const CallExpr* c) {
  std::string n = uniq();
  // Arguments first, left to right, into named temporaries.
  std::string stmts;
  std::vector<std::string> args;
  bool formatted = c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf;
  for (size_t i = formatted ? 1 : 0; i < c->args.size(); ++i) {
    std::string a = fmt::format("a{}_{}", i, n);
    if (c->args[i]->type == Type::Void) {  // a histogram: drawn in place, below
      args.push_back("");
      continue;
    }
    stmts += fmt::format("{} {} = {}; ", c_type(c->args[i]->type), a, expr(c->args[i]));
    args.push_back(a);
  }
  if (formatted) args.insert(args.begin(), "");  // the format: a literal, used as is
  if (c->builtin == Builtin::Printf || c->builtin == Builtin::Print || c->builtin == Builtin::Println ||
      c->builtin == Builtin::Printd || c->builtin == Builtin::Printdln)
    may_print_ = true;
  switch (c->builtin) {
    case Builtin::Printf:
    case Builtin::Sprintf: {
      // Each piece in turn: runs of plain conversions through vsnprintf,
      // the others through the runtime; sprintf appends to a temporary.
      ParsedFormat pf = parse_format(static_cast<const StringLit*>(c->args[0])->value.str());
      bool to_string = c->builtin == Builtin::Sprintf;
      std::string t = to_string ? string_temp() : "";
      if (to_string) stmts += t + "[0] = '\\0'; ";
      // (printf copies literal runs as they are and writes plain
      // conversions itself; see cut_for_output.)
      std::vector<FormatPiece> pieces;
      for (const FormatPiece& piece : pf.pieces) {
        if (to_string || piece.special) {
          pieces.push_back(piece);
          continue;
        }
        for (FormatPiece& cut : cut_for_output(piece)) pieces.push_back(std::move(cut));
      }
      for (const FormatPiece& piece : pieces) {
        if (piece.literal) {
          stmts += fmt::format("_stpx_print_mem(c, {}, {}); ", c_string(piece.kernel_format), piece.kernel_format.size());
          continue;
        }
        if (piece.plain) {
          const std::string& v = args[piece.first_arg + 1];
          stmts += piece.conv == 's'   ? fmt::format("_stpx_print_str(c, {}); ", v)
                   : piece.conv == 'd' ? fmt::format("_stpx_print_dec(c, {}); ", v)
                                       : fmt::format("_stpx_print_unsigned(c, (u64){}, '{}'); ", v, piece.conv);
          continue;
        }
        if (!piece.special) {
          if (piece.kernel_format.empty()) continue;
          std::string call_args = c_string(piece.kernel_format);
          for (size_t i = piece.first_arg; i < piece.first_arg + piece.nargs; ++i) {
            const char* cast = pf.conversions[i].type == Type::String                         ? "(const char *)"
                               : pf.conversions[i].conv == 'c' || pf.conversions[i].conv == '*' ? "(int)"
                                                                                                 : "(long long)";
            call_args += fmt::format(", {}{}", cast, args[i + 1]);
          }
          stmts += to_string ? fmt::format("_stpx_sprintf_cat({}, {}); ", t, call_args)
                             : fmt::format("_stpx_printf(c, {}); ", call_args);
          continue;
        }
        size_t a = piece.first_arg + 1;
        std::string width = piece.width == -2 ? args[a++] : std::to_string(piece.width);
        std::string prec = piece.precision == -2 ? args[a++] : std::to_string(piece.precision);
        stmts += fmt::format(
            "{{ const char *e_{0} = _stpx_format_special(c, {1}, '{2}', {3}, {4}, {5}, {6}); "
            "if (unlikely(e_{0})) STPX_ERROR(e_{0}, {7}); }} ",
            uniq(), to_string ? t : "NULL", piece.conv, c_string(piece.flags), width, prec, args[a],
            where(c->loc));
      }
      if (to_string) return fmt::format("({{ {}(const char *){}; }})", stmts, t);
      return fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Print:
    case Builtin::Println: {
      for (size_t i = 0; i < args.size(); ++i)
        stmts += c->args[i]->type == Type::Void
                     ? print_histogram(static_cast<const AtOpExpr*>(c->args[i]), c->loc)
                 : c->args[i]->type == Type::String
                     ? fmt::format("_stpx_print_str(c, {}); ", args[i])
                     : fmt::format("_stpx_print_dec(c, {}); ", args[i]);
      if (c->builtin == Builtin::Println) stmts += "_stpx_print_str(c, \"\\n\"); ";
      return fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Printd:
    case Builtin::Printdln:
    case Builtin::Sprint:
    case Builtin::Sprintln:
    case Builtin::Sprintd:
    case Builtin::Sprintdln: {
      // print with a delimiter, or into a string: each value in turn.
      bool delimited = c->builtin == Builtin::Printd || c->builtin == Builtin::Printdln ||
                       c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln;
      bool newline = c->builtin == Builtin::Printdln || c->builtin == Builtin::Sprintln ||
                     c->builtin == Builtin::Sprintdln;
      bool to_string = c->builtin == Builtin::Sprint || c->builtin == Builtin::Sprintln ||
                       c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln;
      std::string t = to_string ? string_temp() : "";
      if (to_string) stmts += t + "[0] = '\\0'; ";
      auto emit_str = [&](const std::string& v) {
        stmts += to_string ? fmt::format("_stpx_strcat({}, {}); ", t, v) : fmt::format("_stpx_print_str(c, {}); ", v);
      };
      for (size_t i = delimited ? 1 : 0; i < args.size(); ++i) {
        if (delimited && i > 1) emit_str(args[0]);
        if (c->args[i]->type == Type::Void)  // sprint(@hist_log(s)): drawn into the string
          stmts += print_histogram(static_cast<const AtOpExpr*>(c->args[i]), c->loc, t);
        else if (c->args[i]->type == Type::String)
          emit_str(args[i]);
        else if (to_string)
          stmts += fmt::format("_stpx_strcat_l({}, {}); ", t, args[i]);
        else
          stmts += fmt::format("_stpx_print_dec(c, {}); ", args[i]);
      }
      if (newline) emit_str("\"\\n\"");
      return to_string ? fmt::format("({{ {}(const char *){}; }})", stmts, t) : fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Exit:
      return "(_stpx_request_exit(), (int64_t)0)";  // a value: stap accepts `cond && exit()`
    case Builtin::None:
      break;
  }
  return "0";
}

// A zero-argument function marked /* stable */ returns the same value
// throughout a probe hit (pid(), cpu() ...): in a probe body the first call
// computes it, later ones read it back.
std::string Codegen::stable_call(const CallExpr* c, const std::string& computed) {
  std::string v = "stable_" + c->fn->cname();
  stable_calls_.insert(c->fn->cname());
  return fmt::format("(have_{0} ? {0} : (have_{0} = 1, {0} = {1}))", v, computed);
}

// borrow: a string result may stay in the callee's frame (valid until the
// next call at this level) instead of being copied out.
std::string Codegen::call(const CallExpr* c, bool borrow) {
  if (c->builtin != Builtin::None) return builtin(c);
  const FunctionDecl* f = c->fn;
  if (in_probe_body_ && f->params.empty() && f->type == Type::Long && f->has_pragma("stable"))
    return stable_call(c, call_checked(c, borrow));
  return call_checked(c, borrow);
}

std::string Codegen::call_checked(const CallExpr* c, bool borrow) {
  if (c->check_myproc) {
    // --privilege=stapusr: a myproc-unprivileged function only in the
    // user's own processes; elsewhere the script ends with an error.
    uses_context_ = true;
    return fmt::format(
        "({{ if (unlikely(!_stpx_is_myproc())) STPX_ERROR(\"{}() may only be called in the user's own "
        "processes (--privilege=stapusr)\", {}); {}; }})",
        c->name, where(c->loc), call_unchecked(c, borrow));
  }
  return call_unchecked(c, borrow);
}

std::string Codegen::call_unchecked(const CallExpr* c, bool borrow) {
  const FunctionDecl* f = c->fn;
  if (std::string in = inline_embedded(c); !in.empty()) return in;
  may_print_ = uses_context_ = true;  // what the function does is not known here
  if (!f->is_embedded) actions_unbounded_ = true;  // its statements count on c->actioncount
  std::string n = uniq();
  std::string stmts;
  std::vector<std::string> args;
  for (size_t i = 0; i < c->args.size(); ++i) {
    std::string a = fmt::format("a{}_{}", i, n);
    stmts += fmt::format("{} {} = {}; ", c_type(c->args[i]->type), a, expr(c->args[i]));
    args.push_back(a);
  }
  std::string callee = fmt::format("c->frames[c->nesting + 1].f_{}", f->cname());
  stmts += fmt::format("if (unlikely(c->nesting >= MAXNESTING)) STPX_ERROR(\"MAXNESTING exceeded\", {}); ",
                       where(c->loc));
  bool borrow_args = unmodified_fnargs(f);
  for (size_t i = 0; i < args.size(); ++i) {
    const Symbol* p = f->param_syms[i];
    if (p->type == Type::String && !borrow_args)
      stmts += fmt::format("_stpx_strcpy({}.v_{}, {}); ", callee, p->name, args[i]);
    else
      stmts += fmt::format("{}.v_{} = {}; ", callee, p->name, args[i]);
  }
  stmts += fmt::format("c->nesting++; _stpx_fn_{}(c); c->nesting--; ", f->cname());
  stmts += "if (unlikely(c->last_error)) goto err; ";
  if (f->type == Type::String && borrow)
    return fmt::format("({{ {}(const char *){}.__retvalue; }})", stmts, callee);
  if (f->type == Type::String)
    return fmt::format("({{ {}_stpx_strcpy({}, {}.__retvalue); }})", stmts, string_temp(), callee);
  if (f->type == Type::Long) return fmt::format("({{ {}{}.__retvalue; }})", stmts, callee);
  return fmt::format("({{ {}}})", stmts);
}

// An embedded-C function without parameters whose code only sets
// STAP_RETVALUE (pid(), execname(), ...) runs in place, its result in a
// temporary: no frame, no call. Anything else in its code (errors,
// returns, its frame, preprocessor lines) keeps the call. "" if not.
std::string Codegen::inline_embedded(const CallExpr* c) {
  const FunctionDecl* f = c->fn;
  if (!f->is_embedded || !f->params.empty() || (f->type != Type::Long && f->type != Type::String)) return "";
  static const std::set<std::string> forbidden = {"return", "goto", "__label__", "l", "last_error", "STAP_RETURN",
                                                  "STAP_ERROR", "STAP_PRINTF", "STAP_ARG", "asm", "__asm__"};
  std::string_view code = f->embedded_code;
  if (code.find('#') != std::string::npos) return "";
  if (code.find("print") != std::string::npos || code.find("PRINT") != std::string::npos) return "";
  if (code.find("CONTEXT") != std::string::npos) uses_context_ = true;
  std::string n = uniq();
  std::string rv = f->type == Type::String ? string_temp() : "rv_" + n;
  std::string body;
  for (size_t i = 0; i < code.size();) {
    unsigned char ch = static_cast<unsigned char>(code[i]);
    if (!std::isalpha(ch) && ch != '_') {
      // Comments and literals pass through whole (no identifiers in them).
      size_t end = i + 1;
      if (code.compare(i, 2, "/*") == 0) {
        end = code.find("*/", i + 2);
        end = end == std::string::npos ? code.size() : end + 2;
      } else if (code.compare(i, 2, "//") == 0) {
        end = code.find('\n', i);
        if (end == std::string::npos) end = code.size();
      } else if (ch == '"' || ch == '\'') {
        while (end < code.size() && code[end] != code[i]) end += code[end] == '\\' ? 2 : 1;
        end = std::min(end + 1, code.size());
      } else if (std::isdigit(ch)) {
        while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
      }
      body.append(code, i, end - i);
      i = end;
      continue;
    }
    size_t end = i;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
    std::string id(code.substr(i, end - i));
    if (forbidden.count(id) || id.rfind("STAP_ARG_", 0) == 0) return "";
    body += id == "STAP_RETVALUE" ? rv : id == "CONTEXT" ? "c" : id;
    i = end;
  }
  // The call's MAXNESTING check stays (probe bodies run at depth 0).
  std::string stmts = fmt::format("if (unlikely({} >= MAXNESTING)) STPX_ERROR(\"MAXNESTING exceeded\", {}); ",
                                  in_probe_body_ ? "0" : "c->nesting", where(c->loc));
  if (f->type == Type::String)
    return fmt::format("({{ {}{}[0] = '\\0'; {{ {} }} (const char *){}; }})", stmts, rv, body, rv);
  return fmt::format("({{ {}int64_t {} = 0; {{ {} }} {}; }})", stmts, rv, body, rv);
}

}  // namespace stapx::codegen
