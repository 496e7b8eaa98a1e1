package gen

import (
	"fmt"
	"strings"
)

// HLSL prints the program as a compute kernel with entry point "main" and one
// buffer, `rec` at u0 (Lanes() records of RecWords words; the host writes each
// invocation's input word at wInput).
func (p *Program) HLSL() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// waverig fuzz program, seed %d: %d threads x %d groups.\n", p.Seed, p.Threads, p.Groups)
	sb.WriteString("// Record per invocation: flat, key, lane, count, events, input, then (site, lo, hi) per event.\n")
	fmt.Fprintf(&sb, `RWStructuredBuffer<uint> rec : register(u0);

// ev logs one wave operation's result; the count goes on past the log's end.
void ev(uint b, inout uint n, uint site, uint lo, uint hi)
{
    if (n < %du) {
        uint e = b + %du + n * 3u;
        rec[e] = site;
        rec[e + 1u] = lo;
        rec[e + 2u] = hi;
    }
    n++;
    rec[b + %du] = n;
}
`, MaxEvents, hdr, wEvents)
	pr := &printer{sb: &sb}
	for i, f := range p.Funcs {
		fmt.Fprintf(&sb, "\nvoid f%d(uint b, uint lane, uint gi, uint d, uint x, inout uint n)\n{\n", i)
		pr.block(f.Body, 1)
		sb.WriteString("}\n")
	}
	fmt.Fprintf(&sb, `
[numthreads(%d, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint flat = gid.x * %du + gi;
    uint b = flat * %du;
    // The layout, taken in uniform control flow.
    uint key = WaveReadLaneFirst(flat);
    uint lane = WaveGetLaneIndex();
    rec[b + %du] = flat;
    rec[b + %du] = key;
    rec[b + %du] = lane;
    rec[b + %du] = WaveGetLaneCount();
    rec[b + %du] = 0u;
    uint d = rec[b + %du];
    uint n = 0u;
`, p.Threads, p.Threads, RecWords, wFlat, wKey, wLane, wCount, wEvents, wInput)
	pr.block(p.Main, 1)
	sb.WriteString("}\n")
	return sb.String()
}

type printer struct {
	sb *strings.Builder
}

func (pr *printer) line(depth int, format string, args ...any) {
	pr.sb.WriteString(strings.Repeat("    ", depth))
	fmt.Fprintf(pr.sb, format, args...)
	pr.sb.WriteByte('\n')
}

func (pr *printer) block(ss []Stmt, depth int) {
	for _, s := range ss {
		pr.stmt(s, depth)
	}
}

func (pr *printer) stmt(s Stmt, d int) {
	switch s := s.(type) {
	case *If:
		pr.line(d, "if (%s) {", s.Cond)
		pr.block(s.Then, d+1)
		if len(s.Else) > 0 {
			pr.line(d, "} else {")
			pr.block(s.Else, d+1)
		}
		pr.line(d, "}")
	case *Loop:
		if s.While {
			pr.line(d, "uint i%d = 0u;", s.ID)
			pr.line(d, "while (i%d < %s) {", s.ID, s.Bound)
			pr.line(d+1, "i%d++;", s.ID)
		} else {
			pr.line(d, "for (uint i%d = 0u; i%d < %s; i%d++) {", s.ID, s.ID, s.Bound, s.ID)
		}
		pr.block(s.Body, d+1)
		pr.line(d, "}")
	case *Break:
		pr.line(d, "break;")
	case *Continue:
		pr.line(d, "continue;")
	case *Return:
		pr.line(d, "return;")
	case *Switch:
		pr.line(d, "switch ((%s) %% %du) {", s.Sel, len(s.Cases))
		for k, c := range s.Cases {
			if k == len(s.Cases)-1 {
				pr.line(d, "default: {")
			} else {
				pr.line(d, "case %du: {", k)
			}
			pr.block(c, d+1)
			pr.line(d+1, "break;")
			pr.line(d, "}")
		}
		pr.line(d, "}")
	case *Call:
		pr.line(d, "f%d(b, lane, gi, d, %s, n); // call site %d", s.Func, s.Arg, s.Site)
	case *Wave:
		lo, hi := s.results()
		if s.Op == OpBallot {
			pr.line(d, "{ uint4 t = WaveActiveBallot(%s); ev(b, n, %du, t.x, t.y); }", s.Cond, s.Site)
			return
		}
		pr.line(d, "ev(b, n, %du, %s, %s);", s.Site, lo, hi)
	}
}

// The single-lane bits of the mask ops: lanes 0-31 in lo, 32-63 in hi.
const (
	bitLo = "(lane < 32u ? (1u << (lane & 31u)) : 0u)"
	bitHi = "(lane - 32u < 32u ? (1u << (lane & 31u)) : 0u)"
)

// results are the HLSL of the two logged words.
func (w *Wave) results() (lo, hi string) {
	c, x := w.Cond.String(), w.X.String()
	name := w.Op.String()
	switch w.Op {
	case OpIsFirstLane:
		return "(WaveIsFirstLane() ? 1u : 0u)", "0u"
	case OpLaneCount, OpLaneIndex:
		return name + "()", "0u"
	case OpAnyTrue, OpAllTrue:
		return fmt.Sprintf("(%s(%s) ? 1u : 0u)", name, c), "0u"
	case OpAllEqual:
		return fmt.Sprintf("(%s(%s) ? 1u : 0u)", name, x), "0u"
	case OpCountBits, OpPrefixCountBits:
		return fmt.Sprintf("%s(%s)", name, c), "0u"
	case OpSum, OpBitOr, OpBitXor, OpPrefixSum:
		return fmt.Sprintf("%s(%s ? %s : 0u)", name, c, bitLo), fmt.Sprintf("%s(%s ? %s : 0u)", name, c, bitHi)
	case OpBitAnd:
		return fmt.Sprintf("WaveActiveBitAnd(%s ? ~%s : 0xffffffffu)", c, bitLo), fmt.Sprintf("WaveActiveBitAnd(%s ? ~%s : 0xffffffffu)", c, bitHi)
	case OpProduct, OpPrefixProduct:
		return fmt.Sprintf("%s(%s ? 2u : 1u)", name, c), "0u"
	case OpReadLaneAt, OpQuadReadLaneAt:
		return fmt.Sprintf("%s(%s, %du)", name, x, w.K), "0u"
	default: // ReadLaneFirst, Min, Max, the quad reads
		return fmt.Sprintf("%s(%s)", name, x), "0u"
	}
}

func (c Cond) String() string {
	op := [...]string{Lt: "<", Eq: "==", Ne: "!=", Ge: ">="}[c.Op]
	return fmt.Sprintf("%s %s %s", c.A, op, c.B)
}

func (e Expr) String() string {
	switch e.Kind {
	case EConst:
		return fmt.Sprintf("%du", e.K)
	case ELane:
		return "lane"
	case EGi:
		return "gi"
	case EData:
		return "d"
	case EVar:
		return fmt.Sprintf("i%d", e.Var)
	case EParam:
		return "x"
	case EAdd:
		return fmt.Sprintf("(%s + %s)", e.A, e.B)
	case EXor:
		return fmt.Sprintf("(%s ^ %s)", e.A, e.B)
	case EAnd:
		return fmt.Sprintf("(%s & %du)", e.A, e.K)
	case EShr:
		return fmt.Sprintf("(%s >> %du)", e.A, e.K)
	case EMod:
		return fmt.Sprintf("(%s %% %du)", e.A, e.K)
	case EMul:
		return fmt.Sprintf("(%s * %du)", e.A, e.K)
	}
	return "?"
}
