package msl

import "waverig/compiler/ir"

// The modules here are built by hand with irtest (the front end is not needed
// to test the back end); these are short names for the types they use most.

var (
	u32 = ir.U32
	i32 = ir.I32
	f32 = ir.F32
)

func vec(s ir.Scalar, n int) ir.Type { return ir.VecOf(s, n) }
