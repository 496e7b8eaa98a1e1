package gen

import "math/rand/v2"

// Generate returns the program of a seed: the same seed always gives the
// same program (math/rand/v2's PCG, seeded from the seed alone).
func Generate(seed uint64) *Program {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	p := &Program{Seed: seed}
	// Workgroup widths: whole waves at every size up to 64, and widths that
	// leave a partial last wave.
	widths := []int{64, 64, 32, 48, 37, 50, 16, 100}
	p.Threads = widths[g.r.IntN(len(widths))]
	p.Groups = 2
	p.Input = make([]uint32, p.Lanes())
	for i := range p.Input {
		p.Input[i] = g.r.Uint32N(1024)
	}
	nf := g.r.IntN(3)
	for i := 0; i < nf; i++ {
		g.budget = 4 + g.r.IntN(6)
		p.Funcs = append(p.Funcs, &Func{Body: g.block(scope{fn: i, helper: true}, 0)})
	}
	g.budget = 10 + g.r.IntN(20)
	g.nfuncs = nf
	p.Main = g.block(scope{fn: nf}, 0)
	return p
}

type generator struct {
	r      *rand.Rand
	budget int // statements left to generate
	site   int // next site id
	loop   int // next loop id
	nfuncs int
}

// scope is what a statement may refer to and jump out of.
type scope struct {
	fn       int   // the function being generated (helpers call lower ones)
	helper   bool  // a helper: x is in scope
	vars     []int // loop counters in scope
	inLoop   bool
	inSwitch bool // directly in a switch (relative to the innermost loop): no break
}

const maxDepth = 3

func (g *generator) block(s scope, depth int) []Stmt {
	n := 1 + g.r.IntN(4)
	var out []Stmt
	for i := 0; i < n && g.budget > 0; i++ {
		g.budget--
		out = append(out, g.stmt(s, depth))
	}
	return out
}

func (g *generator) nextSite() int { g.site++; return g.site }

func (g *generator) stmt(s scope, depth int) Stmt {
	for {
		switch c := g.r.IntN(100); {
		case c < 35:
			return g.wave(s)
		case c < 55 && depth < maxDepth:
			st := &If{Cond: g.cond(s), Then: g.block(s, depth+1)}
			if g.r.IntN(2) == 0 {
				st.Else = g.block(s, depth+1)
			}
			return st
		case c < 70 && depth < maxDepth:
			g.loop++
			l := &Loop{ID: g.loop, While: g.r.IntN(3) == 0, Bound: g.bound(s)}
			inner := s
			inner.vars = append(append([]int(nil), s.vars...), l.ID)
			inner.inLoop, inner.inSwitch = true, false
			l.Body = g.block(inner, depth+1)
			return l
		case c < 77 && depth < maxDepth:
			sw := &Switch{Sel: g.expr(s, 1)}
			inner := s
			inner.inSwitch = true
			for k := 2 + g.r.IntN(2); k > 0; k-- {
				sw.Cases = append(sw.Cases, g.block(inner, depth+1))
			}
			return sw
		case c < 84 && s.fn > 0:
			return &Call{Site: g.nextSite(), Func: g.r.IntN(s.fn), Arg: g.expr(s, 1)}
		case c < 96:
			// A jump, mostly under a lane condition so that the block goes on
			// for the other lanes.
			var j Stmt
			switch k := g.r.IntN(10); {
			case k < 4 && s.inLoop && !s.inSwitch:
				j = &Break{}
			case k < 8 && s.inLoop:
				j = &Continue{}
			case k >= 8:
				j = &Return{}
			default:
				continue
			}
			if g.r.IntN(5) == 0 {
				return j
			}
			return &If{Cond: g.cond(s), Then: []Stmt{j}}
		}
	}
}

func (g *generator) wave(s scope) *Wave {
	w := &Wave{Site: g.nextSite(), Op: Op(g.r.IntN(int(NumOps)))}
	if w.Op.usesCond() {
		w.Cond = g.cond(s)
	}
	if w.Op.usesX() {
		if w.Op == OpAllEqual {
			// Few distinct values, so that both answers happen.
			w.X = Expr{Kind: EShr, A: g.leafP(s), K: uint32(2 + g.r.IntN(4))}
			if g.r.IntN(3) == 0 {
				w.X = Expr{Kind: EConst, K: 7}
			}
		} else {
			w.X = g.expr(s, 2)
		}
	}
	w.K = uint32(g.r.IntN(4))
	return w
}

// cond is a comparison that holds for a fair share of lanes.
func (g *generator) cond(s scope) Cond {
	m := uint32(2 + g.r.IntN(6))
	a := Expr{Kind: EMod, A: g.exprP(s, 1), K: m}
	ops := []CmpOp{Lt, Eq, Ne, Ge}
	return Cond{Op: ops[g.r.IntN(len(ops))], A: a, B: Expr{Kind: EConst, K: g.r.Uint32N(m)}}
}

// bound is a loop's trip count: 0 to 4, lane-dependent.
func (g *generator) bound(s scope) Expr {
	m := &Expr{Kind: EMod, A: g.exprP(s, 1), K: uint32(2 + g.r.IntN(3))}
	return Expr{Kind: EAdd, A: m, B: &Expr{Kind: EConst, K: g.r.Uint32N(2)}}
}

func (g *generator) exprP(s scope, depth int) *Expr { e := g.expr(s, depth); return &e }
func (g *generator) leafP(s scope) *Expr            { e := g.leaf(s); return &e }

func (g *generator) leaf(s scope) Expr {
	for {
		switch g.r.IntN(7) {
		case 0, 1:
			return Expr{Kind: ELane}
		case 2:
			return Expr{Kind: EGi}
		case 3:
			return Expr{Kind: EData}
		case 4:
			if len(s.vars) > 0 {
				return Expr{Kind: EVar, Var: s.vars[g.r.IntN(len(s.vars))]}
			}
		case 5:
			if s.helper {
				return Expr{Kind: EParam}
			}
		case 6:
			return Expr{Kind: EConst, K: g.r.Uint32N(16)}
		}
	}
}

func (g *generator) expr(s scope, depth int) Expr {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.leaf(s)
	}
	a := g.exprP(s, depth-1)
	switch g.r.IntN(5) {
	case 0:
		return Expr{Kind: EAdd, A: a, B: g.exprP(s, depth-1)}
	case 1:
		return Expr{Kind: EXor, A: a, B: g.exprP(s, depth-1)}
	case 2:
		return Expr{Kind: EShr, A: a, K: uint32(1 + g.r.IntN(3))}
	case 3:
		return Expr{Kind: EAnd, A: a, K: uint32(1 + g.r.IntN(15))}
	default:
		return Expr{Kind: EMul, A: a, K: uint32(3 + 2*g.r.IntN(4))}
	}
}
