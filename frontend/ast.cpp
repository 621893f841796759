// Names of AST enums, shared by the printer and diagnostics.
#include "frontend/ast.h"

namespace stapx::ast {

const char* type_name(Type t) {
  switch (t) {
    case Type::Long: return "long";
    case Type::String: return "string";
    case Type::Void: return "void";
    case Type::Stats: return "stats";
    case Type::Unknown: break;
  }
  return "unknown";
}

At at_from_name(std::string_view name) {
  static constexpr std::pair<std::string_view, At> kNames[] = {
      {"cast", At::Cast},   {"defined", At::Defined}, {"entry", At::Entry},       {"var", At::Var},
      {"const", At::Const}, {"kregister", At::Kregister}, {"perf", At::Perf},     {"count", At::Count},
      {"sum", At::Sum},     {"min", At::Min},         {"max", At::Max},           {"avg", At::Avg},
      {"variance", At::Variance}, {"hist_log", At::HistLog}, {"hist_linear", At::HistLinear}};
  for (const auto& [n, at] : kNames)
    if (n == name) return at;
  return At::Other;
}

const char* op_text(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    case Op::UShr: return ">>>";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::LogAnd: return "&&";
    case Op::LogOr: return "||";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::RegexMatch: return "=~";
    case Op::RegexNoMatch: return "!~";
    case Op::Concat: return ".";
    case Op::Neg: return "-";
    case Op::Plus: return "+";
    case Op::Not: return "!";
    case Op::BitNot: return "~";
    case Op::PreInc:
    case Op::PostInc: return "++";
    case Op::PreDec:
    case Op::PostDec: return "--";
    case Op::AddressOf: return "&";
    case Op::Assign: return "=";
    case Op::AggregateInto: return "<<<";
  }
  return "?";
}

}  // namespace stapx::ast
