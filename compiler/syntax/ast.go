package syntax

import "waverig/compiler/diag"

// File is a parsed translation unit (after preprocessing).
type File struct {
	Decls []Decl
	// Src is the main source file, for messages about the whole file (no entry
	// point); nil when it could not be read.
	Src *diag.Source
}

// Node is any AST node; Pos is the position of its first token.
type Node interface{ P() diag.Pos }

// Attribute is `[name(args)]` or `[[vk::name(args)]]` (Namespace "vk").
type Attribute struct {
	Pos       diag.Pos
	Namespace string // "" or "vk"
	Name      string // "numthreads", "shader", "binding", "constant_id", "push_constant", "location", "unroll", …
	Args      []Expr
}

// TypeExpr is a type as written: a name with optional template arguments
// (`float3`, `vector<float,3>`, `RWStructuredBuffer<Foo>`, `matrix<float,4,4>`),
// plus modifiers that bind to the type.
type TypeExpr struct {
	Pos  diag.Pos
	Name string
	// Args are template arguments: types (TypeArg) or integer constant expressions (ExprArg).
	Args []TemplateArg
	// Modifiers: "row_major", "column_major", "unorm", "snorm" …
	Modifiers []string
}

// TemplateArg is one template argument; exactly one field is set.
type TemplateArg struct {
	Type *TypeExpr
	Expr Expr
}

// Register is `: register(t0, space1)`.
type Register struct {
	Pos   diag.Pos
	Class byte // 'b', 't', 'u', 's'
	Index int
	Space int // 0 when omitted
}

// Decl is a top-level or struct-member declaration.
type Decl interface {
	Node
	declNode()
}

// VarDecl declares one variable (global, local, member or parameter). A declaration
// with several declarators (`int a, b[2];`) is split into one VarDecl each.
type VarDecl struct {
	Pos       diag.Pos
	Attrs     []Attribute
	Storage   []string // "static", "const", "groupshared", "uniform", "extern", "precise", "nointerpolation", …
	Type      *TypeExpr
	Name      string
	NamePos   diag.Pos
	ArrayDims []Expr // `a[2][3]` -> [2, 3]; a nil entry is an unsized dimension `a[]`
	Semantic  string // `: SV_Target0`
	Register  *Register
	Init      Expr   // `= expr` or an InitList
	ParamDir  string // parameters only: "", "in", "out", "inout"
	// MeshQual is a mesh-shader parameter qualifier (parameters only): "vertices",
	// "indices", "primitives" (with out) or "payload" (with in); "" for none.
	MeshQual   string
	PackOffset string // `: packoffset(c0)` (accepted, ignored by layout with a warning)
}

// FuncDecl is a function declaration or definition.
type FuncDecl struct {
	Pos      diag.Pos
	Attrs    []Attribute
	Storage  []string
	Result   *TypeExpr
	Name     string
	NamePos  diag.Pos
	Params   []*VarDecl
	Semantic string     // return semantic
	Body     *BlockStmt // nil for a prototype
}

// StructDecl is `struct Name { members };`.
type StructDecl struct {
	Pos     diag.Pos
	Name    string
	Members []*VarDecl
}

// CBufferDecl is `cbuffer Name : register(b0) { members };` (also tbuffer, with TBuffer set).
type CBufferDecl struct {
	Pos      diag.Pos
	Attrs    []Attribute
	Name     string
	Register *Register
	Members  []*VarDecl
	TBuffer  bool
}

// TypedefDecl is `typedef T Name[dims];`.
type TypedefDecl struct {
	Pos       diag.Pos
	Type      *TypeExpr
	Name      string
	ArrayDims []Expr
}

// DeclGroup holds the declarations of one statement that declared several things
// at top level, e.g. `struct S { … } s;`.
type DeclGroup struct {
	Pos   diag.Pos
	Decls []Decl
}

func (d *VarDecl) P() diag.Pos     { return d.Pos }
func (d *FuncDecl) P() diag.Pos    { return d.Pos }
func (d *StructDecl) P() diag.Pos  { return d.Pos }
func (d *CBufferDecl) P() diag.Pos { return d.Pos }
func (d *TypedefDecl) P() diag.Pos { return d.Pos }
func (d *DeclGroup) P() diag.Pos   { return d.Pos }
func (*VarDecl) declNode()         {}
func (*FuncDecl) declNode()        {}
func (*StructDecl) declNode()      {}
func (*CBufferDecl) declNode()     {}
func (*TypedefDecl) declNode()     {}
func (*DeclGroup) declNode()       {}

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// BlockStmt is `{ … }`.
type BlockStmt struct {
	Pos   diag.Pos
	Stmts []Stmt
}

