package gen

import "time"

// Clone is a deep copy of p.
func (p *Program) Clone() *Program {
	q := *p
	q.Input = append([]uint32(nil), p.Input...)
	q.Funcs = make([]*Func, len(p.Funcs))
	for i, f := range p.Funcs {
		q.Funcs[i] = &Func{Body: cloneBlock(f.Body)}
	}
	q.Main = cloneBlock(p.Main)
	return &q
}

func cloneBlock(ss []Stmt) []Stmt {
	if ss == nil {
		return nil
	}
	out := make([]Stmt, len(ss))
	for i, s := range ss {
		switch s := s.(type) {
		case *If:
			c := *s
			c.Then, c.Else = cloneBlock(s.Then), cloneBlock(s.Else)
			out[i] = &c
		case *Loop:
			c := *s
			c.Body = cloneBlock(s.Body)
			out[i] = &c
		case *Switch:
			c := *s
			c.Cases = make([][]Stmt, len(s.Cases))
			for k, b := range s.Cases {
				c.Cases[k] = cloneBlock(b)
			}
			out[i] = &c
		case *Call:
			c := *s
			out[i] = &c
		case *Wave:
			c := *s
			out[i] = &c
		default: // Break, Continue, Return: no fields
			out[i] = s
		}
	}
	return out
}

// blocks lists every statement list of p, in a fixed order (helpers first).
func (p *Program) blocks() []*[]Stmt {
	var out []*[]Stmt
	var walk func(b *[]Stmt)
	walk = func(b *[]Stmt) {
		out = append(out, b)
		for _, s := range *b {
			switch s := s.(type) {
			case *If:
				walk(&s.Then)
				walk(&s.Else)
			case *Loop:
				walk(&s.Body)
			case *Switch:
				for k := range s.Cases {
					walk(&s.Cases[k])
				}
			}
		}
	}
	for _, f := range p.Funcs {
		walk(&f.Body)
	}
	walk(&p.Main)
	return out
}

// Results of edit.
const (
	editEnd     = iota // there is no k-th edit
	editApplied        // p changed
	editSkip           // the k-th edit does not apply to p
)

// edit applies the k-th simplification to p (a clone). Every edit keeps the program valid: a break or continue
// stays in its loop (loop bodies are never inlined; switch cases hold no
// break), and a return in a helper stays in the helper.
func (p *Program) edit(k int) int {
	// Program-wide edits first: fewer invocations make a smaller repro.
	if k == 0 {
		if p.Groups == 1 {
			return editSkip
		}
		p.Groups = 1
		p.Input = p.Input[:p.Threads]
		return editApplied
	}
	if k == 1 {
		if p.Groups != 1 || p.Threads <= 4 {
			return editSkip
		}
		p.Threads /= 2
		p.Input = p.Input[:p.Threads]
		return editApplied
	}
	k -= 2
	// Helpers no call names any more.
	if k < len(p.Funcs) {
		if p.calls(k) {
			return editSkip
		}
		p.Funcs = append(p.Funcs[:k:k], p.Funcs[k+1:]...)
		for _, b := range p.blocks() {
			for _, s := range *b {
				if c, ok := s.(*Call); ok && c.Func > k {
					c.Func--
				}
			}
		}
		return editApplied
	}
	k -= len(p.Funcs)
	for _, b := range p.blocks() {
		for i, s := range *b {
			var alts [][]Stmt // replacements of statement i
			alts = append(alts, nil)
			switch s := s.(type) {
			case *If:
				alts = append(alts, s.Then, s.Else)
				if len(s.Else) > 0 {
					alts = append(alts, []Stmt{&If{Cond: s.Cond, Then: s.Then}})
				}
			case *Switch:
				alts = append(alts, s.Cases...)
			case *Loop:
				if s.Bound.Kind != EConst || s.Bound.K > 1 {
					alts = append(alts, []Stmt{&Loop{ID: s.ID, While: s.While, Bound: Expr{Kind: EConst, K: 1}, Body: s.Body}})
				}
			case *Wave:
				if s.Cond.A.Kind != ELane {
					c := *s
					c.Cond = Cond{Op: Lt, A: Expr{Kind: ELane}, B: Expr{Kind: EConst, K: 2}}
					if s.Op.usesCond() {
						alts = append(alts, []Stmt{&c})
					}
				}
			}
			if k < len(alts) {
				nb := append(append(append([]Stmt(nil), (*b)[:i]...), alts[k]...), (*b)[i+1:]...)
				*b = nb
				return editApplied
			}
			k -= len(alts)
		}
	}
	return editEnd
}

// calls says whether any call names helper f.
func (p *Program) calls(f int) bool {
	for _, b := range p.blocks() {
		for _, s := range *b {
			if c, ok := s.(*Call); ok && c.Func == f {
				return true
			}
		}
	}
	return false
}

// Size is the number of statements in p, for reports.
func (p *Program) Size() int {
	n := 0
	for _, b := range p.blocks() {
		n += len(*b)
	}
	return n
}

// Shrink returns the smallest program it finds, by single edits, for which
// fails still holds (fails(p) must hold for p itself), trying at most
// maxTries candidates or until the deadline (zero: none).
func Shrink(p *Program, fails func(*Program) bool, maxTries int, deadline time.Time) (*Program, int) {
	cur, tries := p, 0
	for progress := true; progress; {
		progress = false
		for k := 0; ; k++ {
			if tries >= maxTries || (!deadline.IsZero() && time.Now().After(deadline)) {
				return cur, tries
			}
			c := cur.Clone()
			switch c.edit(k) {
			case editEnd:
				goto pass
			case editSkip:
				continue
			}
			tries++
			if fails(c) {
				cur, progress = c, true
				k-- // the same position now holds another statement
			}
		}
	pass:
	}
	return cur, tries
}
