package sema

import (
	"fmt"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// validate checks the IR invariants of package ir that sema promises, plus sema's
// own conventions (see the package comment). It returns one line per violation.
func validate(m *ir.Module) []string {
	var errs []string
	bad := func(f *ir.Function, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("fn %s: %s", f.Name, fmt.Sprintf(format, args...)))
	}
	index := map[*ir.Function]int{}
	for i, f := range m.Functions {
		index[f] = i
	}
	hostShareable := func(s ir.Space) bool {
		return s == ir.SpaceStorage || s == ir.SpaceStorageRead || s == ir.SpaceUniform || s == ir.SpacePushConstant
	}
	for _, g := range m.Globals {
		if hostShareable(g.Space) && containsBool(g.Type) {
			errs = append(errs, fmt.Sprintf("global %s: bool in host-shareable memory", g.Name))
		}
	}
	for _, f := range m.Functions {
		inParams := map[*ir.Local]bool{}
		for _, p := range f.Params {
			if p.Dir == ir.In {
				inParams[p.Local] = true
			}
		}
		var checkExpr func(e ir.Expr)
		checkExpr = func(e ir.Expr) {
			if e == nil {
				bad(f, "nil expression")
				return
			}
			if e.Type() == nil {
				bad(f, "untyped expression %s", ir.ExprString(e))
			}
			switch x := e.(type) {
			case *ir.Binary:
				xt, yt := x.X.Type(), x.Y.Type()
				if x.Op == ir.Shl || x.Op == ir.Shr {
					if ir.Components(xt) != ir.Components(yt) {
						bad(f, "shift operand shapes differ in %s", ir.ExprString(e))
					}
				} else if !ir.Equal(xt, yt) {
					bad(f, "binary operands differ (%s vs %s) in %s", xt, yt, ir.ExprString(e))
				}
				if x.Op.IsComparison() || x.Op == ir.LogicalAnd || x.Op == ir.LogicalOr {
					if s, _ := ir.ScalarOf(x.T); s.Kind != ir.Bool {
						bad(f, "comparison result not bool in %s", ir.ExprString(e))
					}
				} else if !ir.Equal(x.T, xt) {
					bad(f, "binary result %s differs from operand %s in %s", x.T, xt, ir.ExprString(e))
				}
			case *ir.Load:
				if !ir.IsPlace(x.Place) {
					bad(f, "load of a non-place %s", ir.ExprString(x.Place))
				}
			case *ir.Select:
				if !ir.Equal(x.True.Type(), x.False.Type()) {
					bad(f, "select branches differ in %s", ir.ExprString(e))
				}
				if s, _ := ir.ScalarOf(x.Cond.Type()); s.Kind != ir.Bool {
					bad(f, "select condition not bool in %s", ir.ExprString(e))
				}
			case *ir.Construct:
				switch t := x.T.(type) {
				case ir.Vector:
					n := 0
					for _, a := range x.Args {
						n += ir.Components(a.Type())
						if s, _ := ir.ScalarOf(a.Type()); s != t.Elem {
							bad(f, "vector construct element %s != %s in %s", s, t.Elem, ir.ExprString(e))
						}
					}
					if n != t.N {
						bad(f, "vector construct has %d components, want %d: %s", n, t.N, ir.ExprString(e))
					}
				case ir.Matrix:
					if len(x.Args) != t.Rows {
						bad(f, "matrix construct has %d rows, want %d", len(x.Args), t.Rows)
					}
				case *ir.Struct:
					if len(x.Args) != len(t.Fields) {
						bad(f, "struct construct arity %d != %d", len(x.Args), len(t.Fields))
					}
					for i, a := range x.Args {
						if i < len(t.Fields) && !ir.Equal(a.Type(), t.Fields[i].Type) {
							bad(f, "struct %s field %d: %s != %s", t.Name, i, a.Type(), t.Fields[i].Type)
						}
					}
				case *ir.Array:
					if len(x.Args) != t.Len {
						bad(f, "array construct arity %d != %d", len(x.Args), t.Len)
					}
					for _, a := range x.Args {
						if !ir.Equal(a.Type(), t.Elem) {
							bad(f, "array element %s != %s", a.Type(), t.Elem)
						}
					}
				}
			case *ir.Call:
				if j, ok := index[x.Func]; !ok || j >= index[f] {
					bad(f, "call to %s which is not before the caller", x.Func.Name)
				}
				if len(x.Args) != len(x.Func.Params) {
					bad(f, "call to %s with %d args", x.Func.Name, len(x.Args))
				}
				for i, a := range x.Args {
					if i >= len(x.Func.Params) {
						break
					}
					p := x.Func.Params[i]
					if p.Dir != ir.In {
						if _, ok := a.(*ir.LocalRef); !ok {
							bad(f, "out argument %d to %s is not a LocalRef", i, x.Func.Name)
						}
					} else if !ir.Equal(a.Type(), p.Local.Type) {
						bad(f, "argument %d to %s: %s != %s", i, x.Func.Name, a.Type(), p.Local.Type)
					}
				}
			case *ir.Intrinsic:
				info := intrinsics.Get(x.Op)
				if info.Class == intrinsics.ClassAtomic {
					if len(x.Args) == 0 || !ir.IsPlace(x.Args[0]) {
						bad(f, "atomic without a place")
					} else if g := ir.RootGlobal(x.Args[0]); g == nil || !g.Atomic {
						bad(f, "atomic on a global not marked Atomic")
					}
				}
			case *ir.Swizzle:
				if _, ok := x.Base.Type().(ir.Vector); !ok {
					bad(f, "swizzle of non-vector %s", x.Base.Type())
				}
			case *ir.Index:
				if x.T == nil {
					bad(f, "untyped index")
				}
			}
			// Sub-expressions are visited by WalkBlock.
		}
		ir.WalkBlock(f.Body, func(s ir.Stmt) {
			switch x := s.(type) {
			case *ir.Store:
				if !ir.IsPlace(x.Place) {
					bad(f, "store to non-place %s", ir.ExprString(x.Place))
				} else if !ir.Equal(x.Place.Type(), x.Value.Type()) {
					bad(f, "store type mismatch %s = %s (%s vs %s)", ir.ExprString(x.Place), ir.ExprString(x.Value), x.Place.Type(), x.Value.Type())
				}
				if r, ok := rootLocal(x.Place); ok && inParams[r] {
					bad(f, "store to in parameter %s", r.Name)
				}
			case *ir.If:
				if !ir.Equal(x.Cond.Type(), ir.BoolT) {
					bad(f, "if condition is %s", x.Cond.Type())
				}
			case *ir.Return:
				if x.Value != nil && !ir.Equal(x.Value.Type(), f.Result) {
					bad(f, "return %s from %s", x.Value.Type(), f.Result)
				}
			}
		}, checkExpr)
	}
	for _, ep := range m.EntryPoints {
		if len(ep.Func.Params) != 0 {
			errs = append(errs, fmt.Sprintf("entry %s has parameters", ep.Name))
		}
		if _, ok := ep.Func.Result.(ir.Void); !ok {
			errs = append(errs, fmt.Sprintf("entry %s is not void", ep.Name))
		}
	}
	return errs
}

func rootLocal(e ir.Expr) (*ir.Local, bool) {
	for {
		switch x := e.(type) {
		case *ir.LocalRef:
			return x.L, true
		case *ir.Index:
			e = x.Base
		case *ir.Member:
			e = x.Base
		default:
			return nil, false
		}
	}
}

func containsBool(t ir.Type) bool {
	switch x := t.(type) {
	case ir.Scalar, ir.Vector, ir.Matrix:
		s, _ := ir.ScalarOf(t)
		return s.Kind == ir.Bool
	case *ir.Array:
		return containsBool(x.Elem)
	case *ir.Struct:
		for _, f := range x.Fields {
			if containsBool(f.Type) {
				return true
			}
		}
	}
	return false
}
