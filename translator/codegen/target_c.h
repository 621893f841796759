// C for resolved target-variable accesses (elaborate/target_access.h),
// built on runtime-c/target.h.
#pragma once

#include <functional>
#include <string>

#include "translator/elaborate/target_access.h"

namespace stapx {

// A C expression of type int64_t, or const char * for a string access or
// a pretty-printed string (in buffers from `string_buf()`, each a char
// [MAXSTRINGLEN]). `where` is the C literal naming the script location
// for fault messages.
// `input` gives the C of a script value the access reads (@cast's pointer);
// `entry_read` the C that reads saved value `entry_slot` in a .return
// probe (an int64_t, or a const char * for a saved string).
std::string target_c(const TargetAccess& access, const std::string& where,
                     const std::function<std::string()>& string_buf,
                     const std::function<std::string(const ast::Expr*)>& input = nullptr,
                     const std::function<std::string(int)>& entry_read = nullptr);

// A C statement storing `value` (an int64_t) where a written access
// (target_write_problem() accepted it) lives: a register of the probed
// context, or memory through the nofault accessor.
std::string target_write_c(const TargetAccess& access, const std::string& value, const std::string& where,
                           const std::function<std::string(const ast::Expr*)>& input = nullptr);

}  // namespace stapx
