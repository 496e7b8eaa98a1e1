package sema

import (
	"fmt"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// hlslTypes are declarations of one variable per scalar kind and shape the table
// can ask for; the tests call intrinsics on them.
var kindVars = []struct {
	kind  intrinsics.Kinds
	shape intrinsics.Shapes
	name  string
	decl  string
}{
	{intrinsics.KBool, intrinsics.SScalar, "vb", "bool vb = (id.x & 1) != 0;"},
	{intrinsics.KBool, intrinsics.SVector, "vb3", "bool3 vb3 = bool3(vb, true, false);"},
	{intrinsics.KInt, intrinsics.SScalar, "vi", "int vi = (int)id.x - 2;"},
	{intrinsics.KInt, intrinsics.SVector, "vi2", "int2 vi2 = int2(vi, 3);"},
	{intrinsics.KUint, intrinsics.SScalar, "vu", "uint vu = id.x;"},
	{intrinsics.KUint, intrinsics.SVector, "vu4", "uint4 vu4 = uint4(vu, 1, 2, 3);"},
	{intrinsics.KFloat, intrinsics.SScalar, "vf", "float vf = (float)id.x * 0.5;"},
	{intrinsics.KFloat, intrinsics.SVector, "vf3", "float3 vf3 = float3(vf, 1, 2);"},
	{intrinsics.KFloat, intrinsics.SMatrix, "vm", "float2x2 vm = float2x2(vf, 1, 2, 3);"},
}

func varFor(k intrinsics.Kinds, s intrinsics.Shapes) string {
	for _, v := range kindVars {
		if v.kind&k != 0 && v.shape&s != 0 {
			return v.name
		}
	}
	return ""
}

func tableKernel(call string) string {
	var decls []string
	for _, v := range kindVars {
		decls = append(decls, v.decl)
	}
	return "RWStructuredBuffer<uint> Out : register(u0);\ngroupshared uint gs;\n" +
		"[shader(\"compute\")] [numthreads(4, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n" +
		strings.Join(decls, "\n") + "\n" + call + "\n}\n"
}

// argsFor builds a valid argument list for a table row (the first kind and shape
// each parameter accepts; SameAs parameters repeat their group's argument).
func argsFor(in *intrinsics.Info) []string {
	var args []string
	for i, p := range in.Params {
		switch {
		case p.Place && p.Out:
			args = append(args, "Out[1]")
		case p.Place:
			args = append(args, "gs")
		case p.SameAs >= 0:
			args = append(args, args[p.SameAs])
		case p.Scalar32:
			args = append(args, "vu")
		case in.Class == intrinsics.ClassAtomic:
			args = append(args, "vu")
		case in.Op == intrinsics.Asint || in.Op == intrinsics.Asuint:
			args = append(args, "vf") // a real reinterpretation, not the identity
		case in.Op == intrinsics.Asfloat:
			args = append(args, "vu")
		case in.Op == intrinsics.AsuintDouble:
			args = append(args, "(double)vf")
		default:
			shape := p.Shapes
			if in.Op == intrinsics.Mul {
				// vector * matrix: the Mul intrinsic (scalars would give a Binary).
				shape = []intrinsics.Shapes{intrinsics.SVector, intrinsics.SMatrix}[i]
			}
			args = append(args, varFor(p.Kinds, shape))
		}
	}
	return args
}

// TestEveryTableRowChecks calls every free-function intrinsic of the wave, quad,
// math, barrier and atomic classes with arguments built from its Params, and
// checks the IR has the intrinsic (asuint/asint/asfloat and the double bit
// casts become Bitcast). Then, for wave and quad rows, every scalar kind the row does not accept must be rejected
// with E0312.
func TestEveryTableRowChecks(t *testing.T) {
	for i := range intrinsics.Table {
		in := &intrinsics.Table[i]
		switch in.Class {
		case intrinsics.ClassWave, intrinsics.ClassQuad, intrinsics.ClassMath, intrinsics.ClassBarrier, intrinsics.ClassAtomic:
		default:
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			call := fmt.Sprintf("%s(%s);", in.Name, strings.Join(argsFor(in), ", "))
			if in.Result != intrinsics.RVoid {
				call = "Out[0] = (uint)" + call
				if in.Op == intrinsics.Mul {
					call = fmt.Sprintf("Out[0] = (uint)(%s(%s))[0].x;", in.Name, strings.Join(argsFor(in), ", "))
				} else if in.Result == intrinsics.RUint4 || in.Op == intrinsics.Cross {
					call = fmt.Sprintf("Out[0] = (uint)(%s(%s)).x;", in.Name, strings.Join(argsFor(in), ", "))
				}
				if strings.HasPrefix(in.Name, "WaveMultiPrefix") || shapeWanted(in) == intrinsics.SVector {
					call = fmt.Sprintf("Out[0] = (uint)(%s(%s)).x;", in.Name, strings.Join(argsFor(in), ", "))
				}
			}
			opts := Options{PartitionedNV: true}
			m, log := compile(t, in.Name+".hlsl", tableKernel(call), opts)
			if m == nil {
				t.Fatalf("%s: errors:\n%s", call, errorsOf(log))
			}
			for _, v := range invariants(m) {
				t.Errorf("invariant: %s", v)
			}
			found := false
			for _, f := range m.Functions {
				ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
					switch x := e.(type) {
					case *ir.Intrinsic:
						found = found || x.Op == in.Op
					case *ir.Bitcast:
						found = found || in.Op == intrinsics.Asuint || in.Op == intrinsics.Asint || in.Op == intrinsics.Asfloat ||
							in.SemaOnly && ir.Equal(x.T, ir.F64) != ir.Equal(x.X.Type(), ir.F64) // asdouble, asuint(double, …)
					}
				})
			}
			if !found {
				t.Errorf("%s: no %s in the IR:\n%s", call, in.Name, ir.Dump(m))
			}
			if in.Class != intrinsics.ClassWave && in.Class != intrinsics.ClassQuad || len(in.Params) == 0 {
				return
			}
			// Reject every scalar kind the first parameter does not accept.
			p := in.Params[0]
			for _, kv := range kindVars {
				if kv.kind&p.Kinds != 0 || kv.shape&p.Shapes == 0 {
					continue
				}
				args := argsFor(in)
				args[0] = kv.name
				bad := fmt.Sprintf("%s(%s);", in.Name, strings.Join(args, ", "))
				_, log := compile(t, in.Name+"_bad.hlsl", tableKernel(bad), opts)
				if !hasCode(log, diag.ErrIntrinsicKind) {
					t.Errorf("%s: want E0312, got:\n%s", bad, errorsOf(log))
				}
			}
		})
	}
}

