package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/glslang"
	"waverig/harness/models"
)

// build turns a list of cases of one operation and shape into a kernel: one block of
// the shape's workgroups per case replica (Shape.Grid), the control word of each
// invocation pre-written into its record.
func build(name string, cases []Case) (Kernel, error) {
	if len(cases) == 0 {
		return Kernel{}, fmt.Errorf("kernels: %s: no cases", name)
	}
	if len(cases) > 0xffff {
		return Kernel{}, fmt.Errorf("kernels: %s: %d cases do not fit the control word", name, len(cases))
	}
	op, sh := cases[0].Op, cases[0].Shape
	var types []Type
	variant := map[Type]int{}
	for _, c := range cases {
		if c.Op != op || c.Shape.Name != sh.Name {
			return Kernel{}, fmt.Errorf("kernels: %s: cases of different operations or shapes", name)
		}
		if _, ok := variant[c.Type]; !ok {
			variant[c.Type] = len(types)
			types = append(types, c.Type)
		}
	}
	if len(types) > 255 {
		return Kernel{}, fmt.Errorf("kernels: %s: too many types", name)
	}
	if err := sh.validate(); err != nil {
		return Kernel{}, err
	}
	// A replica's workgroups are consecutive in the linear group index, so its
	// records are one block of per invocations.
	per := sh.Threads() * sh.GroupCount()
	rep := recordReplicas(op)
	n := len(cases) * rep
	rec := newRecords(n * per)
	g := 0
	err := eachReplica(cases, rep, func(ci int, c Case, mt models.Type, pid, m int) error {
		if pid < 0 {
			return fmt.Errorf("kernels: %s: unknown pattern %q", c.ID(), c.Pattern)
		}
		in, coin := groupInputs(c, mt, m, per)
		for i := 0; i < per; i++ {
			r := rec[((g*per)+i)*recWords:][:recWords]
			r[wCtl] = ctl(pid, m, variant[c.Type], ci)
			r[wRnd] = coin[i]
			writeComps(r, wIn, mt.Scalar, in[i])
		}
		g++
		return nil
	})
	if err != nil {
		return Kernel{}, err
	}
	src, err := kernelHLSL(name, op, sh, types)
	if err != nil {
		return Kernel{}, err
	}
	return Kernel{
		Name: name, Entry: "main", HLSL: src, Cases: cases,
		Buffers: []Buffer{{Register: "u0", Data: bytesOf(rec)}},
		Groups:  sh.Grid(n),
		Needs:   needsOf(types),
	}, nil
}

// zero is a typed zero literal of a scalar, spelled so both waverig's compiler and
// glslang (also with 16-bit types enabled) accept it.
func zero(s string) string {
	switch s {
	case "int":
		return "0"
	case "uint":
		return "0u"
	case "float":
		return "0.0f"
	case "bool":
		return "false"
	case "half":
		return "(half)0.0f"
	case "double":
		return "(double)0.0f"
	case "int64_t":
		return "(int64_t)0"
	case "uint64_t":
		return "(uint64_t)0u"
	}
	return "0"
}

func splat(t Type, e string) string {
	if t.N == 1 {
		return e
	}
	parts := make([]string, t.N)
	for i := range parts {
		parts[i] = e
	}
	return t.HLSL() + "(" + strings.Join(parts, ", ") + ")"
}

// loadComp reads component k of a value of scalar s from the record's input words.
func loadComp(s string, k int) string {
	return loadCompAt(s, k, func(i int) string { return fmt.Sprintf("rec[b + %du]", wIn+i) })
}

// loadCompAt reads component k of scalar s; w(i) spells the i-th input word of the
// invocation (a record's input words, or a pixel kernel's input block).
func loadCompAt(s string, k int, w func(int) string) string {
	switch s {
	case "int":
		return "asint(" + w(k) + ")"
	case "uint":
		return w(k)
	case "float":
		return "asfloat(" + w(k) + ")"
	case "bool":
		return "(" + w(k) + " != 0u)"
	case "half":
		return "(half)f16tof32(" + w(k) + ")"
	case "double":
		// The word pair's bits (encodeComp), moved by OpBitcast, which must not
		// flush a denormal (Vulkan, "Precision and Operation of SPIR-V
		// Instructions"): any double can be an input.
		return fmt.Sprintf("asdouble(%s, %s)", w(2*k), w(2*k+1))
	case "uint64_t":
		return fmt.Sprintf("(((uint64_t)%s << 32) | (uint64_t)%s)", w(2*k+1), w(2*k))
	case "int64_t":
		return fmt.Sprintf("(int64_t)(((uint64_t)%s << 32) | (uint64_t)%s)", w(2*k+1), w(2*k))
	}
	return "0"
}

