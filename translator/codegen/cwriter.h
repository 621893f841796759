// A structured writer for generated C: indentation follows blocks, and a
// block opened through block() is closed when its guard goes out of scope,
// so generated braces cannot unbalance.
#pragma once

#include <fmt/format.h>

#include <string>

namespace stapx {

class CWriter {
 public:
  class Block {
   public:
    Block(CWriter& w, std::string close) : w_(w), close_(std::move(close)) {}
    Block(const Block&) = delete;
    ~Block() {
      --w_.depth_;
      w_.line(close_);
    }

   private:
    CWriter& w_;
    std::string close_;
  };

  template <typename... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    line(std::string_view(fmt::format(f, std::forward<Args>(args)...)));
  }
  void line(std::string_view text) {
    if (!text.empty()) out_.append(depth_, '\t');
    out_ += text;
    out_ += '\n';
  }
  void blank() { out_ += '\n'; }
  // A line as it is, without indentation (embedded C, whose columns the
  // C compiler reports against the script).
  void raw(std::string_view text) {
    out_ += text;
    out_ += '\n';
  }
  // "head {" ... "}" + tail
  [[nodiscard]] Block block(std::string_view head, std::string close = "}") {
    line(std::string(head) + (head.empty() ? "{" : " {"));
    ++depth_;
    return Block(*this, std::move(close));
  }
  // Another writer's text, as lines of a block at the current depth.
  void append(const CWriter& other) {
    size_t pos = 0;
    const std::string& t = other.out_;
    while (pos < t.size()) {
      size_t nl = t.find('\n', pos);
      line(std::string_view(t).substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  int depth_ = 0;
};

}  // namespace stapx