func shapeWanted(in *intrinsics.Info) intrinsics.Shapes {
	if len(in.Params) == 0 || in.Result != intrinsics.RSameAsArg0 && in.Result != intrinsics.RBoolShape0 &&
		in.Result != intrinsics.RUintShape0 && in.Result != intrinsics.RIntShape0 && in.Result != intrinsics.RSintShape0 && in.Result != intrinsics.RFloatShape0 {
		return intrinsics.SScalar
	}
	if in.Params[0].Shapes&intrinsics.SScalar != 0 {
		return intrinsics.SScalar
	}
	return intrinsics.SVector
}

func hasCode(log *diag.Log, code diag.Code) bool {
	for _, m := range log.Msgs {
		if m.Code == code {
			return true
		}
	}
	return false
}

// TestWaveTypes: the SM 6.0 arithmetic wave ops accept every numeric type DXC does
// (16/32/64-bit floats, 32/64-bit ints) and keep the type.
func TestWaveTypes(t *testing.T) {
	for _, ty := range []string{"int", "uint", "float", "half", "double", "int64_t", "uint64_t", "float2", "half3", "double4", "int64_t2", "uint3"} {
		for _, op := range []string{"WaveActiveSum", "WaveActiveProduct", "WaveActiveMin", "WaveActiveMax", "WavePrefixSum", "WavePrefixProduct", "WaveReadLaneFirst", "QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal"} {
			src := fmt.Sprintf("RWStructuredBuffer<%s> Out : register(u0);\n[shader(\"compute\")] [numthreads(4,1,1)]\nvoid main(uint3 id : SV_DispatchThreadID) { %s v = (%s)id.x; Out[id.x] = %s(v) + WaveReadLaneAt(v, 1) + QuadReadLaneAt(v, 2); }\n", ty, ty, ty, op)
			m, log := compile(t, ty+op, src, Options{})
			if m == nil {
				t.Errorf("%s(%s): %s", op, ty, errorsOf(log))
				continue
			}
			for _, v := range invariants(m) {
				t.Errorf("%s(%s): %s", op, ty, v)
			}
		}
	}
}
