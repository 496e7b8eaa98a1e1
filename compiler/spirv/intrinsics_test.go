package spirv

import (
	"errors"
	"fmt"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// kindTypes are the representative scalar types per table Kinds bit. Wave and
// quad rows also get the wide and narrow types DXC accepts for them.
func kindTypes(k intrinsics.Kinds, wave bool) []ir.Scalar {
	var out []ir.Scalar
	if k&intrinsics.KBool != 0 {
		out = append(out, ir.BoolT)
	}
	if k&intrinsics.KInt != 0 {
		out = append(out, ir.I32)
		if wave {
			out = append(out, ir.I64)
		}
	}
	if k&intrinsics.KUint != 0 {
		out = append(out, ir.U32)
		if wave {
			out = append(out, ir.U64)
		}
	}
	if k&intrinsics.KFloat != 0 {
		out = append(out, ir.F32)
		if wave {
			out = append(out, ir.F16, ir.F64)
		}
	}
	return out
}

func shapes(s intrinsics.Shapes, sc ir.Scalar, cross bool) []ir.Type {
	var out []ir.Type
	if s&intrinsics.SScalar != 0 {
		out = append(out, sc)
	}
	if s&intrinsics.SVector != 0 {
		out = append(out, ir.Vector{Elem: sc, N: 3})
		if !cross {
			out = append(out, ir.Vector{Elem: sc, N: 4})
		}
	}
	return out
}

type intrinsicCase struct {
	name string
	in   *intrinsics.Info
	b    *Builder
	opts Options
}

// tableCases builds one single-intrinsic module per table row and representative
// argument type, so the test grows with the table.
func tableCases() []intrinsicCase {
	var cases []intrinsicCase
	for i := range intrinsics.Table {
		in := &intrinsics.Table[i]
		if in.SemaOnly {
			continue // lowered by sema to Construct/Bitcast: TestDoubleBits
		}
		switch in.Class {
		case intrinsics.ClassTexture, intrinsics.ClassMisc:
			continue // resource methods: TestResources
		case intrinsics.ClassMesh:
			continue // amplification/mesh pipeline control, stage-bound: TestMeshShaders
		case intrinsics.ClassAtomic:
			cases = append(cases, atomicCases(in)...)
			continue
		}
		if in.Op == intrinsics.Mul {
			continue // TestMatrices
		}
		wave := in.Class == intrinsics.ClassWave || in.Class == intrinsics.ClassQuad
		opts := Options{PartitionedNV: in.SM == "6.5"}
		if len(in.Params) == 0 {
			b := singleOp(in, nil, nil)
			cases = append(cases, intrinsicCase{in.Name, in, b, opts})
			continue
		}
		for _, sc := range kindTypes(in.Params[0].Kinds, wave) {
			for _, at := range shapes(in.Params[0].Shapes, sc, in.Op == intrinsics.Cross) {
				for _, laneT := range []ir.Scalar{ir.U32, ir.I32} {
					b := singleOp(in, at, &laneT)
					cases = append(cases, intrinsicCase{fmt.Sprintf("%s/%v/lane=%v", in.Name, at, laneT), in, b, opts})
					if !hasLane(in) {
						break
					}
				}
			}
		}
	}
	return cases
}

func hasLane(in *intrinsics.Info) bool {
	for _, p := range in.Params {
		if p.Scalar32 {
			return true
		}
	}
	return false
}

// singleOp builds a module whose entry point applies one intrinsic to values
// loaded from locals and stores the result into a local.
func singleOp(in *intrinsics.Info, at ir.Type, laneT *ir.Scalar) *Builder {
	b := Compute("main", 64)
	if in.PixelOnly || in.FalseOutsidePixel {
		b = Entry("main", ir.Pixel)
	}
	addOp(b, in, at, laneT)
	return b
}

// addOp appends one application of the intrinsic to b's entry point.
func addOp(b *Builder, in *intrinsics.Info, at ir.Type, laneT *ir.Scalar) {
	var args []ir.Expr
	for i, p := range in.Params {
		var t ir.Type
		switch {
		case p.SameAs >= 0:
			t = at
		case i == 0:
			t = at
		case p.Scalar32:
			t = *laneT
			if in.Class == intrinsics.ClassQuad {
				// A quad lane must be a constant before SPIR-V 1.5.
				args = append(args, ir.ConstUint(*laneT, 1))
				continue
			}
		default:
			sc := kindTypes(p.Kinds, false)[0]
			t = sc
			if p.Shapes&intrinsics.SScalar == 0 {
				t = ir.Vector{Elem: sc, N: 4}
			}
		}
		l := b.Local(fmt.Sprintf("a%d", i), t)
		args = append(args, Load(LRef(l)))
	}
	rt := ir.IntrinsicResult(in.Result, at)
	call := Intr(in.Op, rt, args...)
	if _, void := rt.(ir.Void); void {
		b.Add(&ir.ExprStmt{X: call})
	} else {
		r := b.Local("r", rt)
		b.Add(&ir.Store{Place: LRef(r), Value: call})
	}
}

// atomicCases: each atomic on a RWStructuredBuffer element and on groupshared,
// for int and uint.
func atomicCases(in *intrinsics.Info) []intrinsicCase {
	var cases []intrinsicCase
	for _, sc := range []ir.Scalar{ir.U32, ir.I32} {
		for _, shared := range []bool{false, true} {
			b := Compute("main", 64)
			var dest ir.Expr
			if shared {
				g := b.Global(&ir.Global{Name: "gs", Type: &ir.Array{Elem: sc, Len: 64}, Space: ir.SpaceWorkgroup, Atomic: true})
				dest = Elem(g, Uint(3))
			} else {
				g := b.RWBuffer("buf", sc, 0, 0)
				g.Atomic = true
				dest = Elem(g, Uint(3))
			}
			args := []ir.Expr{dest}
			for _, p := range in.Params[1:] {
				if p.Out {
					continue
				}
				args = append(args, ir.ConstInt(sc, 5))
			}
			r := b.Local("orig", sc)
			b.Add(&ir.Store{Place: LRef(r), Value: Intr(in.Op, sc, args...)})
			cases = append(cases, intrinsicCase{fmt.Sprintf("%s/%v/shared=%v", in.Name, sc, shared), in, b, Options{}})
		}
	}
	return cases
}

func TestEveryTableRow(t *testing.T) {
	cases := tableCases()
	valid, rejected := 0, 0
	// Cases of one row that emit are merged into one module per row, validated
	// on every target (one spirv-val run per row and target keeps the test fast).
	var merged []*intrinsicCase
	for i := range cases {
		c := &cases[i]
		Valid(t, c.b.M)
		mod, err := EmitEntry(c.b.M, c.b.EP, Options{Vulkan: "1.1", PartitionedNV: c.opts.PartitionedNV})
		if err != nil {
			// Only a kind the table gives no opcode for may be rejected, and
			// only with a coded message.
			var de *diag.Errors
			if !errors.As(err, &de) || de.Msgs[0].Code != diag.ErrSpvNoLowering {
				t.Errorf("%s: unexpected error: %v", c.name, err)
			} else if k := argScalar(c.b).Kind; c.in.SPIRV.Op[k] != 0 || c.in.SPIRV.Ext[k] != 0 {
				t.Errorf("%s: rejected although the table has a lowering for %v: %v", c.name, argScalar(c.b), err)
			}
			rejected++
			continue
		}
		valid++
		if (c.in.Class == intrinsics.ClassWave || c.in.Class == intrinsics.ClassQuad) && mod.SubgroupBits != c.in.VkBit {
			t.Errorf("%s: SubgroupBits %#x, table VkBit %#x (caps %v)", c.name, mod.SubgroupBits, c.in.VkBit, mod.Capabilities)
		}
		if n := len(merged); n > 0 && merged[n-1].in == c.in {
			last := merged[n-1].b
			last.F.Locals = append(last.F.Locals, renumber(c.b.F.Locals, len(last.F.Locals))...)
			last.M.Globals = append(last.M.Globals, c.b.M.Globals...)
			last.Add(c.b.F.Body...)
			continue
		}
		merged = append(merged, c)
	}
	for _, c := range merged {
		t.Run(c.in.Name, func(t *testing.T) {
			mods := emitValid(t, c.b, c.opts)
			if c.in.Class == intrinsics.ClassWave || c.in.Class == intrinsics.ClassQuad {
				for vk, mod := range mods {
					if mod.SubgroupBits != c.in.VkBit {
						t.Errorf("vulkan %s: SubgroupBits %#x, table VkBit %#x", vk, mod.SubgroupBits, c.in.VkBit)
					}
				}
			}
		})
	}
	t.Logf("%d intrinsic cases of %d rows: %d emitted and validated on 3 targets, %d rejected with %s",
		len(cases), len(merged), valid, rejected, diag.ErrSpvNoLowering)
}

// renumber gives merged locals fresh IDs (IDs are unique within a function).
func renumber(ls []*ir.Local, base int) []*ir.Local {
	for i, l := range ls {
		l.ID = base + i
	}
	return ls
}

// TestSubgroupBitsAreCapabilityBits checks the reflection invariant on every
// module the table test builds: SubgroupBits is the OR over declared capabilities.
func TestSubgroupBitsAreCapabilityBits(t *testing.T) {
	for _, c := range tableCases() {
		mod, err := EmitEntry(c.b.M, c.b.EP, Options{PartitionedNV: c.opts.PartitionedNV})
		if err != nil {
			continue
		}
		var bits uint32
		for _, cp := range mod.Capabilities {
			bits |= intrinsics.CapabilityVkBit(cp)
		}
		if bits != mod.SubgroupBits {
			t.Errorf("%s: SubgroupBits %#x, capabilities give %#x", c.name, mod.SubgroupBits, bits)
		}
		// The declared capabilities are exactly those in the binary.
		declared := declaredCaps(mod.Words)
		if fmt.Sprint(declared) != fmt.Sprint(mod.Capabilities) {
			t.Errorf("%s: binary declares %v, Module.Capabilities %v", c.name, declared, mod.Capabilities)
		}
	}
}

func declaredCaps(w []uint32) []uint16 {
	var caps []uint16
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), uint16(w[i])
		if n == 0 {
			break
		}
		if op == opCapability {
			caps = append(caps, uint16(w[i+1]))
		}
		i += n
	}
	return caps
}

// argScalar is the scalar type of the first local of a single-op module (its first argument).
func argScalar(b *Builder) ir.Scalar {
	if len(b.F.Locals) == 0 {
		return ir.U32
	}
	sc, _ := ir.ScalarOf(b.F.Locals[0].Type)
	return sc
}
