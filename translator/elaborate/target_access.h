// A resolved target-variable expression ($var, $var->a->b[2], $return):
// what codegen computes for it at run time.
#pragma once

#include <cstdint>
#include <optional>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "translator/debuginfo/debuginfo.h"

namespace stapx {

struct TargetAccess {
  // long: the value. string: the address of a char array to copy.
  debug::LocExprP value;
  bool is_string = false;
  uint64_t max_len = 0;  // string: the array's length
  // A pretty-printed string ($$parms, $var$): `format` (printf style, one
  // %lld, %llu, %llx or %s per part) filled from `parts`.
  // A value saved when the function was entered (a parameter in a .return
  // probe, @entry(...)): its index among the probe's saved values; a
  // string (is_string, or an entry_expr of type string) is saved whole.
  int entry_slot = -1;
  // An entry save of @entry(expr) for a script expression (not a target
  // variable): the module evaluates `entry_expr` when the function is
  // entered. (Only in Program::entry_saves.)
  const ast::Expr* entry_expr = nullptr;
  bool is_pretty = false;
  std::string format;
  std::vector<TargetAccess> parts;

  // Script values the trees read (LocExpr::Op::Input): @cast's pointer,
  // the pointer '->' follows.
  std::vector<const ast::Expr*> inputs;

  // The C type of a scalar value ("struct file *"), or with `address` the
  // type of the object whose address the value is: what a script variable
  // given this value carries for '->' (autocast). Null for strings.
  const debug::DType* ctype = nullptr;
  bool address = false;
  // The trees' memory reads and writes are of the current task's user
  // memory (a type from a user-space header: @cast(p, "T", "<sys/un.h>")).
  bool user = false;

  // A family's own $name (procfs's $value, netfilter's $skb): its C
  // expression, a struct _stpx_text pointer for a string or a number's
  // lvalue, and whether the handler may assign it (if not, what its family
  // says to an assignment).
  std::string context_c;
  bool context_string = false;
  bool context_cstring = false;  // context_c is a const char * (ContextVar::c_string)
  bool context_writable = false;
  DiagId context_write_diag{};

  bool yields_string() const { return is_string || is_pretty || context_string || context_cstring; }
  // An entry save (in Program::entry_saves) that keeps a string.
  bool saves_string() const {
    return is_string || (entry_expr && entry_expr->type == ast::Type::String);
  }
};

// Resolves `t` at `site` (a .return probe when `is_return`); reports why not
// and returns nullopt when it cannot. In a .return probe, parameters are
// their values at entry (as in stap): what must be saved then is appended
// to `entry_saves`.
std::optional<TargetAccess> resolve_target(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                           bool is_return, std::vector<TargetAccess>* entry_saves,
                                           DiagSink& diags);

// &$expr: the address of what `t` names; reports and returns nullopt if
// it is not in memory.
std::optional<TargetAccess> resolve_address(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                            DiagSink& diags);

// @cast(ptr, "type"[, "module"])->field...: `ptr` (args[0]) read as a
// pointer to the named type of `di`, the debug information of the kernel
// or of the module that cast_module() names. With `address`, &@cast(...):
// the address of what the chain names.
// With `user`, the types are of user space (a header's) and so is the
// memory read.
std::optional<TargetAccess> resolve_cast(const ast::AtOpExpr& a, debug::DebugInfo& di, DiagSink& diags,
                                         bool address = false, bool user = false);

// base->field...[i] on a script value (autocast): `m.base` read as a value
// of C type `type`, or as the address of an object of that type when
// `address` (a value that came from &...). A char array is its address
// here, a number, as in stap. With `user`, the memory read is user space's.
std::optional<TargetAccess> resolve_member(const ast::MemberExpr& m, const debug::DType* type, bool address,
                                           DiagSink& diags, bool take_address = false, bool user = false);

// The module whose types @cast's third argument names; "" for the kernel
// ("kernel", "kernel<header.h>", none, or not a string).
std::string cast_module(const ast::AtOpExpr& a);
// Whether one name of @cast's module list is the kernel ("kernel", or
// "kernel<linux/fs.h>": the kernel's own debug information has its types).
bool names_kernel(std::string_view module);
// Whether it is a list of user-space headers ("<sys/un.h>").
inline bool names_user_headers(std::string_view module) { return module.starts_with('<'); }
// @cast's module argument naming a user-space program or library by its
// path ("/usr/bin/prog"; not a .ko, a header or a glob).
inline bool names_user_binary(std::string_view module) {
  return module.find('/') != std::string_view::npos && !names_user_headers(module) && !module.ends_with(".ko") &&
         module.find_first_of("*?[") == std::string_view::npos;
}

// @var("name[@file]"[, "kernel"])->field...: a variable with static
// storage, from the kernel's debug information; or with a program's path
// (`di` that program's, `user` set), from its memory in the probed process.
// With `address`, &@var(...).
std::optional<TargetAccess> resolve_var(const ast::AtOpExpr& a, debug::DebugInfo& di, DiagSink& diags,
                                        bool address = false, bool user = false);
// @var's second argument ("" without one).
std::string var_module(const ast::AtOpExpr& a);

// Why the access cannot be assigned to (a string, a bitfield, a computed
// value, a value saved at entry), or null when it can.
const char* target_write_problem(const TargetAccess& a);

// Does the access read a link-time kernel address (a static variable,
// @var), which the module must relocate by the KASLR displacement?
bool uses_link_address(const TargetAccess& a);

// Does the access read a register's value at the entry of the running
// function (LocExpr::Op::EntryReg), which the module must record there?
bool uses_entry_values(const TargetAccess& a);

// @entry($expr) in a .return probe: `t` evaluated at entry.
std::optional<TargetAccess> resolve_entry(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                          std::vector<TargetAccess>& entry_saves, DiagSink& diags);

}  // namespace stapx
