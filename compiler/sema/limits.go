package sema

import (
	"fmt"
	"math"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/reflect"
)

// maxGroupShared is the most groupshared memory one entry point may use: 32 KB
// (Shader Model 6.0; DXC rejects more, and Vulkan guarantees only 16 KB of
// maxComputeSharedMemorySize, so larger kernels would not run everywhere anyway).
const maxGroupShared = 32768

// groupSharedLimits checks, per entry point, the total size of the groupshared
// variables its reachable code uses, counted as the reflection's
// groupSharedBytes (reflect.GroupSharedSize). The error is at the variable, in
// declaration order, that takes the total over the limit.
func (c *checker) groupSharedLimits() {
	reported := map[*ir.Global]bool{}
	for _, ep := range c.mod.EntryPoints {
		used := map[*ir.Global]bool{}
		for _, g := range reflect.UsedGlobals(ep) {
			used[g] = g.Space == ir.SpaceWorkgroup
		}
		total := 0
		for _, g := range c.mod.Globals {
			if !used[g] {
				continue
			}
			size := reflect.GroupSharedSize(g.Type)
			if total > math.MaxInt-size {
				total = math.MaxInt
			} else {
				total += size
			}
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
