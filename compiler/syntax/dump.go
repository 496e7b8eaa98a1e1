package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// Dump renders a node (or a *File) as a compact, stable S-expression, one
// top-level declaration per line. Tests compare against it, and it is handy
// when debugging what the parser built.
func Dump(n any) string {
	var b strings.Builder
	if f, ok := n.(*File); ok {
		for i, d := range f.Decls {
			if i > 0 {
				b.WriteByte('\n')
			}
			dumpNode(&b, d)
		}
		return b.String()
	}
	dumpNode(&b, n)
	return b.String()
}

func dumpType(t *TypeExpr) string {
	if t == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, m := range t.Modifiers {
		b.WriteString(m + " ")
	}
	b.WriteString(t.Name)
	if len(t.Args) > 0 {
		b.WriteByte('<')
		for i, a := range t.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			if a.Type != nil {
				b.WriteString(dumpType(a.Type))
			} else {
				b.WriteString(Dump(a.Expr))
			}
		}
		b.WriteByte('>')
	}
	return b.String()
}

func dumpAttrs(b *strings.Builder, attrs []Attribute) {
	for _, a := range attrs {
		b.WriteByte('[')
		if a.Namespace != "" {
			b.WriteString(a.Namespace + "::")
		}
		b.WriteString(a.Name)
		if len(a.Args) > 0 {
			b.WriteByte('(')
			for i, x := range a.Args {
				if i > 0 {
					b.WriteByte(',')
				}
				dumpNode(b, x)
			}
			b.WriteByte(')')
		}
		b.WriteString("] ")
	}
}

func dumpList[T any](b *strings.Builder, xs []T) {
	for _, x := range xs {
		b.WriteByte(' ')
		dumpNode(b, x)
	}
}

func dumpVar(b *strings.Builder, v *VarDecl) {
	b.WriteString("(var ")
	dumpAttrs(b, v.Attrs)
	for _, s := range v.Storage {
		b.WriteString(s + " ")
	}
	if v.ParamDir != "" {
		b.WriteString(v.ParamDir + " ")
	}
	if v.MeshQual != "" {
		b.WriteString(v.MeshQual + " ")
	}
	b.WriteString(dumpType(v.Type) + " " + v.Name)
	for _, d := range v.ArrayDims {
		b.WriteByte('[')
		if d != nil {
			dumpNode(b, d)
		}
		b.WriteByte(']')
	}
	if v.Semantic != "" {
		b.WriteString(" :" + v.Semantic)
	}
	if r := v.Register; r != nil {
		fmt.Fprintf(b, " :register(%c%d,space%d)", r.Class, r.Index, r.Space)
	}
	if v.PackOffset != "" {
		b.WriteString(" :packoffset(" + v.PackOffset + ")")
	}
	if v.Init != nil {
		b.WriteString(" = ")
		dumpNode(b, v.Init)
	}
	b.WriteByte(')')
}

