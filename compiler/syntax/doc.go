// Package syntax turns HLSL source text into an AST: the preprocessor
// (#define, #if, #include, …), the lexer and the recursive-descent parser. It
// knows no types; sema gives the AST meaning.
//
// Positions are byte offsets into diag.Sources; macro-expanded tokens carry the
// position of the macro use so diagnostics point at what the user wrote.
package syntax
