package gen

import (
	"fmt"
	"sort"
)

// Failure is one thing the device did that the contract does not allow.
type Failure struct {
	Flat  int    // the invocation (-1: the whole dispatch)
	Event int    // the event's index in the lane's log (-1: not an event)
	Site  int    // the site (0: none)
	Op    string // the operation, when the failure is an event's value
	Msg   string
	// Want holds log words (buffer word index → value) as a correct device
	// with maximal reconvergence writes them, for the repro's case file.
	Want map[int]uint32
}

func (f Failure) String() string {
	s := fmt.Sprintf("lane flat=%d", f.Flat)
	if f.Event >= 0 {
		s += fmt.Sprintf(" event %d (site %d", f.Event, f.Site)
		if f.Op != "" {
			s += " " + f.Op
		}
		s += ")"
	}
	return s + ": " + f.Msg
}

// Mode is the contract a run is checked under.
type Mode int

const (
	// Subset is the contract of every device: the lanes that ran an
	// operation with a lane are some subset of those that reached its
	// dynamic instance.
	Subset Mode = iota
	// Exact is the contract of maximal reconvergence: exactly those lanes.
	Exact
)

func (m Mode) String() string {
	if m == Exact {
		return "exact"
	}
	return "subset"
}

// lane is one invocation's record, decoded.
type lane struct {
	flat, key, idx, count, nev uint32
	input                      uint32
	events                     []Event // simulated
}

// Check checks a dispatch's log buffer (Lanes() records) against the
// simulation. It returns every failure found, the layout's first (a layout
// the rig cannot trust stops the check there).
func (p *Program) Check(words []uint32, mode Mode) []Failure {
	var fails []Failure
	add := func(f Failure) {
		if len(fails) < 256 {
			fails = append(fails, f)
		}
	}
	n := p.Lanes()
	if len(words) < n*RecWords {
		return []Failure{{Flat: -1, Event: -1, Msg: fmt.Sprintf("the log has %d words, want %d", len(words), n*RecWords)}}
	}
	lanes := make([]lane, n)
	waves := map[uint32][]int{}
	var size uint32
	for f := 0; f < n; f++ {
		r := words[f*RecWords : (f+1)*RecWords]
		l := lane{flat: r[wFlat], key: r[wKey], idx: r[wLane], count: r[wCount], nev: r[wEvents], input: r[wInput]}
		lanes[f] = l
		bad := func(format string, a ...any) {
			add(Failure{Flat: f, Event: -1, Msg: "layout: " + fmt.Sprintf(format, a...)})
		}
		switch {
		case l.flat != uint32(f):
			bad("flat id %d", l.flat)
		case l.input != p.Input[f]:
			bad("input word %d, the host wrote %d", l.input, p.Input[f])
		case l.count == 0 || l.count&(l.count-1) != 0 || l.idx >= l.count:
			bad("lane %d of a wave of %d", l.idx, l.count)
		case size != 0 && l.count != size:
			bad("lane count %d, other lanes saw %d", l.count, size)
		case l.key >= uint32(n) || int(l.key)/p.Threads != f/p.Threads:
			bad("wave key %d is not an invocation of its workgroup", l.key)
		}
		if size == 0 {
			size = l.count
		}
		waves[l.key] = append(waves[l.key], f)
	}
	if len(fails) > 0 {
		return fails
	}
	for key, members := range waves {
		seen := map[uint32]int{}
		lowest := members[0]
		for _, f := range members {
			if g, dup := seen[lanes[f].idx]; dup {
				add(Failure{Flat: f, Event: -1, Msg: fmt.Sprintf("layout: lane %d of wave %#x is also flat %d", lanes[f].idx, key, g)})
			}
			seen[lanes[f].idx] = f
			if lanes[f].idx < lanes[lowest].idx {
				lowest = f
			}
		}
		if uint32(lowest) != key {
			add(Failure{Flat: lowest, Event: -1, Msg: fmt.Sprintf("layout: the lowest lane of wave %#x is flat %d, not the key", key, lowest)})
		}
	}
	if len(fails) > 0 {
		return fails
	}

	// Simulate, and check each lane's sites and count.
	for f := range lanes {
		l := &lanes[f]
		l.events = p.Simulate(LaneInput{Lane: l.idx, Gi: uint32(f % p.Threads), Data: p.Input[f]})
		if int(l.nev) != len(l.events) {
			add(Failure{Flat: f, Event: -1, Msg: fmt.Sprintf("logged %d events, the program runs %d wave operations in this lane", l.nev, len(l.events)),
				Want: map[int]uint32{f*RecWords + wEvents: uint32(len(l.events))}})
		}
		for k := 0; k < min(int(l.nev), len(l.events), MaxEvents); k++ {
			if site := words[f*RecWords+hdr+3*k]; site != uint32(l.events[k].Site) {
				add(Failure{Flat: f, Event: k, Site: l.events[k].Site, Msg: fmt.Sprintf("logged site %d, the program reaches site %d", site, l.events[k].Site),
					Want: map[int]uint32{f*RecWords + hdr + 3*k: uint32(l.events[k].Site)}})
			}
		}
	}
	if len(fails) > 0 {
		return fails
	}

	// The dynamic instances of each wave, then every event's value.
	ops := p.siteOps()
	keys := make([]uint32, 0, len(waves))
	for k := range waves {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, key := range keys {
		byInst := map[string][]member{}
		for _, f := range waves[key] {
			l := &lanes[f]
			for _, e := range l.events {
				byInst[e.Instance] = append(byInst[e.Instance], member{lane: l.idx, cond: e.Cond, x: e.X})
			}
		}
		insts := make(map[string]*instance, len(byInst))
		for k, ms := range byInst {
			insts[k] = newInstance(ms)
		}
		for _, f := range waves[key] {
			l := &lanes[f]
			for k, e := range l.events {
				if k >= MaxEvents {
					break
				}
				w := ops[e.Site]
				base := f*RecWords + hdr + 3*k
				lo, hi := words[base+1], words[base+2]
				self := member{lane: l.idx, cond: e.Cond, x: e.X}
				in := insts[e.Instance]
				if ok, want := checkEvent(w.Op, w.K, self, in, mode == Exact, size, lo, hi); !ok {
					xlo, xhi := exactResult(w.Op, w.K, self, in, size)
					add(Failure{Flat: f, Event: k, Site: e.Site, Op: w.Op.String(),
						Msg:  fmt.Sprintf("got lo=%#x hi=%#x, want %s (instance %s: %d lanes of wave %#x)", lo, hi, want, e.Instance, len(in.members), key),
						Want: map[int]uint32{base + 1: xlo, base + 2: xhi}})
				}
			}
		}
	}
	sort.Slice(fails, func(i, j int) bool {
		return fails[i].Flat < fails[j].Flat || fails[i].Flat == fails[j].Flat && fails[i].Event < fails[j].Event
	})
	return fails
}

// siteOps maps every wave site to its statement.
func (p *Program) siteOps() map[int]*Wave {
	m := map[int]*Wave{}
	var walk func(ss []Stmt)
	walk = func(ss []Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *Wave:
				m[s.Site] = s
			case *If:
				walk(s.Then)
				walk(s.Else)
			case *Loop:
				walk(s.Body)
			case *Switch:
				for _, c := range s.Cases {
					walk(c)
				}
			}
		}
	}
	for _, f := range p.Funcs {
		walk(f.Body)
	}
	walk(p.Main)
	return m
}