// DeclStmt declares locals (one VarDecl per declarator), or a local struct/typedef.
type DeclStmt struct {
	Pos   diag.Pos
	Decls []Decl
}

// ExprStmt is an expression followed by `;`.
type ExprStmt struct {
	Pos diag.Pos
	X   Expr
}

// EmptyStmt is `;`.
type EmptyStmt struct{ Pos diag.Pos }

// IfStmt is `[attrs] if (cond) then [else els]`.
type IfStmt struct {
	Pos   diag.Pos
	Attrs []Attribute
	Cond  Expr
	Then  Stmt
	Else  Stmt // nil if absent
}

// ForStmt is `[attrs] for (init; cond; post) body`; any part may be nil.
type ForStmt struct {
	Pos   diag.Pos
	Attrs []Attribute
	Init  Stmt // DeclStmt or ExprStmt
	Cond  Expr
	Post  Expr
	Body  Stmt
}

// WhileStmt is `[attrs] while (cond) body`.
type WhileStmt struct {
	Pos   diag.Pos
	Attrs []Attribute
	Cond  Expr
	Body  Stmt
}

// DoWhileStmt is `[attrs] do body while (cond);`.
type DoWhileStmt struct {
	Pos   diag.Pos
	Attrs []Attribute
	Body  Stmt
	Cond  Expr
}

// SwitchStmt is `[attrs] switch (tag) { cases }`.
type SwitchStmt struct {
	Pos   diag.Pos
	Attrs []Attribute
	Tag   Expr
	Cases []*CaseClause
}

// CaseClause is a run of labels followed by statements. `case 1: case 2: s;` is two
// clauses, the first with no statements (sema merges them: HLSL allows fall-through
// only from empty clauses).
type CaseClause struct {
	Pos     diag.Pos
	Values  []Expr // empty for default
	Default bool
	Body    []Stmt
}

// BreakStmt, ContinueStmt, DiscardStmt and ReturnStmt are the jumps.
type BreakStmt struct{ Pos diag.Pos }
type ContinueStmt struct{ Pos diag.Pos }
type DiscardStmt struct{ Pos diag.Pos }
type ReturnStmt struct {
	Pos   diag.Pos
	Value Expr // nil for `return;`
}

func (s *BlockStmt) P() diag.Pos    { return s.Pos }
func (s *DeclStmt) P() diag.Pos     { return s.Pos }
func (s *ExprStmt) P() diag.Pos     { return s.Pos }
func (s *EmptyStmt) P() diag.Pos    { return s.Pos }
func (s *IfStmt) P() diag.Pos       { return s.Pos }
func (s *ForStmt) P() diag.Pos      { return s.Pos }
func (s *WhileStmt) P() diag.Pos    { return s.Pos }
func (s *DoWhileStmt) P() diag.Pos  { return s.Pos }
func (s *SwitchStmt) P() diag.Pos   { return s.Pos }
func (s *BreakStmt) P() diag.Pos    { return s.Pos }
func (s *ContinueStmt) P() diag.Pos { return s.Pos }
func (s *DiscardStmt) P() diag.Pos  { return s.Pos }
func (s *ReturnStmt) P() diag.Pos   { return s.Pos }
func (*BlockStmt) stmtNode()        {}
func (*DeclStmt) stmtNode()         {}
func (*ExprStmt) stmtNode()         {}
func (*EmptyStmt) stmtNode()        {}
func (*IfStmt) stmtNode()           {}
func (*ForStmt) stmtNode()          {}
func (*WhileStmt) stmtNode()        {}
func (*DoWhileStmt) stmtNode()      {}
func (*SwitchStmt) stmtNode()       {}
func (*BreakStmt) stmtNode()        {}
func (*ContinueStmt) stmtNode()     {}
func (*DiscardStmt) stmtNode()      {}
func (*ReturnStmt) stmtNode()       {}

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// LitKind is the kind of a literal.
type LitKind uint8

const (
	IntLit    LitKind = iota + 1 // 12, 0x1F, 017, with suffix in Suffix
	FloatLit                     // 1.5, 1e3, .5f, 2.0h, 1.0l
	BoolLit                      // true/false
	StringLit                    // "text" (attribute arguments such as [shader("compute")]); Text is the unquoted value
)