func load(t Type) string {
	return loadAt(t, func(i int) string { return fmt.Sprintf("rec[b + %du]", wIn+i) })
}

// loadAt is load with the input words spelled by w (see loadCompAt).
func loadAt(t Type, w func(int) string) string {
	if t.N == 1 {
		return loadCompAt(t.Scalar, 0, w)
	}
	parts := make([]string, t.N)
	for k := range parts {
		parts[k] = loadCompAt(t.Scalar, k, w)
	}
	return t.HLSL() + "(" + strings.Join(parts, ", ") + ")"
}

var swz = []string{".x", ".y", ".z", ".w"}

// storeResult writes the result r (type t) to the output words, each spelled by
// to.word(k) (k = 0..7): the variables o0..o7 of a pixel kernel, or the record's
// output words themselves in a record kernel, which stores inside the arm that
// ran the operation so that the host's sentinel stays wherever no lane should
// have written (outSentinel).
//
// A double leaves with all 64 bits (encodeComp: low word, high word) through
// asuint(double, out uint lowbits, out uint highbits), an OpBitcast to a uint2:
// no arithmetic, so nothing a driver may legally fold. (The float-plus-residual
// split this replaced, (float)r and (float)(r - (double)(float)r), is folded to
// a zero residual by Mesa since 23.1, ~f2f64(f2f32(a)) -> a, which Vulkan's
// "Evaluation of Expressions" allows.) glslang 12 has no such asuint, and
// neither precise (it decorates the subtraction, not the conversions, so the
// fold still applies) nor an execution mode is in its reach; under its macro
// the kernel stores the double itself, OpStore through recd, a double view of
// the record buffer on the same register (doubleView): a store moves bits too.
func storeResult(sb *strings.Builder, ind string, t Type, to dest) {
	for k := 0; k < t.N; k++ {
		c := "r"
		if t.N > 1 {
			c += swz[k]
		}
		switch t.Scalar {
		case "int", "float":
			fmt.Fprintf(sb, "%s%s = asuint(%s);\n", ind, to.word(k), c)
		case "uint":
			fmt.Fprintf(sb, "%s%s = %s;\n", ind, to.word(k), c)
		case "bool":
			fmt.Fprintf(sb, "%s%s = %s ? 1u : 0u;\n", ind, to.word(k), c)
		case "half":
			fmt.Fprintf(sb, "%s%s = f32tof16((float)%s);\n", ind, to.word(k), c)
		case "double":
			fmt.Fprintf(sb, "#ifdef %s\n%s%s = %s;\n#else\n", glslang.Macro, ind, to.double(k), c)
			fmt.Fprintf(sb, "%sasuint(%s, %s, %s);\n#endif\n", ind, c, to.word(2*k), to.word(2*k+1))
		case "int64_t", "uint64_t":
			fmt.Fprintf(sb, "%suint64_t u%d = (uint64_t)%s;\n", ind, k, c)
			fmt.Fprintf(sb, "%s%s = (uint)(u%d & 0xffffffffu);\n", ind, to.word(2*k), k)
			fmt.Fprintf(sb, "%s%s = (uint)(u%d >> 32);\n", ind, to.word(2*k+1), k)
		}
	}
}

// dest is where storeResult puts a result: word(k) spells output word k,
// double(k) the double that takes words 2k and 2k+1 (glslang's road).
type dest struct{ word, double func(k int) string }

// toVars are the variables o0..o7 (d0..d3 for glslang's doubles) that an arm
// fills and emitVariants stores; toRecord the record's output words themselves.
var (
	toVars   = dest{outVar, func(k int) string { return fmt.Sprintf("d%d", k) }}
	toRecord = dest{outWord, outDouble}
)

// outVar and outWord are the two destinations of a word.
func outVar(k int) string  { return fmt.Sprintf("o%d", k) }
func outWord(k int) string { return fmt.Sprintf("rec[b + %du]", wOut+k) }

// outDouble is output words 2k and 2k+1 of the record as one element of recd
// (records are recWords long, an even count, and wOut is even: aligned).
func outDouble(k int) string { return fmt.Sprintf("recd[(b >> 1u) + %du]", wOut/2+k) }

// hasDouble reports whether op's result on any of types is a double vector.
func hasDouble(op intrinsics.Op, types []Type) bool {
	for _, t := range types {
		if resultType(op, t).Scalar == "double" {
			return true
		}
	}
	return false
}

