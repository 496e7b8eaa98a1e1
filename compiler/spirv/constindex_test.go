package spirv

import (
	"testing"

	"waverig/compiler/ir"
)

// TestConstIndex checks constant deduplication on both sides of the switch from
// the linear search to the index (issue 7): every constant, scalar or
// composite, is declared once however many times it is asked for.
func TestConstIndex(t *testing.T) {
	b := &builder{}
	b.types, b.consts = b.typesBuf[:0], b.constsBuf[:0]
	const n = 500
	ids := map[uint32]bool{}
	first := make([]uint32, n)
	for i := range first {
		first[i] = b.constant(ir.U32, uint64(i))
		if ids[first[i]] {
			t.Fatalf("constant %d reuses id %d", i, first[i])
		}
		ids[first[i]] = true
	}
	vec := b.typeID(ir.Vector{Elem: ir.U32, N: 2})
	comp := make([]uint32, n)
	for i := range comp {
		comp[i] = b.compositeConst(vec, []uint32{first[i], first[(i+1)%n]})
	}
	if b.constIndex == nil {
		t.Fatal("the index was never built")
	}
	for i := range first {
		if got := b.constant(ir.U32, uint64(i)); got != first[i] {
			t.Fatalf("constant %d: id %d, first %d", i, got, first[i])
		}
		if got := b.compositeConst(vec, []uint32{first[i], first[(i+1)%n]}); got != comp[i] {
			t.Fatalf("composite %d: id %d, first %d", i, got, comp[i])
		}
		if !b.isConst(first[i]) || !b.isConst(comp[i]) {
			t.Fatalf("isConst(%d/%d) = false", first[i], comp[i])
		}
	}
	if b.isConst(vec) {
		t.Fatal("a type id is not a constant")
	}
	if len(b.consts) != 2*n {
		t.Fatalf("%d constants declared, want %d", len(b.consts), 2*n)
	}
	// Same value, other type or opcode: distinct constants.
	if b.constant(ir.I32, 1) == first[1] || b.constant(ir.BoolT, 1) == b.constant(ir.BoolT, 0) {
		t.Fatal("constants of different types or values share an id")
	}
}

// TestConstIndexCollision forces two composites into one index slot: the
// second is still found by the search.
func TestConstIndexCollision(t *testing.T) {
	b := &builder{}
	b.types, b.consts = b.typesBuf[:0], b.constsBuf[:0]
	for i := 0; i < 2*len(b.constsBuf); i++ {
		b.constant(ir.U32, uint64(i))
	}
	vec := b.typeID(ir.Vector{Elem: ir.U32, N: 2})
	a := b.compositeConst(vec, []uint32{1, 2})
	// A composite whose key collides with a's: insert it by hand under a's key.
	b.addConst(constEntry{op: opConstantComposite, typ: vec, parts: []uint32{3, 4}, id: 9999})
	k := (&constEntry{op: opConstantComposite, typ: vec, parts: []uint32{3, 4}}).key()
	delete(b.constIndex, k)
	b.constIndex[k] = b.findConst(&constEntry{op: opConstantComposite, typ: vec, parts: []uint32{1, 2}})
	if got := b.compositeConst(vec, []uint32{3, 4}); got != 9999 {
		t.Fatalf("colliding composite: id %d, want 9999", got)
	}
	if got := b.compositeConst(vec, []uint32{1, 2}); got != a {
		t.Fatalf("composite: id %d, want %d", got, a)
	}
}
