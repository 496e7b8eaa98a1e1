package gen

import (
	"strconv"
	"strings"
)

// Event is one wave operation a lane ran, as the simulator predicts it.
type Event struct {
	Site int
	// Instance names the dynamic instance: the call sites and loop
	// iterations on the way to the site, and the site.
	Instance string
	Cond     bool
	X        uint32
}

// LaneInput is what a lane's path depends on.
type LaneInput struct {
	Lane, Gi, Data uint32
}

// Simulate runs the program for one lane and returns its events in order.
// Wave results never feed back, so one lane's run is independent of the
// others; the instances tie lanes together afterwards.
func (p *Program) Simulate(in LaneInput) []Event {
	s := &sim{p: p, in: in, vars: map[int]uint32{}}
	s.block(p.Main, 0)
	return s.events
}

// flow is how a statement ended.
type flow int

const (
	next flow = iota
	brk
	cont
	ret
)

type sim struct {
	p      *Program
	in     LaneInput
	x      uint32 // the current helper's parameter
	vars   map[int]uint32
	path   []string // the instance path: "cS" per call site, "lID.N" per loop iteration
	events []Event
	steps  int
}

// maxEventsSim bounds a simulation (the generator's programs stay far below;
// a shrunk or hand-written one must not run away).
const maxEventsSim = 1 << 16

func (s *sim) block(ss []Stmt, depth int) flow {
	for _, st := range ss {
		if f := s.stmt(st, depth); f != next {
			return f
		}
	}
	return next
}

func (s *sim) stmt(st Stmt, depth int) flow {
	switch st := st.(type) {
	case *If:
		if s.cond(st.Cond) {
			return s.block(st.Then, depth)
		}
		return s.block(st.Else, depth)
	case *Loop:
		// The counter's value as the shader sees it in the body: 0-based for
		// `for`, 1-based (incremented first) for `while`.
		saved, had := s.vars[st.ID]
		defer func() {
			if had {
				s.vars[st.ID] = saved
			} else {
				delete(s.vars, st.ID)
			}
		}()
		for it := uint32(0); ; it++ {
			s.vars[st.ID] = it
			if it >= s.expr(st.Bound) {
				return next
			}
			if st.While {
				s.vars[st.ID] = it + 1
			}
			s.path = append(s.path, "l"+strconv.Itoa(st.ID)+"."+strconv.Itoa(int(it)))
			f := s.block(st.Body, depth+1)
			s.path = s.path[:len(s.path)-1]
			switch f {
			case brk:
				return next
			case ret:
				return ret
			}
			if s.steps++; s.steps > maxEventsSim {
				return ret
			}
		}
	case *Break:
		return brk
	case *Continue:
		return cont
	case *Return:
		return ret
	case *Switch:
		n := uint32(len(st.Cases))
		f := s.block(st.Cases[s.expr(st.Sel)%n], depth)
		if f == brk { // never generated; a break would leave the switch
			return next
		}
		return f
	case *Call:
		arg := s.expr(st.Arg)
		savedX := s.x
		s.x = arg
		s.path = append(s.path, "c"+strconv.Itoa(st.Site))
		s.block(s.p.Funcs[st.Func].Body, depth)
		s.path = s.path[:len(s.path)-1]
		s.x = savedX
		return next
	case *Wave:
		if len(s.events) < maxEventsSim {
			e := Event{Site: st.Site, Instance: strings.Join(append(s.path, "s"+strconv.Itoa(st.Site)), "/")}
			if st.Op.usesCond() {
				e.Cond = s.cond(st.Cond)
			}
			if st.Op.usesX() {
				e.X = s.expr(st.X)
			}
			s.events = append(s.events, e)
		}
	}
	return next
}

func (s *sim) cond(c Cond) bool {
	a, b := s.expr(c.A), s.expr(c.B)
	switch c.Op {
	case Lt:
		return a < b
	case Eq:
		return a == b
	case Ne:
		return a != b
	default:
		return a >= b
	}
}

func (s *sim) expr(e Expr) uint32 {
	switch e.Kind {
	case EConst:
		return e.K
	case ELane:
		return s.in.Lane
	case EGi:
		return s.in.Gi
	case EData:
		return s.in.Data
	case EVar:
		return s.vars[e.Var]
	case EParam:
		return s.x
	case EAdd:
		return s.expr(*e.A) + s.expr(*e.B)
	case EXor:
		return s.expr(*e.A) ^ s.expr(*e.B)
	case EAnd:
		return s.expr(*e.A) & e.K
	case EShr:
		return s.expr(*e.A) >> e.K
	case EMod:
		if e.K == 0 {
			return 0
		}
		return s.expr(*e.A) % e.K
	case EMul:
		return s.expr(*e.A) * e.K
	}
	return 0
}