// doubleView declares, for glslang's compile of a kernel with double results
// only, recd: the record buffer again, as doubles, on u0 (glslang maps both to
// one descriptor). Vulkan ("Descriptor Set Interface") allows "multiple shader
// variables to be assigned the same descriptor set and binding values, as long
// as all those that are statically used by the entry point being compiled are
// compatible with the descriptor type", and the two views never touch the same
// words (recd only the output words, rec everything else), so SPIR-V's Aliased
// decoration is not needed.
func doubleView(sb *strings.Builder, op intrinsics.Op, types []Type) {
	if !hasDouble(op, types) {
		return
	}
	fmt.Fprintf(sb, "#ifdef %s\n// glslang 12 lacks asuint(double, out uint, out uint): doubles are stored through this view.\n", glslang.Macro)
	sb.WriteString("RWStructuredBuffer<double> recd : register(u0);\n#endif\n")
}

// resultType is the HLSL result type of op on t.
func resultType(op intrinsics.Op, t Type) Type {
	mt, _ := t.Model()
	rt := models.ResultType(op, mt)
	return Type{Scalar: rt.Scalar.String(), N: rt.N}
}

// call is the intrinsic call expression for one lane-argument choice.
func call(op intrinsics.Op, arg string) string {
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveIsFirstLane:
		return op.String() + "()"
	case intrinsics.WaveReadLaneAt, intrinsics.QuadReadLaneAt:
		return fmt.Sprintf("%s(x, %s)", op, arg)
	}
	return op.String() + "(x)"
}

// emitCall writes the statements of one arm: mark the branch, compute the lane
// argument, call the intrinsic. Lane-argument ops branch on the workgroup-uniform mode
// so every choice is its own call site (QuadReadLaneAt needs a constant id before
// SPIR-V 1.5, so its four ids are four constant call sites).
func emitCall(sb *strings.Builder, ind string, op intrinsics.Op, branch int, record bool) {
	fmt.Fprintf(sb, "%sact = %du;\n", ind, branch)
	switch op {
	case intrinsics.WaveReadLaneAt:
		args := waveReadArgs(record)
		for m, a := range args {
			kw := "if"
			if m > 0 {
				kw = "} else if"
			}
			if m == len(args)-1 {
				fmt.Fprintf(sb, "%s} else {\n", ind)
			} else {
				fmt.Fprintf(sb, "%s%s (mode == %du) {\n", ind, kw, m)
			}
			fmt.Fprintf(sb, "%s    larg = %s;\n%s    r = %s;\n", ind, a, ind, call(op, a))
		}
		fmt.Fprintf(sb, "%s}\n", ind)
	case intrinsics.QuadReadLaneAt:
		for m := 0; m < 4; m++ {
			switch {
			// The id is the mode's low two bits: record kernels also run each
			// id per quad (coverage.go: mode = id | whole<<2).
			case m == 0:
				fmt.Fprintf(sb, "%sif ((mode & 3u) == 0u) {\n", ind)
			case m == 3:
				fmt.Fprintf(sb, "%s} else {\n", ind)
			default:
				fmt.Fprintf(sb, "%s} else if ((mode & 3u) == %du) {\n", ind, m)
			}
			a := fmt.Sprintf("%du", m)
			fmt.Fprintf(sb, "%s    larg = %s;\n%s    r = %s;\n", ind, a, ind, call(op, a))
		}
		fmt.Fprintf(sb, "%s}\n", ind)
	default:
		fmt.Fprintf(sb, "%sr = %s;\n", ind, call(op, ""))
	}
}

// kernelHLSL generates the source of one operation kernel. Layout of the code:
// record the wave layout and load the operand's words in uniform control flow, decide
// the arm from the pattern, then in the arm run the op on the invocation's type variant
// and store the result's words (emitVariants); the record's header is written after all
// divergence, by every invocation.
func kernelHLSL(name string, op intrinsics.Op, sh Shape, types []Type) (string, error) {
	var sb strings.Builder
	threads := sh.Threads()
	fmt.Fprintf(&sb, "// waverig generated kernel %s: %s, numthreads(%d, %d, %d).\n", name, op, sh.NumThreads[0], sh.NumThreads[1], sh.NumThreads[2])
	fmt.Fprintf(&sb, "// Record of %d uints per invocation: flat, key, lane, count, branch, lane arg, ctl, coin, in[8], out[8].\n", recWords)
	sb.WriteString("RWStructuredBuffer<uint> rec : register(u0);\n")
	doubleView(&sb, op, types)
	sb.WriteString("\n")
	fmt.Fprintf(&sb, "[numthreads(%d, %d, %d)]\n", sh.NumThreads[0], sh.NumThreads[1], sh.NumThreads[2])
	sb.WriteString("void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)\n{\n")
	fmt.Fprintf(&sb, "    uint flat = %s;\n", sh.flatHLSL())
	emitRecordBody(&sb, op, threads, types)
	sb.WriteString("}\n")
	return sb.String(), nil
}

