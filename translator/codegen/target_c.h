// C for resolved target-variable accesses (elaborate/target_access.h),
// built on runtime-c/target.h.
#pragma once

#include <string>

#include "translator/elaborate/target_access.h"

namespace stapx {

// A C expression of type int64_t (or const char * for a string access,
// copied into `string_buf`). `where` is the C literal naming the script
// location for fault messages.
std::string target_c(const TargetAccess& access, const std::string& where, const std::string& string_buf);

}  // namespace stapx
