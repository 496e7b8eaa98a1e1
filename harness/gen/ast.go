// Package gen fuzzes wave operations in generated control flow: it generates
// seeded random HLSL compute kernels (nested if/else on lane masks and data,
// for and while loops with lane-dependent trip counts, break, continue, switch,
// early return, calls to generated helpers) with wave operations at random
// points, simulates every lane on the CPU, runs the kernel on a Vulkan device
// and checks each wave operation's result against the simulation; a failing
// program is shrunk to a small repro.
//
// # The log
//
// Every invocation owns a record of RecWords words in one buffer: flat id, wave
// key (WaveReadLaneFirst of the flat id, taken at entry in uniform control
// flow), lane index, lane count, the number of events it logged, its input
// word, then MaxEvents events of three words each (site id, lo, hi). A wave
// operation site logs one event when it runs. Wave results never feed back
// into control flow or data, so each lane's path — and so its sequence of
// sites and event count — is a function of its own inputs and lane index
// alone; the simulator predicts it exactly, and a lane that logged a
// different site or count is a failure whatever the device's reconvergence.
//
// # The contract
//
// The simulator runs each lane on its own (no wave result feeds back, so a
// lane's path needs no other lane) and gives every event its dynamic
// instance: the site, the call sites on the way to it and the iteration
// number of every enclosing loop. R is the set of lanes of the wave (the
// lanes sharing the observed wave key) whose events have the same instance:
// the active mask a maximally reconverging device has at that point. SPIR-V
// never tangles invocations of different dynamic instances, so the lanes that
// ran the operation together with lane L are some S with L ∈ S ⊆ R.
//
//   - Exact, where the device has shaderMaximalReconvergence (Device.Maximal;
//     every module then carries MaximallyReconvergesKHR, added by
//     RequestMaximalReconvergence since HLSL cannot ask for it in compute):
//     S = R, and every result is compared exactly (a read of an inactive lane
//     accepts any value).
//   - Subset, everywhere else (lavapipe 22.3 included): a result passes when
//     SOME S with L ∈ S ⊆ R yields it. The arguments make this decidable:
//     sums, ors, xors and ands of single-lane bits (1 << lane where the site's
//     lane condition holds) return the subset itself, a product of 2s and the
//     bit counts its size, min, max and first a value of a lane in R, and the
//     votes are forced only where every choice of S agrees. Reads of another
//     lane (WaveReadLaneAt, the quad reads) accept any value, since the lane
//     read may not be in S; the exact contract checks them.
//
// Under either contract a correct device never fails: a failure is a device
// or compiler bug. The subset check is per lane (it does not ask the lanes of
// one instance to agree on one S): the weakest sound rule. Beyond values,
// every lane must log exactly the sites the simulation runs, in order, and
// the layout (keys, unique lanes, one lane count) must hold.
//
// All 24 SM 6.0 wave and quad operations are generated. Lanes past 63 are
// outside the single-lane bits (waves of 128 check those ops only for lower
// lanes). Each workgroup size is from a fixed list (whole waves and partial
// last waves); control flow depends on the lane index, the group index, an
// input word per invocation and loop counters.
package gen

// Layout of a lane's record in the log buffer.
const (
	wFlat   = 0
	wKey    = 1
	wLane   = 2
	wCount  = 3
	wEvents = 4
	wInput  = 5
	hdr     = 6
	// MaxEvents is how many events a lane's record holds; events past it are
	// counted (the count word) but not stored.
	MaxEvents = 48
	// RecWords is the size of one lane's record in words.
	RecWords = hdr + 3*MaxEvents
)

// Program is one generated kernel.
type Program struct {
	Seed    uint64
	Threads int      // numthreads(Threads, 1, 1)
	Groups  int      // workgroups dispatched
	Input   []uint32 // one input word per invocation (flat id order)
	Funcs   []*Func  // helpers; Funcs[i] calls only Funcs[j] with j < i
	Main    []Stmt
}

// Lanes is the number of invocations the program dispatches.
func (p *Program) Lanes() int { return p.Threads * p.Groups }

// Func is a helper: void fN(uint b, uint lane, uint gi, uint d, uint x, inout uint n).
type Func struct {
	Body []Stmt
}

// Stmt is one statement.
type Stmt interface{ isStmt() }

// If runs Then where Cond holds, else Else.
type If struct {
	Cond       Cond
	Then, Else []Stmt
}

// Loop is `for (uint iID = 0; iID < Bound; iID++)` or, While, `uint iID = 0;
// while (iID < Bound) { iID++; … }` (the counter is 1-based in the body).
type Loop struct {
	ID    int
	While bool
	Bound Expr
	Body  []Stmt
}

// Break leaves the innermost loop (never generated directly inside a switch).
type Break struct{}

// Continue starts the innermost loop's next iteration.
type Continue struct{}

// Return leaves the function (main: the invocation ends).
type Return struct{}

// Switch selects Cases[Sel % len(Cases)] (the last is `default`); every case
// ends with an implicit break.
type Switch struct {
	Sel   Expr
	Cases [][]Stmt
}

// Call calls helper Func with x = Arg; Site makes each call site a distinct
// dynamic instance for the operations inside.
type Call struct {
	Site int
	Func int
	Arg  Expr
}

// Wave is a wave operation site: it logs one event (Site, lo, hi).
type Wave struct {
	Site int
	Op   Op
	Cond Cond // the lane condition of ops over a boolean or a masked bit
	X    Expr // the value of ops over a uint
	K    uint32
}

func (*If) isStmt()       {}
func (*Loop) isStmt()     {}
func (*Break) isStmt()    {}
func (*Continue) isStmt() {}
func (*Return) isStmt()   {}
func (*Switch) isStmt()   {}
func (*Call) isStmt()     {}
func (*Wave) isStmt()     {}

// ExprKind is an expression's operator.
type ExprKind int

const (
	EConst ExprKind = iota // K
	ELane                  // WaveGetLaneIndex() (taken at entry)
	EGi                    // SV_GroupIndex
	EData                  // the invocation's input word
	EVar                   // loop counter iVar
	EParam                 // a helper's x
	EAdd                   // A + B
	EXor                   // A ^ B
	EAnd                   // A & K
	EShr                   // A >> K
	EMod                   // A % K (K > 0)
	EMul                   // A * K
)

// Expr is a uint expression.
type Expr struct {
	Kind ExprKind
	A, B *Expr
	K    uint32
	Var  int
}

// CmpOp compares two uints.
type CmpOp int

const (
	Lt CmpOp = iota
	Eq
	Ne
	Ge
)

// Cond is A op B.
type Cond struct {
	Op   CmpOp
	A, B Expr
}
