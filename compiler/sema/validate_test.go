package sema

import (
	"fmt"

	"waverig/compiler/ir"
)

// invariants returns what m breaks of the IR invariants (ir.Validate) and of
// sema's own conventions (see the package comment), one line each.
func invariants(m *ir.Module) []string {
	var errs []string
	for _, err := range ir.Validate(m) {
		errs = append(errs, err.Error())
	}
	hostShareable := func(s ir.Space) bool {
		return s == ir.SpaceStorage || s == ir.SpaceStorageRead || s == ir.SpaceUniform || s == ir.SpacePushConstant
	}
	for _, g := range m.Globals {
		if hostShareable(g.Space) && containsBool(g.Type) {
			errs = append(errs, fmt.Sprintf("global %s: bool in host-shareable memory", g.Name))
		}
	}
	for _, s := range m.Structs {
		for _, f := range s.Fields {
			if containsBool(f.Type) {
				errs = append(errs, fmt.Sprintf("struct %s: field %s holds a bool", s.Name, f.Name))
			}
		}
	}
	names := map[string]bool{}
	for _, f := range m.Functions {
		if names[f.Name] {
			errs = append(errs, fmt.Sprintf("fn %s: name used twice", f.Name))
		}
		names[f.Name] = true
		inParams := map[*ir.Local]bool{}
		for _, p := range f.Params {
			if p.Dir == ir.In {
				inParams[p.Local] = true
			}
		}
		ir.WalkBlock(f.Body, func(s ir.Stmt) {
			if st, ok := s.(*ir.Store); ok {
				if r, ok := rootLocal(st.Place); ok && inParams[r] {
					errs = append(errs, fmt.Sprintf("fn %s: store to in parameter %s", f.Name, r.Name))
				}
			}
		}, nil)
	}
	for _, ep := range m.EntryPoints {
		if ep.Func != nil && ep.Func.Name != ep.Name {
			errs = append(errs, fmt.Sprintf("entry %s: wrapper function is named %s", ep.Name, ep.Func.Name))
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
