package vulkan

import (
	"errors"
	"strings"
	"testing"

	"waverig/devices"
)

// CheckDemand is pure logic over the device description; a made-up device
// with small limits covers each one, and limits reported as 0 are not checked.
func TestCheckDemand(t *testing.T) {
	dev := devices.Device{
		Name: "small", SubgroupSize: 32,
		MaxComputeWorkGroupInvocations: 256, MaxComputeWorkGroupSize: [3]uint32{256, 256, 64},
		MaxComputeWorkGroupCount: [3]uint32{65535, 65535, 65535}, MaxComputeSharedMemorySize: 16384,
		MaxStorageBufferRange: 1 << 27, MaxUniformBufferRange: 16384,
		SizeControl: devices.SizeControl{Supported: true, MinSubgroupSize: 16, MaxSubgroupSize: 32,
			MaxComputeWorkgroupSubgroups: 4, RequiredSubgroupSizeStages: devices.StageCompute},
	}
	ok := Demand{LocalSize: [3]uint32{64, 1, 1}, SharedBytes: 16384, Groups: [3]uint32{65535, 1, 1},
		Buffers: []BufferDemand{{Storage, 1 << 27}, {Uniform, 16384}}}
	with := func(f func(d *Demand)) Demand {
		d := ok
		d.Buffers = append([]BufferDemand(nil), ok.Buffers...)
		f(&d)
		return d
	}
	cases := []struct {
		name, limit string
		d           Demand
	}{
		{"within every limit", "", ok},
		{"unknown local size", "", with(func(d *Demand) { d.LocalSize = [3]uint32{} })},
		{"size z", "maxComputeWorkGroupSize", with(func(d *Demand) { d.LocalSize = [3]uint32{1, 1, 65} })},
		{"invocations", "maxComputeWorkGroupInvocations", with(func(d *Demand) { d.LocalSize = [3]uint32{16, 16, 2} })},
		{"huge local size", "maxComputeWorkGroupSize", with(func(d *Demand) { d.LocalSize = [3]uint32{1 << 31, 1 << 31, 4} })},
		{"shared", "maxComputeSharedMemorySize", with(func(d *Demand) { d.SharedBytes = 16385 })},
		{"groups", "maxComputeWorkGroupCount", with(func(d *Demand) { d.Groups = [3]uint32{1, 1, 65536} })},
		{"storage", "maxStorageBufferRange", with(func(d *Demand) { d.Buffers[0].Size++ })},
		{"uniform", "maxUniformBufferRange", with(func(d *Demand) { d.Buffers[1].Size++ })},
		{"huge buffer", "maxStorageBufferRange", with(func(d *Demand) { d.Buffers[0].Size = 1 << 62 })},
		{"subgroup 32", "", with(func(d *Demand) { d.SubgroupSize = 32 })},
		{"subgroup 64", "subgroupSize", with(func(d *Demand) { d.SubgroupSize = 64 })},
		{"subgroup 3", "subgroupSize", with(func(d *Demand) { d.SubgroupSize = 3 })},
		{"subgroups per group", "maxComputeWorkgroupSubgroups", with(func(d *Demand) { d.SubgroupSize = 16; d.LocalSize = [3]uint32{128, 1, 1} })},
	}
	for _, c := range cases {
		err := CheckDemand(dev, c.d)
		var le *LimitError
		switch {
		case c.limit == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.limit != "" && !errors.As(err, &le):
			t.Errorf("%s: err = %v, want a *LimitError", c.name, err)
		case c.limit != "" && (le.Limit != c.limit || !strings.Contains(err.Error(), "small") ||
			c.limit != "subgroupSize" && !strings.Contains(err.Error(), c.limit)):
			t.Errorf("%s: %s: %v, want %s (and the device's name)", c.name, le.Limit, err, c.limit)
		}
	}
	// A device that reports nothing (0) is not checked against.
	if err := CheckDemand(devices.Device{}, with(func(d *Demand) { d.SharedBytes = 1 << 40 })); err != nil {
		t.Errorf("zero limits: %v", err)
	}
}

// The runner reads local size and workgroup memory from the SPIR-V: only the
// variables the entry point uses count, atomics included.
func TestParseSPIRVSharedBytes(t *testing.T) {
	info, err := parseSPIRV(compileGLSL(t, "shared.comp"), "main")
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(4 + 262144*16); info.sharedBytes != want {
		t.Errorf("sharedBytes = %d, want %d", info.sharedBytes, want)
	}
	if info.localSize != [3]uint32{64, 1, 1} {
		t.Errorf("localSize = %v", info.localSize)
	}
	if d, err := ModuleDemand(compileGLSL(t, "shared.comp"), "main"); err != nil || d.SharedBytes != info.sharedBytes || d.LocalSize != info.localSize {
		t.Errorf("ModuleDemand = %+v, %v; want the parsed local size and workgroup memory", d, err)
	}
	info, err = parseSPIRV(compileGLSL(t, "subgroup.comp"), "main")
	if err != nil || info.sharedBytes != 0 {
		t.Errorf("subgroup.comp: sharedBytes %d, err %v", info.sharedBytes, err)
	}
}

// Run refuses a job over a device limit with a *LimitError before creating
// anything: no pipeline is built for it.
func TestRunRefusesOverLimits(t *testing.T) {
	r := sharedRunner(t)
	d := r.Device()
	good, _ := subgroupJob(t, 64)
	withLocal := func(x, y, z uint32) []uint32 {
		w := append([]uint32(nil), good.SPIRV...)
		for i := 5; i < len(w); i += int(w[i] >> 16) {
			if w[i]&0xffff == opExecutionMode && w[i]>>16 == 6 && w[i+2] == execModeLocalSize {
				w[i+3], w[i+4], w[i+5] = x, y, z
			}
		}
		return w
	}
	shared := Job{SPIRV: compileGLSL(t, "shared.comp"), Entry: "main", Groups: [3]uint32{1, 1, 1},
		Buffers: []Buffer{{Kind: Storage, Data: make([]byte, 4*64)}}}
	cases := []struct {
		name, limit string
		job         Job
	}{
		{"workgroup count", "maxComputeWorkGroupCount", func() Job { j := good; j.Groups = [3]uint32{1, 1, d.MaxComputeWorkGroupCount[2] + 1}; return j }()},
		{"invocations", "maxComputeWorkGroupInvocations", func() Job {
			j := good
			n := d.MaxComputeWorkGroupInvocations/d.MaxComputeWorkGroupSize[1] + 1
			j.SPIRV = withLocal(n, d.MaxComputeWorkGroupSize[1], 1)
			return j
		}()},
		{"size x", "maxComputeWorkGroupSize", func() Job { j := good; j.SPIRV = withLocal(d.MaxComputeWorkGroupSize[0]+1, 1, 1); return j }()},
		{"shared memory", "maxComputeSharedMemorySize", shared},
		{"uniform range", "maxUniformBufferRange", func() Job {
			j := good
			j.Buffers = append(append([]Buffer(nil), j.Buffers...), Buffer{Binding: 9, Kind: Uniform, Data: make([]byte, d.MaxUniformBufferRange+4)})
			return j
		}()},
		{"subgroup size", "subgroupSize", func() Job { j := good; j.RequiredSubgroupSize = 3; return j }()},
	}
	before := r.PipelinesCreated()
	for _, c := range cases {
		_, err := r.Run(c.job)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != c.limit {
			t.Errorf("%s: err = %v, want a *LimitError for %s", c.name, err, c.limit)
		}
	}
	if n := r.PipelinesCreated() - before; n != 0 {
		t.Errorf("%d pipelines built for jobs over the limits", n)
	}
}
