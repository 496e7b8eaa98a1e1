package kernels

import (
	"sync"
	"testing"
)

var (
	tierOnce  sync.Once
	tierItems []TierItem
)

// matrixItems is every case of the static matrix in every stage.
func matrixItems(t *testing.T) []TierItem {
	t.Helper()
	tierOnce.Do(func() {
		for _, k := range allStages() {
			for _, c := range k.Cases {
				tierItems = append(tierItems, TierItem{Case: c, Stage: StageOf(k)})
			}
		}
	})
	if len(tierItems) == 0 {
		t.Fatal("empty matrix")
	}
	return tierItems
}

func allStages() []Kernel {
	ks := Matrix(Filter{})
	ks = append(ks, GraphicsMatrix(Pixel, Filter{})...)
	return append(ks, GraphicsMatrix(Vertex, Filter{})...)
}

func TestTierCoversEveryCellAtEverySize(t *testing.T) {
	items := matrixItems(t)
	cells := map[string]bool{}
	groups := map[string]bool{}
	for _, it := range items {
		cells[it.cell()] = true
		groups[it.group()] = true
	}
	for _, size := range []uint32{4, 8, 16, 32, 64} {
		picked := Tier(items, size, 10, nil)
		got := map[string]bool{}
		gs := map[string]bool{}
		for _, it := range picked {
			got[it.cell()] = true
			gs[it.group()] = true
		}
		for c := range cells {
			if !got[c] {
				t.Errorf("size %d: cell %q not covered", size, c)
			}
		}
		// Whole groups: a kept group keeps every case of it.
		n := 0
		for _, it := range items {
			if gs[it.group()] {
				n++
			}
		}
		if n != len(picked) {
			t.Errorf("size %d: %d items picked, %d items in the picked groups", size, len(picked), n)
		}
		if len(gs) >= len(groups) || len(gs) < len(cells) {
			t.Errorf("size %d: %d of %d groups kept (%d cells)", size, len(gs), len(groups), len(cells))
		}
		t.Logf("size %d: %d of %d cases, %d of %d groups, %d cells", size, len(picked), len(items), len(gs), len(groups), len(cells))
	}
}

func TestTierFractionOneKeepsAll(t *testing.T) {
	items := matrixItems(t)
	if got := Tier(items, 8, 1, nil); len(got) != len(items) {
		t.Fatalf("fraction 1 kept %d of %d", len(got), len(items))
	}
}

func TestTierKeepsWhatMustRunAndIsDeterministic(t *testing.T) {
	items := matrixItems(t)
	// A case the plain tier drops becomes a must (a known crash).
	base := Tier(items, 8, 50, nil)
	in := map[string]bool{}
	for _, it := range base {
		in[string(it.Stage)+it.Case.ID()] = true
	}
	var victim TierItem
	found := false
	for _, it := range items {
		if !in[string(it.Stage)+it.Case.ID()] {
			victim, found = it, true
			break
		}
	}
	if !found {
		t.Fatal("fraction 50 dropped nothing")
	}
	must := func(it TierItem) bool { return it.Stage == victim.Stage && it.Case.ID() == victim.Case.ID() }
	got := Tier(items, 8, 50, must)
	has := false
	for _, it := range got {
		has = has || must(it)
	}
	if !has {
		t.Fatalf("must-run case %s dropped", victim.Case.ID())
	}
	if len(got) <= len(base) {
		t.Fatalf("the must-run case's group was not added: %d vs %d", len(got), len(base))
	}
	again := Tier(items, 8, 50, nil)
	if len(again) != len(base) {
		t.Fatal("not deterministic")
	}
	for i := range base {
		if base[i].Case.ID() != again[i].Case.ID() || base[i].Stage != again[i].Stage {
			t.Fatal("not deterministic")
		}
	}
}