// emitRecordBody is the body shared by compute and vertex kernels, after "flat" (the
// record index) and "gi" (the invocation's index in its replica) are declared: layout,
// pattern, the op per type variant, and the record stores.
func emitRecordBody(sb *strings.Builder, op intrinsics.Op, threads int, types []Type) {
	emitPrologue(sb, threads)
	emitCoverage(sb, op)
	emitVariants(sb, op, types, func(i int) string { return fmt.Sprintf("rec[b + %du]", wIn+i) }, true)
	emitRecordStores(sb)
}

// emitPrologue is the start of every record kernel's body: the record's base,
// the wave layout taken in uniform control flow, and the pattern (emitPattern).
func emitPrologue(sb *strings.Builder, threads int) {
	fmt.Fprintf(sb, "    uint b = flat * %du;\n", recWords)
	sb.WriteString(`    // Layout, taken before any divergence.
    uint key = WaveReadLaneFirst(flat);
    uint lane = WaveGetLaneIndex();
    uint cnt = WaveGetLaneCount();
    uint ctl = rec[b + 6u];
    uint coin = rec[b + 7u];
`)
	emitPattern(sb, fmt.Sprintf("lane == cnt - 1u || gi == %du", threads-1), false)
}

// emitRecordStores writes the record's header after all divergence, by every
// invocation (the outputs were stored in the arms: storeResult).
func emitRecordStores(sb *strings.Builder) {
	for _, l := range []string{
		"rec[b + 0u] = flat;", "rec[b + 1u] = key;", "rec[b + 2u] = lane;", "rec[b + 3u] = cnt;",
		"rec[b + 4u] = act;", "rec[b + 5u] = larg;",
	} {
		sb.WriteString("    " + l + "\n")
	}
}

// emitPattern decodes ctl and decides outer/inner from the pattern (lastCond is the
// "last" pattern's condition), then declares the arm and lane argument, and, for a
// pixel kernel (outVars), the output variables o0..o7.
func emitPattern(sb *strings.Builder, lastCond string, outVars bool) {
	sb.WriteString(`    uint pat = ctl & 15u;
    uint mode = (ctl >> 4) & 15u;
    uint variant = (ctl >> 8) & 255u;
    // Pattern: the op runs where outer && inner (arm 1) and, for "nested" on scalar
    // types, also where outer && !inner (arm 2).
    bool outer = true;
    bool inner = true;
    if (pat == 1u) {
        outer = (lane & 1u) == 0u;
    } else if (pat == 2u) {
        outer = (lane & 1u) == 1u;
    } else if (pat == 3u) {
        outer = lane == 0u;
    } else if (pat == 4u) {
`)
	fmt.Fprintf(sb, "        outer = %s;\n", lastCond)
	sb.WriteString(`    } else if (pat == 5u) {
        outer = lane < cnt / 2u;
    } else if (pat == 6u) {
        outer = (lane % 3u) != 2u;
        inner = ((lane >> 1) & 1u) == 0u;
    } else if (pat == 7u) {
        outer = coin != 0u;
    }
    uint act = 0u;
    uint larg = 0u;
`)
	if outVars {
		for k := 0; k < 8; k++ {
			fmt.Fprintf(sb, "    uint o%d = 0u;\n", k)
		}
	}
}

