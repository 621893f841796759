// The one instantiation of the expression grammar.
#include "frontend/parse/expression_def.hpp"

namespace stapx::parse::grammar {

BOOST_SPIRIT_INSTANTIATE(expr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(ident_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(number_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(string_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(embedded_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(argref_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(key_list_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(at_op_type, iterator_type, context_type)

}  // namespace stapx::parse::grammar
