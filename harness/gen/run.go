package gen

import (
	"encoding/binary"
	"errors"
	"fmt"

	"waverig/compiler"
	"waverig/harness/vulkan"
)

// Device runs generated programs on one Vulkan device.
type Device struct {
	runner *vulkan.Runner
	// Validate runs the linked validator (spirv-val's library) on every
	// module first.
	Validate bool
	size     uint32 // a required subgroup size (0: the default)
	// Maximal asks every module for maximal reconvergence
	// (RequestMaximalReconvergence); set by OpenDevice where the device has it.
	Maximal bool
	// Tamper, if set, changes each log after readback (a planted bug for
	// tests: PlantInclusivePrefix).
	Tamper func(p *Program, words []uint32)
}

// Contract is the contract the device's results are checked under: Exact
// where it runs the programs with maximal reconvergence, else Subset.
func (d *Device) Contract() Mode {
	if d.Maximal {
		return Exact
	}
	return Subset
}

// SetWaveSize makes programs run at size (a legal subgroup size of the
// device: with size control, a required size; else its one size).
func (d *Device) SetWaveSize(size uint32) error {
	dev := d.runner.Device()
	for _, s := range dev.LegalSubgroupSizes() {
		if s == size {
			if size != dev.SubgroupSize {
				d.size = size
			}
			return nil
		}
	}
	return fmt.Errorf("%s cannot run at wave size %d (legal: %v)", dev.Name, size, dev.LegalSubgroupSizes())
}

// OpenDevice opens Vulkan device index.
func OpenDevice(index int) (*Device, error) {
	r, err := vulkan.NewRunner(index)
	if err != nil {
		return nil, err
	}
	// Generated programs build one pipeline each: keep few.
	r.SetMaxPipelines(16)
	return NewDevice(r), nil
}

// NewDevice runs programs on a runner the caller opened (the rig's own, so a
// run does not open a second Vulkan instance). Close closes the runner: a
// borrower of a runner does not call it.
func NewDevice(r *vulkan.Runner) *Device {
	dev := r.Device()
	// vkx enables maximal reconvergence wherever the device has it (quad
	// control only with it, as VK_KHR_shader_quad_control requires).
	return &Device{runner: r, Validate: true, Maximal: dev.ShaderMaximalReconvergence}
}

// Close releases the device.
func (d *Device) Close() { d.runner.Close() }

// Ops are the wave operations the program runs (each once, in no set order):
// what a device must support to run it.
func (p *Program) Ops() []Op {
	seen := map[Op]bool{}
	var ops []Op
	for _, w := range p.siteOps() {
		if !seen[w.Op] {
			seen[w.Op] = true
			ops = append(ops, w.Op)
		}
	}
	return ops
}

// LaneOf is what invocation flat logged about itself: its wave key, lane
// index and input word (ok false when the log is too short to hold it).
func LaneOf(words []uint32, flat int) (key, lane, input uint32, ok bool) {
	if flat < 0 || len(words) < (flat+1)*RecWords {
		return 0, 0, 0, false
	}
	r := words[flat*RecWords:]
	return r[wKey], r[wLane], r[wInput], true
}

// Name is the device's name.
func (d *Device) Name() string { return d.runner.Device().Name }

// WaveSize is the subgroup size programs run at.
func (d *Device) WaveSize() uint32 {
	if d.size != 0 {
		return d.size
	}
	return d.runner.Device().SubgroupSize
}

// CompileError is a generated program waverig's compiler (or spirv-val)
// rejected: a compiler bug, since the generator emits only valid HLSL.
type CompileError struct{ Msg string }

func (e *CompileError) Error() string { return e.Msg }

// Compile compiles a program to SPIR-V words with waverig's compiler.
func Compile(src string) ([]uint32, error) {
	res, err := compiler.Compile("fuzz.hlsl", []byte(src), compiler.Options{Entry: "main", Stage: "compute"})
	if err != nil {
		return nil, &CompileError{Msg: "waverig compile failed:\n" + res.Render()}
	}
	spv := res.Find("main", compiler.SPIRV)
	ep := res.Entry("main")
	if spv == nil || ep == nil || len(ep.Bindings) != 1 || ep.Bindings[0].Set != 0 || ep.Bindings[0].Binding != 0 {
		return nil, &CompileError{Msg: "the module's entry point or its one buffer (set 0, binding 0) is missing"}
	}
	words := make([]uint32, len(spv)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(spv[4*i:])
	}
	return words, nil
}

// Run compiles p, dispatches it and returns the log buffer.
func (d *Device) Run(p *Program) ([]uint32, error) {
	words, err := Compile(p.HLSL())
	if err != nil {
		return nil, err
	}
	return d.RunModule(p, words)
}

// RunModule dispatches a module of p (its compiled SPIR-V, or a mutant of it:
// harness/mutate's control-flow mutants) and returns the log buffer.
func (d *Device) RunModule(p *Program, words []uint32) ([]uint32, error) {
	var err error
	if d.Maximal {
		if words, err = RequestMaximalReconvergence(words); err != nil {
			return nil, &CompileError{Msg: err.Error()}
		}
	}
	if d.Validate {
		if err := vulkan.Validate(words); err != nil {
			var ve *vulkan.ValidationError
			if errors.As(err, &ve) {
				return nil, &CompileError{Msg: err.Error()}
			}
			return nil, err
		}
	}
	data := make([]byte, p.Lanes()*RecWords*4)
	for i := range data {
		data[i] = 0xff // a record the kernel never wrote cannot pass as lane 0
	}
	for f, v := range p.Input {
		binary.LittleEndian.PutUint32(data[(f*RecWords+wInput)*4:], v)
	}
	job := vulkan.Job{SPIRV: words, Entry: "main", Groups: [3]uint32{uint32(p.Groups), 1, 1},
		Buffers:              []vulkan.Buffer{{Set: 0, Binding: 0, Kind: vulkan.Storage, Data: data}},
		RequiredSubgroupSize: d.size}
	res, err := d.runner.Run(job)
	if err != nil {
		return nil, err
	}
	out, err := vulkan.WordsFromBytes(res.Buffers[0])
	if err != nil {
		return nil, fmt.Errorf("reading the log back: %w", err)
	}
	if d.Tamper != nil {
		d.Tamper(p, out)
	}
	return out, nil
}
