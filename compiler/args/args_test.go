package args

import (
	"reflect"
	"slices"
	"strings"
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

// TestDoubleDash: after "--" every argument is a file; before it, flags and
// files interleave.
func TestDoubleDash(t *testing.T) {
	a, err := Parse([]string{"a.hlsl", "-entry", "main", "--", "-b.hlsl", "--", "-json"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Entry != "main" || a.JSON || !reflect.DeepEqual(a.Files, []string{"a.hlsl", "-b.hlsl", "--", "-json"}) {
		t.Fatalf("%+v", a)
	}
}

// FuzzParse: no command line panics; every error is a *UsageError; shifts
// and spaces are 32-bit; and a parsed line without "--", followed by "-- FILE",
// parses to the same flags with FILE appended.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"-target\x00spirv,wgsl\x00-entry=CSMain\x00-DN=4\x00-D\x00M\x00-Iinc\x00a.hlsl",
		"-fvk-t-shift\x0010\x001\x00-fvk-u-shift\x004294967295\x004294967295\x00b.hlsl",
		"-fspv-extension=SPV_NV_shader_subgroup_partitioned\x00-auto-bindings\x00-json\x00-o\x00out",
		"a.hlsl\x00--\x00-b.hlsl", "-h", "-D", "-I", "-fvk-x-shift\x001\x002", "--entry=main\x00x.hlsl",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		list := strings.Split(line, "\x00")
		a, err := Parse(list)
		if err != nil {
			if _, ok := err.(*UsageError); !ok {
				t.Fatalf("%q: %T is not a *UsageError", list, err)
			}
			return
		}
		for class, m := range a.Shifts {
			if !strings.ContainsRune("btus", rune(class)) {
				t.Fatalf("%q: shift class %q", list, class)
			}
			for space, n := range m {
				if space < 0 || space > 1<<32-1 || n < 0 || n > 1<<32-1 {
					t.Fatalf("%q: shift %d space %d out of range", list, n, space)
				}
			}
		}
		if slices.Contains(list, "--") {
			return // the "--" appended below would be a file
		}
		b, err := Parse(append(append([]string(nil), list...), "--", "-x.hlsl"))
		if err != nil {
			t.Fatalf("%q then -- -x.hlsl: %v", list, err)
		}
		if want := append(append([]string(nil), a.Files...), "-x.hlsl"); !reflect.DeepEqual(b.Files, want) {
			t.Fatalf("%q: files %q, want %q", list, b.Files, want)
		}
		b.Files = a.Files
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: flags differ after appending -- FILE:\n%+v\n%+v", list, a, b)
		}
	})
}
