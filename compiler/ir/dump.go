package ir

import (
	"fmt"
	"math"
	"strings"
)

// Dump renders the module as text. The form is stable (golden tests compare it)
// and meant for people: one statement per line, expressions in prefix-free infix.
func Dump(m *Module) string {
	d := &dumper{}
	for _, s := range m.Structs {
		d.line(0, StructDecl(s))
	}
	for _, g := range m.Globals {
		d.line(0, globalDecl(g))
	}
	for _, f := range m.Functions {
		d.function(f)
	}
	for _, e := range m.EntryPoints {
		var ins, outs []string
		for _, g := range e.Inputs {
			ins = append(ins, g.Name)
		}
		for _, g := range e.Outputs {
			outs = append(outs, g.Name)
		}
		s := fmt.Sprintf("entry %s %s -> fn %s", e.Stage, e.Name, e.Func.Name)
		if e.Stage.HasThreadGroups() {
			s += fmt.Sprintf(" numthreads(%d,%d,%d)", e.NumThreads[0], e.NumThreads[1], e.NumThreads[2])
		}
		if mi := e.Mesh; mi != nil {
			if mi.Topology != TopologyNone {
				s += fmt.Sprintf(" outputtopology(%s) vertices(%d) primitives(%d)", mi.Topology, mi.MaxVertices, mi.MaxPrimitives)
			}
			if mi.Payload != nil {
				s += " payload(" + mi.Payload.Name + ")"
			}
		}
		if w := e.WaveSize; w != nil {
			s += fmt.Sprintf(" wavesize(%d,%d,%d)", w.Min, w.Max, w.Preferred)
		}
		if e.WaveOpsIncludeHelperLanes {
			s += " waveopsincludehelperlanes"
		}
		s += fmt.Sprintf(" in[%s] out[%s]", strings.Join(ins, ", "), strings.Join(outs, ", "))
		d.line(0, s)
	}
	return d.b.String()
}

func globalDecl(g *Global) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global %s %s: %s", g.Space, g.Name, g.Type)
	if g.Resource != ResNone {
		fmt.Fprintf(&b, " resource=%s", g.Resource)
	}
	if g.Binding != nil {
		fmt.Fprintf(&b, " @set(%d) @binding(%d)", g.Binding.Set, g.Binding.Binding)
		if g.Binding.Register != "" {
			fmt.Fprintf(&b, " register(%s)", g.Binding.Register)
		}
	}
	if g.Builtin != BuiltinNone {
		fmt.Fprintf(&b, " @builtin(%s)", g.Builtin)
	} else if g.Space == SpaceInput || g.Space == SpaceOutput {
		fmt.Fprintf(&b, " @location(%d)", g.Location)
	}
	if g.Flat {
		b.WriteString(" flat")
	}
	if g.PerPrimitive {
		b.WriteString(" per_primitive")
	}
	if g.Semantic != "" {
		fmt.Fprintf(&b, " : %s", g.Semantic)
	}
	if g.Spec {
		fmt.Fprintf(&b, " @constant_id(%d)", g.SpecID)
	}
	if g.Atomic {
		b.WriteString(" atomic")
	}
	if g.Const {
		b.WriteString(" const")
	}
	if g.Init != nil {
		fmt.Fprintf(&b, " = %s", ExprString(g.Init))
	}
	return b.String()
}

type dumper struct{ b strings.Builder }

func (d *dumper) line(depth int, s string) {
	d.b.WriteString(strings.Repeat("  ", depth))
	d.b.WriteString(s)
	d.b.WriteByte('\n')
}

func (d *dumper) function(f *Function) {
	var ps []string
	for _, p := range f.Params {
		dir := ""
		switch p.Dir {
		case Out:
			dir = "out "
		case InOut:
			dir = "inout "
		}
		ps = append(ps, fmt.Sprintf("%s%%%d %s: %s", dir, p.Local.ID, p.Local.Name, p.Local.Type))
	}
	d.line(0, fmt.Sprintf("fn %s(%s) -> %s {", f.Name, strings.Join(ps, ", "), f.Result))
	params := map[*Local]bool{}
	for _, p := range f.Params {
		params[p.Local] = true
	}
	for _, l := range f.Locals {
		if !params[l] {
			d.line(1, fmt.Sprintf("local %%%d %s: %s", l.ID, l.Name, l.Type))
		}
	}
	d.block(1, f.Body)
	d.line(0, "}")
}

func (d *dumper) block(depth int, b Block) {
	for _, s := range b {
		d.stmt(depth, s)
	}
}