// Literal is a number or boolean. Text is the source spelling without the suffix;
// Suffix is the lower-cased suffix ("u", "l", "ul", "ll", "ull", "f", "h", "l"…).
type Literal struct {
	Pos    diag.Pos
	Kind   LitKind
	Text   string
	Suffix string
}

// Ident is a name use.
type Ident struct {
	Pos  diag.Pos
	Name string
}

// UnaryExpr is a prefix operator: "-", "+", "!", "~", "++", "--".
type UnaryExpr struct {
	Pos diag.Pos
	Op  string
	X   Expr
}

// PostfixExpr is `x++` / `x--`.
type PostfixExpr struct {
	Pos diag.Pos
	Op  string
	X   Expr
}

// BinaryExpr is an infix operator (arithmetic, bitwise, comparison, &&, ||, ",").
type BinaryExpr struct {
	Pos  diag.Pos // position of the operator
	Op   string
	X, Y Expr
}

// AssignExpr is `x = y` or a compound assignment (Op "+=", "<<=", …).
type AssignExpr struct {
	Pos  diag.Pos // position of the operator
	Op   string
	X, Y Expr
}

// CondExpr is `c ? a : b`.
type CondExpr struct {
	Pos        diag.Pos
	Cond, X, Y Expr
}

// CallExpr is `f(args)`; Fun is an Ident for functions, intrinsics and constructors
// written with a plain name (`float3(…)`), or a TypeExpr wrapper for templated
// constructors (`vector<float,3>(…)`).
type CallExpr struct {
	Pos  diag.Pos
	Fun  Expr
	Args []Expr
}

// TypeName is a type used in expression position (constructor callee, cast target).
type TypeName struct {
	Pos  diag.Pos
	Type *TypeExpr
}

// MethodCall is `x.Name(args)` (resource methods).
type MethodCall struct {
	Pos     diag.Pos
	X       Expr
	Name    string
	NamePos diag.Pos
	Args    []Expr
}

// SelectorExpr is `x.name`: a struct member or a swizzle (sema decides).
type SelectorExpr struct {
	Pos     diag.Pos
	X       Expr
	Name    string
	NamePos diag.Pos
}

// IndexExpr is `x[i]`.
type IndexExpr struct {
	Pos   diag.Pos
	X     Expr
	Index Expr
}

// CastExpr is `(T)x` (also `(T[2])x` is not HLSL; ArrayDims stays empty).
type CastExpr struct {
	Pos  diag.Pos
	Type *TypeExpr
	X    Expr
}

// ParenExpr is `(x)`, kept so diagnostics can point at the parentheses.
type ParenExpr struct {
	Pos diag.Pos
	X   Expr
}

// InitList is `{ a, b, { c } }` in an initializer.
type InitList struct {
	Pos   diag.Pos
	Elems []Expr
}

func (e *Literal) P() diag.Pos      { return e.Pos }
func (e *Ident) P() diag.Pos        { return e.Pos }
func (e *UnaryExpr) P() diag.Pos    { return e.Pos }
func (e *PostfixExpr) P() diag.Pos  { return e.Pos }
func (e *BinaryExpr) P() diag.Pos   { return e.Pos }
func (e *AssignExpr) P() diag.Pos   { return e.Pos }
func (e *CondExpr) P() diag.Pos     { return e.Pos }
func (e *CallExpr) P() diag.Pos     { return e.Pos }
func (e *TypeName) P() diag.Pos     { return e.Pos }
func (e *MethodCall) P() diag.Pos   { return e.Pos }
func (e *SelectorExpr) P() diag.Pos { return e.Pos }
func (e *IndexExpr) P() diag.Pos    { return e.Pos }
func (e *CastExpr) P() diag.Pos     { return e.Pos }
func (e *ParenExpr) P() diag.Pos    { return e.Pos }
func (e *InitList) P() diag.Pos     { return e.Pos }
func (*Literal) exprNode()          {}
func (*Ident) exprNode()            {}
func (*UnaryExpr) exprNode()        {}
func (*PostfixExpr) exprNode()      {}
func (*BinaryExpr) exprNode()       {}
func (*AssignExpr) exprNode()       {}
func (*CondExpr) exprNode()         {}
func (*CallExpr) exprNode()         {}
func (*TypeName) exprNode()         {}
func (*MethodCall) exprNode()       {}
func (*SelectorExpr) exprNode()     {}
func (*IndexExpr) exprNode()        {}
func (*CastExpr) exprNode()         {}
func (*ParenExpr) exprNode()        {}
func (*InitList) exprNode()         {}
