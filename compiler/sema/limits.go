package sema

import (
	"fmt"
	"math"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// maxGroupShared is the most groupshared memory one entry point may use: 32 KB
// (Shader Model 6.0; DXC rejects more, and Vulkan guarantees only 16 KB of
// maxComputeSharedMemorySize, so larger kernels would not run everywhere anyway).
const maxGroupShared = 32768

// groupSharedLimits checks, per entry point, the total size of the groupshared
// variables its reachable code uses. The error is at the variable (in
// declaration order) that takes the total over the limit.
func (c *checker) groupSharedLimits() {
	reported := map[*ir.Global]bool{}
	for _, ep := range c.mod.EntryPoints {
		used := map[*ir.Global]bool{}
		for _, f := range ir.Reachable(ep.Func) {
			ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
				if r, ok := e.(*ir.GlobalRef); ok && r.G.Space == ir.SpaceWorkgroup {
					used[r.G] = true
				}
			})
		}
		if len(used) == 0 {
			continue
		}
		total := 0
		for _, g := range c.mod.Globals {
			if !used[g] {
				continue
			}
			size := groupSharedSize(g.Type)
			total = satAdd(total, size)
			if total <= maxGroupShared {
				continue
			}
			if !reported[g] {
				reported[g] = true
				c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrGroupSharedLimit, Pos: g.Pos,
					Text: fmt.Sprintf("groupshared %s takes %s, bringing entry point %s's groupshared memory to %s; at most %d bytes are allowed",
						g.Name, byteCount(size), ep.Name, byteCount(total), maxGroupShared),
					Notes: []diag.Note{{Pos: ep.Pos, Text: fmt.Sprintf("entry point %s", ep.Name)}}})
			}
			break
		}
	}
}

func byteCount(n int) string {
	if n == math.MaxInt {
		return "more bytes than can be counted"
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// groupSharedSize is the size of a groupshared variable as DXC counts it for
// the limit: scalars at their width (bool as 4 bytes, half as 2), vectors and
// matrices tightly packed (float3 is 12 bytes), arrays of elements back to
// back, and struct members at their scalar alignment with the struct rounded
// up to its largest one. Sizes saturate at math.MaxInt.
func groupSharedSize(t ir.Type) int {
	size, _ := groupSharedLayout(t)
	return size
}

func groupSharedLayout(t ir.Type) (size, align int) {
	switch t := t.(type) {
	case ir.Scalar:
		return scalarBytes(t), scalarBytes(t)
	case ir.Vector:
		return t.N * scalarBytes(t.Elem), scalarBytes(t.Elem)
	case ir.Matrix:
		return t.Rows * t.Cols * scalarBytes(t.Elem), scalarBytes(t.Elem)
	case *ir.Array:
		es, ea := groupSharedLayout(t.Elem)
		return satMul(es, t.Len), ea
	case *ir.Struct:
		off, maxAlign := 0, 1
		for _, f := range t.Fields {
			fs, fa := groupSharedLayout(f.Type)
			off = satAdd(roundUpSat(off, fa), fs)
			maxAlign = max(maxAlign, fa)
		}
		return roundUpSat(off, maxAlign), maxAlign
	}
	return 0, 1
}

func scalarBytes(s ir.Scalar) int {
	if s.Kind == ir.Bool {
		return 4
	}
	return s.Bits / 8
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func satMul(a, n int) int {
	if n != 0 && a > math.MaxInt/n {
		return math.MaxInt
	}
	return a * n
}

func roundUpSat(n, a int) int {
	if a <= 1 || n == math.MaxInt {
		return n
	}
	return satAdd(n, (a-n%a)%a)
}