// emitVariants runs the op of the invocation's type variant in the pattern's arms.
// w spells the invocation's i-th input word (a record's, or a pixel kernel's input
// block). The code is laid out for the driver's shader compiler, whose cost is
// mostly in the memory accesses (lavapipe turns each load or store into a loop
// over the lanes): the input words are loaded once, in uniform control flow; each
// arm holds the chain of type variants (load x from those words, call the op,
// convert the result to the words o0..), and stores o0.. to the record once,
// guarded by the running variant's word count nw. So the stores still happen
// inside the arm that ran the operation, by exactly its lanes and only as many
// words as the result has (the sentinel checks, outSentinel), with one store
// per output word and arm instead of one per word, arm and type.
// A pixel kernel (!record) keeps o0..o7 (declared by emitPattern) for its colour
// output; a record kernel declares them here. record: a record kernel's lane
// arguments (waveReadArgs).
func emitVariants(sb *strings.Builder, op intrinsics.Op, types []Type, w func(int) string, record bool) {
	nin, nout := 0, 0
	for _, t := range types {
		nin = max(nin, t.N*wordsPer(mustScalar(t)))
		rt := resultType(op, t)
		nout = max(nout, rt.N*wordsPer(mustScalar(rt)))
	}
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveIsFirstLane:
		nin = 0 // no operand
	}
	if nin > 0 {
		sb.WriteString("    // The operand's words, loaded before any divergence.\n")
	}
	for i := 0; i < nin; i++ {
		fmt.Fprintf(sb, "    uint i%d = %s;\n", i, w(i))
	}
	if record {
		for k := 0; k < nout; k++ {
			fmt.Fprintf(sb, "    uint o%d = 0u;\n", k)
		}
	}
	// A kernel's variants share the op, so their results share a scalar: with a
	// double one, every variant stores doubles (storeResult).
	dbl := record && hasDouble(op, types)
	if dbl {
		fmt.Fprintf(sb, "#ifdef %s\n", glslang.Macro)
		for k := 0; k < nout/2; k++ {
			fmt.Fprintf(sb, "    double d%d = 0.0;\n", k)
		}
		sb.WriteString("#endif\n")
	}
	sb.WriteString("    uint nw = 0u;\n")
	ld := func(t Type) string { return loadAt(t, func(i int) string { return fmt.Sprintf("i%d", i) }) }
	arm := func(branch int, scalarsOnly bool) {
		first := true
		for v, t := range types {
			if scalarsOnly && !elseArm(t) {
				continue
			}
			kw := "} else if"
			if first {
				kw, first = "if", false
			}
			fmt.Fprintf(sb, "            %s (variant == %du) {\n", kw, v)
			rt := resultType(op, t)
			ind := "                "
			switch op {
			case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveIsFirstLane:
			default:
				fmt.Fprintf(sb, "%s%s x = %s;\n", ind, t.HLSL(), ld(t))
			}
			fmt.Fprintf(sb, "%s%s r = %s;\n", ind, rt.HLSL(), splat(rt, zero(rt.Scalar)))
			emitCall(sb, ind, op, branch, record)
			storeResult(sb, ind, rt, toVars)
			fmt.Fprintf(sb, "%snw = %du;\n", ind, rt.N*wordsPer(mustScalar(rt)))
		}
		sb.WriteString("            }\n")
		if dbl {
			fmt.Fprintf(sb, "#ifdef %s\n", glslang.Macro)
			for k := 0; k < nout/2; k++ {
				fmt.Fprintf(sb, "            if (nw > %du) {\n                %s = d%d;\n            }\n", 2*k, outDouble(k), k)
			}
			sb.WriteString("#else\n")
		}
		for k := 0; k < nout; k++ {
			fmt.Fprintf(sb, "            if (nw > %du) {\n                %s = o%d;\n            }\n", k, outWord(k), k)
		}
		if dbl {
			sb.WriteString("#endif\n")
		}
	}
	sb.WriteString("    if (outer) {\n        if (inner) {\n")
	arm(1, false)
	for _, t := range types {
		if elseArm(t) {
			sb.WriteString("        } else {\n")
			arm(2, true)
			break
		}
	}
	sb.WriteString("        }\n    }\n")
}

// mustScalar is a (valid) type's model scalar.
func mustScalar(t Type) models.Scalar {
	s, _ := models.ParseScalar(t.Scalar)
	return s
}

// eachReplica calls visit for each of the rep replicas (modes) of every case of one
// operation's kernel, in kernel order, with the case's model type (checked to
// be one the operation's model supports) and its pattern id (-1 if unknown).
func eachReplica(cases []Case, rep int, visit func(ci int, c Case, mt models.Type, pid, mode int) error) error {
	if len(cases) == 0 {
		return nil
	}
	op := cases[0].Op
	for ci, c := range cases {
		mt, err := c.Type.Model()
		if err != nil {
			return err
		}
		if err := models.Supports(op, mt); err != nil {
			return err
		}
		for m := 0; m < rep; m++ {
			if err := visit(ci, c, mt, patternID(c.Pattern), m); err != nil {
				return err
			}
		}
	}
	return nil
}
