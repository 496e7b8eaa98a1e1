// Package syntax turns HLSL source text into an AST: the preprocessor
// (#define, #if, #include, …), the lexer and the recursive-descent parser. It
// knows no types; sema gives the AST meaning.
//
// Positions are byte offsets into diag.Sources; macro-expanded tokens carry the
// position of the macro use so diagnostics point at what the user wrote.
//
// Pipeline: lexAll splits each file into preprocessing tokens; the
// preprocessor (preprocess.go, macro.go, ppexpr.go) runs directives and expands
// macros with hide sets ("painted blue" tokens) into one token stream; the
// parser (parser.go, parse_stmt.go, parse_expr.go) builds the AST, telling
// types from values with the built-in type names (types.go) plus the struct
// and typedef names it has seen.
//
// Hostile input stays finite: expansion and #include work is capped at
// 1,000,000 tokens, #include nesting at 64, macro nesting at 256, and parser
// nesting at 1000 levels, each with a coded error. Parse errors unwind to the
// enclosing statement or declaration, which skips to the next ';' or '}', so
// one mistake gives one message.
package syntax
