// Package simdevice is a simulated device behind pass.Device, for testing the
// engine without a GPU. It answers every compute and draw job with the
// records kernels.Simulate gives a correct device at the job's wave size. It
// also plays the faults a test plants by kernel name: a crash (the process
// dies, as a driver abort does), a hang (the dispatch never returns), a flake
// (the first dispatch of a kernel comes back with its results corrupted), a
// failure on every dispatch. The engine's tests (package harness) run whole
// passes on it, in this process and in child processes: resume after a crash,
// the watchdog, retries, and records that are never lost.
package simdevice

import (
	"fmt"
	"os"
	"regexp"
	"sync"
	"syscall"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/pass"
)

// Faults are the planted faults, each a regular expression over kernel
// names ("" plants none).
type Faults struct {
	// Crash kills the process with SIGABRT when a matching kernel is
	// dispatched, as lavapipe does when LLVM aborts. Only set it in a child
	// process: in the test's own process it ends the test binary.
	Crash string `json:"crash,omitempty"`
	// Hang blocks a matching kernel's dispatch for ever, for the parent's
	// watchdog (Config.KernelTimeout) to find.
	Hang string `json:"hang,omitempty"`
	// Flaky corrupts the first dispatch of a matching kernel in this process;
	// later dispatches are correct.
	Flaky string `json:"flaky,omitempty"`
	// Fail corrupts every dispatch of a matching kernel.
	Fail string `json:"fail,omitempty"`
}

// Device is one simulated API of a simulated physical device.
type Device struct {
	info                     devices.Device
	crash, hang, flaky, fail *regexp.Regexp

	mu        sync.Mutex
	runs      map[string]int  // dispatches so far, by kernel
	pipelines map[string]bool // kernels built, by kernel and stage
}

// Info is a physical device with every subgroup operation (the partitioned
// ones included), 16- and 64-bit types and subgroups in compute and fragment
// shaders, at wave size size without size control (one size, as lavapipe),
// named name.
func Info(name string, size uint32) devices.Device {
	return devices.Device{
		Name: name, DriverName: "simdevice", DriverInfo: "waverig simulated device",
		SubgroupSize:                size,
		SupportedStages:             devices.StageCompute | devices.StageFragment,
		SupportedOperations:         0x1ff, // basic … quad (0xff) and partitioned (0x100)
		QuadOperationsInAllStages:   true,
		ShaderSubgroupExtendedTypes: true, ShaderFloat16: true, ShaderInt64: true, ShaderFloat64: true,
	}
}

// New is a simulated device of info with the faults planted.
func New(info devices.Device, f Faults) (*Device, error) {
	d := &Device{info: info, runs: map[string]int{}, pipelines: map[string]bool{}}
	for _, p := range []struct {
		re  **regexp.Regexp
		src string
	}{{&d.crash, f.Crash}, {&d.hang, f.Hang}, {&d.flaky, f.Flaky}, {&d.fail, f.Fail}} {
		if p.src == "" {
			continue
		}
		re, err := regexp.Compile(p.src)
		if err != nil {
			return nil, fmt.Errorf("simdevice: %v", err)
		}
		*p.re = re
	}
	return d, nil
}

// Rig is a pass's rig on a simulated device of info: one simulated Device,
// with the faults planted, for each API the configuration names (Vulkan when
// it names none). The pass compiles for each API as it would for a real one
// (SPIR-V, WGSL in each dialect); the simulation answers from the kernel.
func Rig(info devices.Device, cfg pass.Config, f Faults) (*pass.Rig, error) {
	apis := cfg.APIs
	if len(apis) == 0 {
		apis = []string{pass.Vulkan}
	}
	devs := map[string]pass.Device{}
	for _, api := range apis {
		d, err := New(info, f)
		if err != nil {
			return nil, err
		}
		devs[api] = d
	}
	return pass.NewOn(info, cfg, devs)
}

// Compute simulates one compute dispatch at the job's wave size.
func (d *Device) Compute(j pass.ComputeJob) (map[string][]byte, error) {
	size := j.Size
	if size == 0 {
		size = d.info.SubgroupSize
	}
	return d.run(j.Kernel, size)
}

// Draw simulates one draw at the device's own wave size.
func (d *Device) Draw(j pass.DrawJob) (map[string][]byte, error) {
	return d.run(j.Kernel, d.info.SubgroupSize)
}

// Mesh refuses: the simulated device reports no VK_EXT_mesh_shader, so a
// pass never gets here (its task and mesh cases are skips naming it).
func (d *Device) Mesh(pass.MeshJob) (map[string][]byte, error) {
	return nil, pass.SkipError("the simulated device has no mesh shaders")
}

func (d *Device) run(k kernels.Kernel, size uint32) (map[string][]byte, error) {
	name := k.Name
	d.mu.Lock()
	d.runs[name]++
	first := d.runs[name] == 1
	d.pipelines[name] = true
	d.mu.Unlock()
	switch {
	case d.crash != nil && d.crash.MatchString(name):
		os.Stderr.WriteString("simdevice: planted crash in " + name + "\n")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		select {} // the signal is on its way
	case d.hang != nil && d.hang.MatchString(name):
		select {} // the parent's watchdog kills this process
	}
	out, err := kernels.Simulate(k, kernels.SimLayout{WaveSize: size})
	if err != nil {
		return nil, err
	}
	if (d.fail != nil && d.fail.MatchString(name)) || (first && d.flaky != nil && d.flaky.MatchString(name)) {
		corrupt(out["u0"])
	}
	return out, nil
}

// corrupt changes every invocation's first result word (out0 of its 24-word
// record) far beyond any rounding a model allows.
func corrupt(u0 []byte) {
	const recordBytes, out0 = 24 * 4, 16 * 4
	for i := 0; i+recordBytes <= len(u0); i += recordBytes {
		u0[i+out0] ^= 0x5a
		u0[i+out0+3] ^= 0x21
	}
}

// Prebuild builds nothing ahead: a simulated pipeline costs nothing.
func (d *Device) Prebuild([]pass.ComputeJob, []pass.DrawJob, int) int { return 0 }

// Pipelines is the number of distinct kernels dispatched so far.
func (d *Device) Pipelines() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.pipelines)
}

// Close does nothing.
func (d *Device) Close() {}
