package vulkan

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseSPIRVDescriptors(t *testing.T) {
	cases := []struct {
		file  string
		local [3]uint32
		want  []string // "set.binding.kind.name"
	}{
		{"subgroup.comp", [3]uint32{64, 1, 1}, []string{"0.0.storage.In", "0.1.storage.Info", "0.2.storage.Res"}},
		{"params.comp", [3]uint32{16, 1, 1}, []string{"0.0.storage.Data", "1.3.uniform.params"}},
		// The unused buffer must not be demanded; the one reached through
		// a call must be.
		{"reach.comp", [3]uint32{8, 2, 1}, []string{"0.0.storage.Used", "2.5.uniform.counter"}},
	}
	for _, c := range cases {
		info, err := parseSPIRV(compileGLSL(t, c.file), "main")
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if info.localSize != c.local {
			t.Errorf("%s: local size %v, want %v", c.file, info.localSize, c.local)
		}
		var got []string
		for _, d := range info.used {
			got = append(got, fmt.Sprintf("%d.%d.%s.%s", d.set, d.binding, d.kind, d.name))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: used descriptors %v, want %v", c.file, got, c.want)
		}
		if info.version != 0x00010300 {
			t.Errorf("%s: version 0x%08x, want SPIR-V 1.3 (glslang vulkan1.1)", c.file, info.version)
		}
	}
}

func TestReachKernelRuns(t *testing.T) {
	r := sharedRunner(t)
	data := make([]uint32, 16)
	for i := range data {
		data[i] = uint32(i)
	}
	res, err := r.Run(Job{
		SPIRV: compileGLSL(t, "reach.comp"), Entry: "main", Groups: [3]uint32{1, 1, 1},
		Buffers: []Buffer{
			{Set: 0, Binding: 0, Kind: Storage, Data: bytesOf(data)},
			{Set: 2, Binding: 5, Kind: Uniform, Data: bytesOf([]uint32{100, 0, 0, 0})},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range u32s(res.Buffers[0]) {
		if v != data[i]+100 {
			t.Errorf("used[%d] = %d, want %d", i, v, data[i]+100)
		}
	}
}
