// The tokens the grammar runs over. Spirit X3 parses a file's token array
// (iterator: const Tok*), lexed once, with no skipper: blanks and comments
// are gone, and every primitive tests a token's kind or operator code
// instead of scanning characters.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/source.h"

namespace stapx::parse {

// The token format is the lexer's (frontend/lexer.h), classified there.
using stapx::kAssign;
using stapx::kBinary;
using stapx::kPostfix;
using stapx::kUnary;
using stapx::op_class;
using stapx::op_code;
using stapx::Tok;
using stapx::Word;
using stapx::word_of;

// The tokens of `file` as the grammar takes them (see TokenMaker), after a
// token that is none (see Tok::glued), ending with a token of kind End
// whose location is the end of the input: a source file's, lexed here and
// made in `buf` (scratch space kept from file to file: it only grows), or a
// preprocessed view's, made as the preprocessor chose them. Returns none,
// having reported why, for input the grammar must not see: a byte outside
// ASCII in code, or nesting past what the recursive descent's stack allows.
std::span<const Tok> make_tokens(const SourceManager& sm, uint32_t file, std::vector<Tok>& buf, DiagSink& diags);

}  // namespace stapx::parse
