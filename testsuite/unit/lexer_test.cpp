// The lexer's sixteen-bytes-at-a-time paths (blanks, comments, string
// literals, embedded C) against every place their ends can fall in a block.
#include <gtest/gtest.h>

#include <string>

#include "frontend/lexer.h"

namespace stapx::test {
namespace {

// The tokens' texts, '|' between them.
std::string texts(const std::string& src) {
  std::string out;
  for (const Tok& t : tokenize(src)) out += (out.empty() ? "" : "|") + std::string(t.view());
  return out;
}

TEST(Lexer, BlankRunsOfAnyLength) {
  for (size_t n = 0; n < 50; ++n) {
    std::string blanks;
    for (size_t i = 0; i < n; ++i) blanks += " \t\n\r\v\f"[i % 6];
    EXPECT_EQ(texts("a" + blanks + "b" + blanks), n ? "a|b" : "ab") << n;
    std::vector<Tok> toks = tokenize("x" + blanks + "+y");  // (locations only)
    ASSERT_EQ(toks.size(), 3u) << n;
    EXPECT_EQ(toks[1].loc.offset, 1 + n) << n;
  }
}

TEST(Lexer, BlockCommentsEndWhereverTheyEnd) {
  for (size_t n = 0; n < 50; ++n) {
    // Stars and slashes that close nothing, then the end at every offset.
    std::string body;
    for (size_t i = 0; i < n; ++i) body += "* /"[i % 3];
    EXPECT_EQ(texts("a /*" + body + "*/ b"), "a|b") << n;
    EXPECT_EQ(texts("/*" + body + "*/"), "") << n;
    EXPECT_EQ(texts("a /**" + body + "**/b"), "a|b") << n;
    // Unterminated: one error token, the rest of the text.
    std::string src = "a /*" + body;  // (the tokens view it)
    std::vector<Tok> open = tokenize(src);
    ASSERT_EQ(open.size(), 2u) << n;
    EXPECT_EQ(open[1].kind, TokKind::Error) << n;
    EXPECT_EQ(open[1].len, 2 + body.size()) << n;
    // A '*' last, the text's end right after it.
    EXPECT_EQ(tokenize("a /*" + body + "*").back().kind, TokKind::Error) << n;
  }
}

TEST(Lexer, EmbeddedCEndsWhereverItEnds) {
  for (size_t n = 0; n < 50; ++n) {
    std::string body;
    for (size_t i = 0; i < n; ++i) body += "}%x"[i % 3];  // never a '%' before a '}'

    std::string src = "function f() %{" + body + "%} x";  // (the tokens view it)
    std::vector<Tok> toks = tokenize(src);
    ASSERT_EQ(toks.size(), 6u) << n;
    EXPECT_EQ(toks[4].kind, TokKind::EmbeddedC) << n;
    EXPECT_EQ(toks[4].view(), "%{" + body + "%}") << n;
    EXPECT_EQ(toks[5].view(), "x") << n;
  }
}

TEST(Lexer, LineCommentsEndWhereverTheyEnd) {
  for (size_t n = 0; n < 50; ++n) {
    std::string body;
    for (size_t i = 0; i < n; ++i) body += "x/#*\t"[i % 5];
    EXPECT_EQ(texts("a #" + body + "\nb"), "a|b") << n;
    EXPECT_EQ(texts("a //" + body + "\nb //" + body), "a|b") << n;
    std::vector<Tok> toks = tokenize("#" + body + "\n+y");  // (locations only)
    ASSERT_EQ(toks.size(), 2u) << n;
    EXPECT_EQ(toks[0].loc.offset, n + 2) << n;
  }
}

TEST(Lexer, StringsEndWhereverTheyEnd) {
  for (size_t n = 0; n < 50; ++n) {
    // Escapes (of the quote too) and the other quote at every offset.
    std::string body;
    for (size_t i = 0; i < n; ++i) body += i % 7 == 3 ? "\\\"" : i % 5 == 1 ? "'" : i % 3 == 0 ? "\\n" : "a";
    std::string lit = "\"" + body + "\"";
    EXPECT_EQ(texts("x " + lit + " y"), "x|" + lit + "|y") << n;
    EXPECT_EQ(tokenize(lit)[0].kind, TokKind::String) << n;
    // Unterminated: at the line's end, or at the text's.
    std::vector<Tok> line = tokenize("x \"" + body + "\ny\"");
    ASSERT_EQ(line.size(), 2u) << n;
    EXPECT_EQ(line[1].kind, TokKind::Error) << n;
    EXPECT_EQ(line[1].len, 1 + body.size()) << n;
    std::vector<Tok> eof = tokenize("x \"" + body);
    ASSERT_EQ(eof.size(), 2u) << n;
    EXPECT_EQ(eof[1].kind, TokKind::Error) << n;
    EXPECT_EQ(eof[1].len, 1 + body.size()) << n;
    // A backslash last: the text ends in the escape.
    EXPECT_EQ(tokenize("\"" + body + "\\").back().kind, TokKind::Error) << n;
    // Long runs of plain bytes, with the end, or an escaped quote, at
    // every offset.
    std::string plain(n, 'a');
    EXPECT_EQ(texts("x \"" + plain + "\" y"), "x|\"" + plain + "\"|y") << n;
    std::string escaped = plain + "\\\"" + std::string(20, 'b');
    EXPECT_EQ(texts("\"" + escaped + "\""), "\"" + escaped + "\"") << n;
    // A character constant.
    EXPECT_EQ(texts("'" + std::string(n % 3, 'c') + "' z"), "'" + std::string(n % 3, 'c') + "'|z") << n;
  }
}

}  // namespace
}  // namespace stapx::test
