package args

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	a, err := Parse([]string{"-target", "spirv,wgsl", "-entry=CSMain", "-DN=4", "-D", "M", "-Iinc", "-I", "dir",
		"-fvk-t-shift", "10", "1", "-fspv-extension=SPV_NV_shader_subgroup_partitioned", "-auto-bindings", "-json", "a.hlsl", "b.hlsl"})
	if err != nil {
		t.Fatal(err)
	}
	want := &Args{Targets: []string{"spirv", "wgsl"}, Entry: "CSMain", Defines: map[string]string{"N": "4", "M": ""},
		IncludeDirs: []string{"inc", "dir"}, Shifts: map[byte]map[int]int{'t': {1: 10}},
		Extensions: []string{"SPV_NV_shader_subgroup_partitioned"}, AutoBindings: true, JSON: true, Files: []string{"a.hlsl", "b.hlsl"}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("got %+v\nwant %+v", a, want)
	}
	if !a.HasExtension("SPV_NV_shader_subgroup_partitioned") {
		t.Error("HasExtension")
	}
	for _, bad := range [][]string{{"-entry"}, {"-fvk-x-shift", "1", "0"}, {"-fvk-t-shift", "1"}, {"-fvk-t-shift", "-1", "0"}, {"-bogus"}, {"-D"}, {"-I"},
		// SHIFT and SPACE are 32-bit numbers (issue 7: a larger one wrapped around).
		{"-fvk-u-shift", "4294967296", "0"}, {"-fvk-b-shift", "0", "4294967296"}, {"-fvk-s-shift", "99999999999999999999", "0"}, {"-fvk-t-shift", "+1", "0"}, {"-fvk-t-shift", "0x10", "0"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		} else if _, ok := err.(*UsageError); !ok {
			t.Errorf("%v: %T is not a UsageError", bad, err)
		}
	}
}

// TestShiftLimits: the largest SHIFT and SPACE are accepted.
func TestShiftLimits(t *testing.T) {
	a, err := Parse([]string{"-fvk-u-shift", "4294967295", "4294967295", "x.hlsl"})
	if err != nil || a.Shifts['u'][4294967295] != 4294967295 {
		t.Fatalf("%+v, %v", a, err)
	}
}

func TestFixtureLine(t *testing.T) {
	if f, ok := FixtureLine("// waverig-args: -entry main -auto-bindings\nvoid main() {}"); !ok || len(f) != 3 {
		t.Fatalf("%v %v", f, ok)
	}
	if _, ok := FixtureLine("// plain comment\n"); ok {
		t.Fatal("not a flags line")
	}
}
