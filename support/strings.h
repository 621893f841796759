// String helpers every layer uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stapx::support {

// The items with `sep` between them: join({"a", "b"}) is "a, b", as stap
// lists alternatives in its messages.
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// The pieces of `text` between `sep`s (empty ones too): split("a,,b", ',')
// is {"a", "", "b"}; the views are into `text`.
std::vector<std::string_view> split(std::string_view text, char sep);

}  // namespace stapx::support