func (d *dumper) stmt(depth int, s Stmt) {
	switch s := s.(type) {
	case *Store:
		d.line(depth, fmt.Sprintf("store %s = %s", ExprString(s.Place), ExprString(s.Value)))
	case *ExprStmt:
		d.line(depth, ExprString(s.X))
	case *If:
		d.line(depth, fmt.Sprintf("if %s {", ExprString(s.Cond)))
		d.block(depth+1, s.Then)
		if len(s.Else) > 0 {
			d.line(depth, "} else {")
			d.block(depth+1, s.Else)
		}
		d.line(depth, "}")
	case *Loop:
		head := "loop {"
		if s.Unroll {
			head = "loop unroll {"
		}
		d.line(depth, head)
		d.block(depth+1, s.Body)
		if len(s.Continuing) > 0 || s.BreakIf != nil {
			d.line(depth, "} continuing {")
			d.block(depth+1, s.Continuing)
			if s.BreakIf != nil {
				d.line(depth+1, "break if "+ExprString(s.BreakIf))
			}
		}
		d.line(depth, "}")
	case *Switch:
		d.line(depth, fmt.Sprintf("switch %s {", ExprString(s.Selector)))
		for _, c := range s.Cases {
			var labels []string
			for _, v := range c.Values {
				labels = append(labels, fmt.Sprint(v))
			}
			if c.Default {
				labels = append(labels, "default")
			}
			ft := ""
			if c.FallThrough {
				ft = " fallthrough"
			}
			d.line(depth+1, fmt.Sprintf("case %s:%s", strings.Join(labels, ", "), ft))
			d.block(depth+2, c.Body)
		}
		d.line(depth, "}")
	case *Break:
		d.line(depth, "break")
	case *Continue:
		d.line(depth, "continue")
	case *Return:
		if s.Value != nil {
			d.line(depth, "return "+ExprString(s.Value))
		} else {
			d.line(depth, "return")
		}
	case *Discard:
		d.line(depth, "discard")
	default:
		d.line(depth, fmt.Sprintf("<unknown stmt %T>", s))
	}
}

// ExprString renders an expression.
func ExprString(e Expr) string {
	switch e := e.(type) {
	case *Const:
		return ConstString(e)
	case *LocalRef:
		return fmt.Sprintf("%%%d", e.L.ID)
	case *GlobalRef:
		return "@" + e.G.Name
	case *Index:
		return fmt.Sprintf("%s[%s]", ExprString(e.Base), ExprString(e.Idx))
	case *Member:
		st := e.Base.Type().(*Struct)
		return fmt.Sprintf("%s.%s", ExprString(e.Base), st.Fields[e.Field].Name)
	case *Load:
		return "load(" + ExprString(e.Place) + ")"
	case *Swizzle:
		const names = "xyzw"
		var s []byte
		for _, c := range e.Comps {
			s = append(s, names[c])
		}
		return fmt.Sprintf("%s.%s", ExprString(e.Base), s)
	case *Unary:
		return fmt.Sprintf("(%s%s)", e.Op, ExprString(e.X))
	case *Binary:
		return fmt.Sprintf("(%s %s %s)", ExprString(e.X), e.Op, ExprString(e.Y))
	case *Select:
		return fmt.Sprintf("select(%s, %s, %s)", ExprString(e.Cond), ExprString(e.True), ExprString(e.False))
	case *Convert:
		return fmt.Sprintf("%s(%s)", e.T, ExprString(e.X))
	case *Bitcast:
		return fmt.Sprintf("bitcast<%s>(%s)", e.T, ExprString(e.X))
	case *Construct:
		return fmt.Sprintf("%s(%s)", e.T, exprList(e.Args))
	case *Call:
		return fmt.Sprintf("call %s(%s)", e.Func.Name, exprList(e.Args))
	case *Intrinsic:
		return fmt.Sprintf("%s(%s): %s", e.Op, exprList(e.Args), e.T)
	case nil:
		return "<nil>"
	}
	return fmt.Sprintf("<unknown expr %T>", e)
}

func exprList(es []Expr) string {
	var s []string
	for _, e := range es {
		s = append(s, ExprString(e))
	}
	return strings.Join(s, ", ")
}

// ConstString renders a constant with its type suffix.
func ConstString(c *Const) string {
	switch c.T.Kind {
	case Bool:
		if c.Bits != 0 {
			return "true"
		}
		return "false"
	case Sint:
		return fmt.Sprintf("%d%s", int64(c.Bits), c.T)
	case Uint:
		return fmt.Sprintf("%d%s", c.Bits, c.T)
	}
	return fmt.Sprintf("%g%s", c.Float(), c.T)
}

// Float returns a float constant's value as float64.
func (c *Const) Float() float64 {
	switch c.T.Bits {
	case 64:
		return math.Float64frombits(c.Bits)
	case 16:
		return float64(HalfToFloat32(uint16(c.Bits)))
	}
	return float64(math.Float32frombits(uint32(c.Bits)))
}

// Int returns an integer constant's value (sign-extended for signed kinds).
func (c *Const) Int() int64 { return int64(c.Bits) }

// ConstBool, ConstInt, ConstUint and ConstFloat make constants.
func ConstBool(v bool) *Const {
	if v {
		return &Const{T: BoolT, Bits: 1}
	}
	return &Const{T: BoolT}
}
func ConstInt(t Scalar, v int64) *Const { return &Const{T: t, Bits: uint64(v)} }
func ConstUint(t Scalar, v uint64) *Const {
	if t.Bits == 32 {
		v &= 0xffffffff
	}
	return &Const{T: t, Bits: v}
}
func ConstFloat(t Scalar, v float64) *Const {
	switch t.Bits {
	case 64:
		return &Const{T: t, Bits: math.Float64bits(v)}
	case 16:
		return &Const{T: t, Bits: uint64(Float32ToHalf(float32(v)))}
	}
	return &Const{T: t, Bits: uint64(math.Float32bits(float32(v)))}
}

// HalfToFloat32 converts IEEE-754 binary16 bits to float32.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int((h >> 10) & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | mant<<13)
}

// Float32ToHalf converts to binary16 with round-to-nearest-even.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case (b>>23)&0xff == 0xff: // inf/nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := uint16(mant >> shift)
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 != 0) {
			h++
		}
		return sign | h
	}
	h := sign | uint16(exp)<<10 | uint16(mant>>13)
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 != 0) {
		h++
	}
	return h
}
