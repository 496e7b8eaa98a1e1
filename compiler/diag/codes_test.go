package diag

import "testing"

// TestRegistry builds the code registry (which panics on a duplicate code) and
// checks that every listed code can be looked up.
func TestRegistry(t *testing.T) {
	n := 0
	for _, l := range codeLists {
		for _, in := range l {
			n++
			got, ok := Lookup(in.Code)
			if !ok || got != in {
				t.Fatalf("Lookup(%s) = %v, %v", in.Code, got, ok)
			}
		}
	}
	if len(All()) != n {
		t.Fatalf("All() has %d codes, the lists %d", len(All()), n)
	}
}
