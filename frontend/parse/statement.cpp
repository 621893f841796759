// The one instantiation of the statement and declaration grammar.
#include "frontend/parse/statement_def.hpp"

namespace stapx::parse::grammar {

BOOST_SPIRIT_INSTANTIATE(toplevel_type, iterator_type, context_type)

}  // namespace stapx::parse::grammar
