// The stapx version, shown by -V and recorded in built modules' cache keys.
#pragma once

namespace stapx {
inline constexpr const char kVersion[] = "0.1.0";
}