func dumpNode(b *strings.Builder, n any) {
	switch n := n.(type) {
	case nil:
		b.WriteString("<nil>")
	case *VarDecl:
		dumpVar(b, n)
	case *FuncDecl:
		b.WriteString("(func ")
		dumpAttrs(b, n.Attrs)
		for _, s := range n.Storage {
			b.WriteString(s + " ")
		}
		b.WriteString(dumpType(n.Result) + " " + n.Name + " (")
		for i, prm := range n.Params {
			if i > 0 {
				b.WriteByte(' ')
			}
			dumpVar(b, prm)
		}
		b.WriteByte(')')
		if n.Semantic != "" {
			b.WriteString(" :" + n.Semantic)
		}
		if n.Body != nil {
			b.WriteByte(' ')
			dumpNode(b, n.Body)
		}
		b.WriteByte(')')
	case *StructDecl:
		b.WriteString("(struct " + n.Name)
		dumpList(b, n.Members)
		b.WriteByte(')')
	case *CBufferDecl:
		kw := "cbuffer"
		if n.TBuffer {
			kw = "tbuffer"
		}
		b.WriteString("(" + kw + " ")
		dumpAttrs(b, n.Attrs)
		b.WriteString(n.Name)
		if r := n.Register; r != nil {
			fmt.Fprintf(b, " :register(%c%d,space%d)", r.Class, r.Index, r.Space)
		}
		dumpList(b, n.Members)
		b.WriteByte(')')
	case *TypedefDecl:
		b.WriteString("(typedef " + dumpType(n.Type) + " " + n.Name)
		for _, d := range n.ArrayDims {
			b.WriteByte('[')
			if d != nil {
				dumpNode(b, d)
			}
			b.WriteByte(']')
		}
		b.WriteByte(')')
	case *DeclGroup:
		b.WriteString("(group")
		dumpList(b, n.Decls)
		b.WriteByte(')')

	case *BlockStmt:
		b.WriteByte('{')
		for i, s := range n.Stmts {
			if i > 0 {
				b.WriteByte(' ')
			}
			dumpNode(b, s)
		}
		b.WriteByte('}')
	case *DeclStmt:
		b.WriteString("(decl")
		dumpList(b, n.Decls)
		b.WriteByte(')')
	case *ExprStmt:
		dumpNode(b, n.X)
		b.WriteByte(';')
	case *EmptyStmt:
		b.WriteByte(';')
	case *IfStmt:
		b.WriteString("(if ")
		dumpAttrs(b, n.Attrs)
		dumpNode(b, n.Cond)
		b.WriteByte(' ')
		dumpNode(b, n.Then)
		if n.Else != nil {
			b.WriteString(" else ")
			dumpNode(b, n.Else)
		}
		b.WriteByte(')')
	case *ForStmt:
		b.WriteString("(for ")
		dumpAttrs(b, n.Attrs)
		// A nil Stmt or Expr becomes a nil `any`, printed as _.
		for i, x := range []any{n.Init, n.Cond, n.Post, n.Body} {
			if i > 0 {
				b.WriteByte(' ')
			}
			if x == nil {
				b.WriteString("_")
			} else {
				dumpNode(b, x)
			}
		}
		b.WriteByte(')')
	case *WhileStmt:
		b.WriteString("(while ")
		dumpAttrs(b, n.Attrs)
		dumpNode(b, n.Cond)
		b.WriteByte(' ')
		dumpNode(b, n.Body)
		b.WriteByte(')')
	case *DoWhileStmt:
		b.WriteString("(do ")
		dumpAttrs(b, n.Attrs)
		dumpNode(b, n.Body)
		b.WriteByte(' ')
		dumpNode(b, n.Cond)
		b.WriteByte(')')
	case *SwitchStmt:
		b.WriteString("(switch ")
		dumpAttrs(b, n.Attrs)
		dumpNode(b, n.Tag)
		for _, c := range n.Cases {
			if c.Default {
				b.WriteString(" (default")
			} else {
				b.WriteString(" (case")
				dumpList(b, c.Values)
			}
			b.WriteString(":")
			dumpList(b, c.Body)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	case *BreakStmt:
		b.WriteString("break;")
	case *ContinueStmt:
		b.WriteString("continue;")
	case *DiscardStmt:
		b.WriteString("discard;")
	case *ReturnStmt:
		b.WriteString("(return")
		if n.Value != nil {
			b.WriteByte(' ')
			dumpNode(b, n.Value)
		}
		b.WriteByte(')')

	case *Literal:
		switch n.Kind {
		case StringLit:
			b.WriteString(strconv.Quote(n.Text))
		default:
			b.WriteString(n.Text + n.Suffix)
		}
	case *Ident:
		b.WriteString(n.Name)
	case *UnaryExpr:
		b.WriteString("(" + n.Op + " ")
		dumpNode(b, n.X)
		b.WriteByte(')')
	case *PostfixExpr:
		b.WriteString("(post" + n.Op + " ")
		dumpNode(b, n.X)
		b.WriteByte(')')
	case *BinaryExpr:
		b.WriteString("(" + n.Op + " ")
		dumpNode(b, n.X)
		b.WriteByte(' ')
		dumpNode(b, n.Y)
		b.WriteByte(')')
	case *AssignExpr:
		b.WriteString("(" + n.Op + " ")
		dumpNode(b, n.X)
		b.WriteByte(' ')
		dumpNode(b, n.Y)
		b.WriteByte(')')
	case *CondExpr:
		b.WriteString("(? ")
		dumpNode(b, n.Cond)
		b.WriteByte(' ')
		dumpNode(b, n.X)
		b.WriteByte(' ')
		dumpNode(b, n.Y)
		b.WriteByte(')')
	case *CallExpr:
		b.WriteString("(call ")
		dumpNode(b, n.Fun)
		dumpList(b, n.Args)
		b.WriteByte(')')
	case *TypeName:
		b.WriteString("(type " + dumpType(n.Type) + ")")
	case *MethodCall:
		b.WriteString("(method ")
		dumpNode(b, n.X)
		b.WriteString(" " + n.Name)
		dumpList(b, n.Args)
		b.WriteByte(')')
	case *SelectorExpr:
		b.WriteString("(. ")
		dumpNode(b, n.X)
		b.WriteString(" " + n.Name + ")")
	case *IndexExpr:
		b.WriteString("(index ")
		dumpNode(b, n.X)
		b.WriteByte(' ')
		dumpNode(b, n.Index)
		b.WriteByte(')')
	case *CastExpr:
		b.WriteString("(cast " + dumpType(n.Type) + " ")
		dumpNode(b, n.X)
		b.WriteByte(')')
	case *ParenExpr:
		b.WriteString("(paren ")
		dumpNode(b, n.X)
		b.WriteByte(')')
	case *InitList:
		b.WriteByte('{')
		for i, x := range n.Elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			dumpNode(b, x)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "<%T>", n)
	}
}
