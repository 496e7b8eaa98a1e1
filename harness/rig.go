// Package harness is the rig's engine: it compiles the generated kernels (with
// waverig's compiler and, as a second opinion, glslangValidator), validates every
// module with spirv-val, runs them on a Vulkan device at a wave size, checks every
// lane against the Go reference models, and streams one result per case.
//
// Wave sizes: on devices with subgroup size control the rig asks for every legal
// size in-process; on lavapipe (one size, chosen by LP_NATIVE_VECTOR_WIDTH at
// driver load) it re-runs itself in child processes, one per width (see sizes.go).
package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/expect"
	"waverig/harness/kernels"
	"waverig/harness/vulkan"
)

// Compiler names used in results.
const (
	Ours    = "ours"
	Glslang = "glslang"
)

// Record is one case's result: the line streamed to results.jsonl.
type Record struct {
	Case     string                `json:"case"`
	Op       string                `json:"op"`
	Type     string                `json:"type"`
	Pattern  string                `json:"pattern"`
	Shape    string                `json:"shape"`
	WaveSize uint32                `json:"waveSize"`
	Compiler string                `json:"compiler"`
	Device   string                `json:"device"`
	Driver   string                `json:"driver"`
	Status   string                `json:"status"` // pass, fail, skip, error
	Reason   string                `json:"reason,omitempty"`
	Lanes    int                   `json:"lanes,omitempty"`
	Failures []kernels.LaneFailure `json:"failures,omitempty"`
	Kernel   string                `json:"kernel"`
	// Known names the expectation entry (file:line and reason) of a known driver
	// problem this case hits; "UNEXPECTED PASS …" when a known failure passed.
	Known string `json:"known,omitempty"`
	// Blame is set on a second-opinion compiler's failure when the same case passed
	// on the same device with waverig's compiler: the driver is exonerated and the
	// failure is that compiler's ("compiler:glslang").
	Blame string `json:"blame,omitempty"`
}

// CountsAgainstDriver reports whether a record is a failure that implicates the
// device (or waverig's own compiler): failures blamed on another compiler are
// findings about that compiler, reported but not held against the run.
func (r Record) CountsAgainstDriver() bool {
	return (r.Status == Fail || r.Status == Error) && r.Blame == "" && r.Known == ""
}

// LayoutCase is the case name of the lane-layout check record.
const LayoutCase = "layout"

// Status values.
const (
	Pass  = "pass"
	Fail  = "fail"
	Skip  = "skip"
	Error = "error"
)

// Config selects what a run covers.
type Config struct {
	Filter    kernels.Filter
	Compilers []string // default: ours, plus glslang when installed
	// RequireTools makes a missing spirv-val/glslangValidator an error (CI) instead of a skip.
	RequireTools bool
	// KeepSPIRV writes every module to this directory; "" = don't.
	KeepSPIRV string
	// Expectations are the known-problem files to apply (nil: the built-in ones);
	// NoExpectations runs every case as if nothing were known.
	Expectations   []*expect.Set
	NoExpectations bool
	// ReproDir receives a repro bundle per kernel with a failing case: the HLSL,
	// the SPIR-V that ran, the failing records and the command that re-runs it.
	ReproDir string
}

// Stats counts one size's results.
type Stats struct {
	Cases, Passed, Failed, Skipped, Errors int
	Pipelines                              int
	Kernels                                int
	Wall                                   time.Duration
}

// Add accumulates a record.
func (s *Stats) Add(r Record) {
	s.Cases++
	switch r.Status {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	default:
		s.Errors++
	}
}

// Rig runs kernels on one device at its current wave size.
type Rig struct {
	runner *vulkan.Runner
	dev    devices.Device
	cfg    Config
	cache  map[string]*compiled // key: compiler + kernel hash
	mu     sync.Mutex

	// resumeAfter (child processes only) skips kernel/compiler pairs up to and
	// including this "kernel/compiler" key: a predecessor crashed in it.
	resumeAfter string
	// onBegin is told each "kernel/compiler" key before it runs.
	onBegin func(key string)
	// known are the expectation entries that apply to this device.
	known []expect.Entry
}

// compiled is one kernel compiled by one compiler.
type compiled struct {
	spirv    []uint32
	entry    string
	bindings map[string]reflect.Binding // HLSL register (normalised) -> binding
	err      error
	skip     string
}

// New opens the device.
func New(deviceIndex int, cfg Config) (*Rig, error) {
	r, err := vulkan.NewRunner(deviceIndex)
	if err != nil {
		return nil, err
	}
	if len(cfg.Compilers) == 0 {
		cfg.Compilers = []string{Ours}
		if _, err := exec.LookPath("glslangValidator"); err == nil {
			cfg.Compilers = append(cfg.Compilers, Glslang)
		}
	}
	// Every module the rig hands over has already been through validateSPIRV (with
	// the skip-locally / fail-in-CI policy), so the runner's own spirv-val pass would
	// only run the same ~10 ms process a second time per module.
	r.SetValidation(vulkan.ValidateOff)
	rig := &Rig{runner: r, dev: r.Device(), cfg: cfg, cache: map[string]*compiled{}}
	if !cfg.NoExpectations {
		sets := cfg.Expectations
		if sets == nil {
			if sets, err = expect.Builtin(); err != nil {
				r.Close()
				return nil, err
			}
		}
		rig.known = expect.For(sets, DeviceString(rig.dev))
	}
	return rig, nil
}

// DeviceString is what expectation files' `driver:` patterns are matched against.
func DeviceString(d devices.Device) string {
	return d.Name + " | " + d.DriverName + " | " + d.DriverInfo
}

// Known returns the expectation entries that apply to the rig's device.
func (r *Rig) Known() []expect.Entry { return r.known }

// Device is the device the rig runs on.
func (r *Rig) Device() devices.Device { return r.dev }

// Close releases the device.
func (r *Rig) Close() { r.runner.Close() }

// Pipelines is the number of pipelines created so far.
func (r *Rig) Pipelines() int { return r.runner.PipelinesCreated() }

// WaveSize is the size the device runs compute at now (the reported subgroupSize
// on devices without size control).
func (r *Rig) WaveSize() uint32 { return r.dev.SubgroupSize }

// CheckLayout runs the layout kernel and checks the observed lane layout. The
// wave key the other kernels record (WaveReadLaneFirst of the flat id) is only
// trusted after this passes.
func (r *Rig) CheckLayout(size uint32) (kernels.LayoutReport, error) {
	k := kernels.Layout()
	out, err := r.runKernel(k, Ours, size)
	if err != nil {
		return kernels.LayoutReport{}, err
	}
	return kernels.CheckLayout(k, out), nil
}

// Run runs the matrix at one wave size (0 = the device's current size) and calls
// emit for every case result, as soon as it is known.
func (r *Rig) Run(size uint32, emit func(Record)) (Stats, error) {
	start := time.Now()
	var st Stats
	if size == 0 {
		size = r.dev.SubgroupSize
	}
	pipes0 := r.Pipelines()
	layout, err := r.CheckLayout(size)
	layoutOK := err == nil && layout.OK
	layoutWhy := ""
	if err != nil {
		layoutWhy = "layout kernel did not run: " + err.Error()
	} else if !layout.OK {
		layoutWhy = "lane layout check failed: " + layout.String()
	}
	lrec := Record{Case: LayoutCase, Op: LayoutCase, WaveSize: size, Compiler: Ours, Device: r.dev.Name,
		Driver: r.driver(), Status: Pass, Kernel: "layout", Reason: layout.String()}
	if !layoutOK {
		lrec.Status, lrec.Reason = Error, layoutWhy
	}
	emit(lrec)
	skipping := r.resumeAfter != ""
	matrix := kernels.Matrix(r.cfg.Filter)
	r.precompile(remaining(matrix, r.resumeAfter))
	for _, k := range matrix {
		st.Kernels++
		passedOurs := map[string]bool{}
		for _, comp := range r.cfg.Compilers {
			key := k.Name + "/" + comp
			if skipping {
				skipping = key != r.resumeAfter
				continue
			}
			if r.onBegin != nil {
				r.onBegin(key)
			}
			recs := r.runCases(k, comp, size, layoutOK, layoutWhy)
			for _, rec := range recs {
				if comp == Ours && rec.Status == Pass {
					passedOurs[rec.Case] = true
				}
				if comp != Ours && rec.Status == Fail && passedOurs[rec.Case] {
					rec.Blame = "compiler:" + comp
				}
				st.Add(rec)
				emit(rec)
			}
		}
	}
	st.Pipelines = r.Pipelines() - pipes0
	st.Wall = time.Since(start)
	return st, nil
}

// runCases runs one kernel with one compiler and turns the outcome into records.
func (r *Rig) runCases(k kernels.Kernel, comp string, size uint32, layoutOK bool, layoutWhy string) []Record {
	mk := func(c kernels.Case, status, reason string) Record {
		return Record{Case: c.ID(), Op: c.Op.String(), Type: c.Type.HLSL(), Pattern: string(c.Pattern), Shape: c.Shape.Name,
			WaveSize: size, Compiler: comp, Device: r.dev.Name, Driver: r.driver(), Status: status, Reason: reason, Kernel: k.Name}
	}
	all := func(status, reason string) []Record {
		recs := make([]Record, 0, len(k.Cases))
		for _, c := range k.Cases {
			recs = append(recs, mk(c, status, reason))
		}
		return recs
	}
	if why := r.missingFeature(k.Needs); why != "" {
		return all(Skip, why)
	}
	for _, c := range k.Cases {
		if e := expect.Find(r.known, expect.Crash, c.Op.String(), c.Type.HLSL(), comp, size); e != nil {
			return all(Skip, fmt.Sprintf("not run: known driver crash (%s): %s", e.Where, e.Reason))
		}
	}
	if !layoutOK {
		return all(Error, layoutWhy)
	}
	out, err := r.runKernel(k, comp, size)
	if err != nil {
		if s, ok := err.(skipError); ok {
			return all(Skip, string(s))
		}
		return all(Error, err.Error())
	}
	var recs []Record
	var failed []Record
	for _, cr := range kernels.Check(k, out, size) {
		rec := mk(cr.Case, Pass, cr.Note)
		rec.Lanes = cr.Lanes
		e := expect.Find(r.known, expect.Fail, rec.Op, rec.Type, comp, size)
		if !cr.Passed {
			rec.Status = Fail
			rec.Failures = cr.Failures
			failed = append(failed, rec)
			if e != nil {
				rec.Known = e.Where + ": " + e.Reason
			}
		} else if e != nil {
			rec.Known = "UNEXPECTED PASS of known failure " + e.Where + ": remove the entry"
		}
		recs = append(recs, rec)
	}
	if len(failed) > 0 && r.cfg.ReproDir != "" {
		r.writeRepro(k, comp, size, failed)
	}
	return recs
}

// writeRepro writes a bundle someone can take to a driver team: the kernel, the
// module that ran, the failing records and how to run it again.
func (r *Rig) writeRepro(k kernels.Kernel, comp string, size uint32, failed []Record) {
	dir := filepath.Join(r.cfg.ReproDir, fmt.Sprintf("%s.%s.wave%d", k.Name, comp, size))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	os.WriteFile(filepath.Join(dir, "kernel.hlsl"), []byte(k.HLSL), 0o644)
	if c := r.compile(k, comp); c.spirv != nil {
		os.WriteFile(filepath.Join(dir, "kernel.spv"), wordsToBytes(c.spirv), 0o644)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, f := range failed {
		enc.Encode(f)
	}
	os.WriteFile(filepath.Join(dir, "failures.jsonl"), b.Bytes(), 0o644)
	ops := map[string]bool{}
	for _, f := range failed {
		ops[f.Op] = true
	}
	var names []string
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	readme := fmt.Sprintf("Repro bundle: kernel %s compiled by %s, wave size %d, on %s (%s).\n"+
		"%d case(s) failed; per-lane records in failures.jsonl.\n\n"+
		"Re-run:   waverig run -device %q -ops '^(%s)$' -sizes %d -compilers %s\n"+
		"Inspect:  spirv-dis kernel.spv\n",
		k.Name, comp, size, r.dev.Name, r.driver(), len(failed), r.dev.Name, strings.Join(names, "|"), size, comp)
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte(readme), 0o644)
}

func (r *Rig) driver() string { return strings.TrimSpace(r.dev.DriverName + " " + r.dev.DriverInfo) }

// RunWithSPIRV runs a kernel from a given module (e.g. a planted-bug mutant of
// waverig's output) at the device's current size and checks it. bindingsFrom is
// the kernel compiled by waverig, whose reflection maps the registers.
func (r *Rig) RunWithSPIRV(k kernels.Kernel, words []uint32) ([]kernels.CaseResult, error) {
	base := r.compile(k, Ours)
	if base.err != nil {
		return nil, base.err
	}
	// A planted bug must still be a valid module: an invalid one can crash the
	// driver, and then nothing about the rig's checks would be shown.
	if why, err := validateSPIRV(words, r.cfg.RequireTools); err != nil {
		return nil, err
	} else if why != "" {
		return nil, skipError(why)
	}
	key := fmt.Sprintf("mutant/%x", sha256.Sum256(wordsToBytes(words)))
	r.mu.Lock()
	r.cache[key] = &compiled{spirv: words, entry: base.entry, bindings: base.bindings}
	r.mu.Unlock()
	defer func() { r.mu.Lock(); delete(r.cache, key); r.mu.Unlock() }()
	out, err := r.runCompiled(k, r.cache[key], r.dev.SubgroupSize)
	if err != nil {
		return nil, err
	}
	return kernels.Check(k, out, r.dev.SubgroupSize), nil
}

// CompiledSPIRV returns waverig's module for a kernel (compiled once, cached).
func (r *Rig) CompiledSPIRV(k kernels.Kernel) ([]uint32, error) {
	c := r.compile(k, Ours)
	return c.spirv, c.err
}

// missingFeature names the device feature a kernel needs and the device lacks.
func (r *Rig) missingFeature(f kernels.Features) string {
	d := r.dev
	switch {
	case f.Float16 && !d.ShaderFloat16:
		return "device lacks shaderFloat16 (VkPhysicalDeviceShaderFloat16Int8Features)"
	case f.Float16 && !d.ShaderSubgroupExtendedTypes:
		return "device lacks shaderSubgroupExtendedTypes (16-bit types in subgroup operations)"
	case f.Float64 && !d.ShaderFloat64:
		return "device lacks shaderFloat64 (VkPhysicalDeviceFeatures)"
	case f.Int64 && !d.ShaderInt64:
		return "device lacks shaderInt64 (VkPhysicalDeviceFeatures)"
	case f.Int64 && !d.ShaderSubgroupExtendedTypes:
		return "device lacks shaderSubgroupExtendedTypes (64-bit integers in subgroup operations)"
	}
	return ""
}

type skipError string

func (s skipError) Error() string { return string(s) }

// runKernel compiles (cached), dispatches and reads back one kernel; the result
// maps each HLSL register to its buffer contents.
func (r *Rig) runKernel(k kernels.Kernel, comp string, size uint32) (map[string][]byte, error) {
	c := r.compile(k, comp)
	if c.skip != "" {
		return nil, skipError(c.skip)
	}
	if c.err != nil {
		return nil, c.err
	}
	return r.runCompiled(k, c, size)
}

func (r *Rig) runCompiled(k kernels.Kernel, c *compiled, size uint32) (map[string][]byte, error) {
	job := vulkan.Job{SPIRV: c.spirv, Entry: c.entry, Groups: k.Groups}
	if size != r.dev.SubgroupSize {
		job.RequiredSubgroupSize = size
	}
	for _, b := range k.Buffers {
		bd, ok := c.bindings[reflect.NormalizeRegister(b.Register)]
		if !ok {
			// A register the compiler optimised away or never saw: nothing to bind.
			continue
		}
		kind := vulkan.Storage
		if strings.HasPrefix(bd.Descriptor, "VK_DESCRIPTOR_TYPE_UNIFORM") {
			kind = vulkan.Uniform
		}
		job.Buffers = append(job.Buffers, vulkan.Buffer{Set: uint32(bd.Set), Binding: uint32(bd.Binding), Kind: kind, Data: append([]byte(nil), b.Data...)})
	}
	res, err := r.runner.Run(job)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	i := 0
	for _, b := range k.Buffers {
		if _, ok := c.bindings[reflect.NormalizeRegister(b.Register)]; !ok {
			continue
		}
		out[b.Register] = res.Buffers[i]
		i++
	}
	return out, nil
}

func (r *Rig) compile(k kernels.Kernel, comp string) *compiled {
	h := sha256.Sum256([]byte(k.HLSL))
	key := fmt.Sprintf("%s/%x", comp, h[:8])
	r.mu.Lock()
	if c, ok := r.cache[key]; ok {
		r.mu.Unlock()
		return c
	}
	r.mu.Unlock()
	// Compile outside the lock so precompile can use every core; two racing
	// compiles of one kernel give the same module, and the first stored wins.
	var c *compiled
	switch comp {
	case Ours:
		c = compileOurs(k)
	case Glslang:
		c = compileGlslang(k)
	default:
		c = &compiled{err: fmt.Errorf("unknown compiler %q", comp)}
	}
	if c.err == nil && c.skip == "" {
		if why, err := validateSPIRV(c.spirv, r.cfg.RequireTools); err != nil {
			c.err = err
		} else if why != "" {
			c.skip = why
		}
	}
	if r.cfg.KeepSPIRV != "" && c.spirv != nil {
		os.MkdirAll(r.cfg.KeepSPIRV, 0o755)
		os.WriteFile(filepath.Join(r.cfg.KeepSPIRV, fmt.Sprintf("%s.%s.spv", k.Name, comp)), wordsToBytes(c.spirv), 0o644)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.cache[key]; ok {
		return prev
	}
	r.cache[key] = c
	return c
}

// remaining drops the kernels a crashed predecessor already ran (those up to the
// one named by resumeAfter, "kernel/compiler").
func remaining(ks []kernels.Kernel, resumeAfter string) []kernels.Kernel {
	name, _, _ := strings.Cut(resumeAfter, "/")
	if name == "" {
		return ks
	}
	for i, k := range ks {
		if k.Name == name {
			return ks[i:]
		}
	}
	return ks
}

// precompile compiles every kernel with every compiler on all cores before the
// (serial) dispatches start: glslangValidator is a process per kernel, ~90 ms each.
func (r *Rig) precompile(ks []kernels.Kernel) {
	type job struct {
		k    kernels.Kernel
		comp string
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r.compile(j.k, j.comp)
			}
		}()
	}
	for _, k := range ks {
		if r.missingFeature(k.Needs) != "" {
			continue
		}
		for _, comp := range r.cfg.Compilers {
			jobs <- job{k, comp}
		}
	}
	close(jobs)
	wg.Wait()
}

// compileOurs compiles with waverig's compiler in automatic binding mode and maps
// registers through the reflection.
func compileOurs(k kernels.Kernel) *compiled {
	res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{AutoBindings: true, Entry: k.Entry, Stage: "compute", Vulkan: "1.2"})
	return fromResult(res, err, k.Entry)
}

// fromResult turns a compile result into the rig's form: the module and the
// register -> binding map read from the reflection.
func fromResult(res *compiler.Result, err error, entry string) *compiled {
	if err != nil {
		return &compiled{err: fmt.Errorf("waverig compile failed:\n%s", res.Render())}
	}
	ep := res.Entry(entry)
	if ep == nil {
		return &compiled{err: fmt.Errorf("entry point %s missing from the reflection", entry)}
	}
	c := &compiled{entry: entry, spirv: bytesToWords(res.Find(entry, compiler.SPIRV)), bindings: map[string]reflect.Binding{}}
	for _, b := range ep.Bindings {
		c.bindings[reflect.NormalizeRegister(b.Register)] = b
	}
	return c
}

// registerRE is compiled on first use (not at start-up, which every compile
// process pays).
var registerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([btus])(\d+)(?:,space(\d+))?$`) })

func compileGlslang(k kernels.Kernel) *compiled {
	var regs []string
	for _, b := range k.Buffers {
		regs = append(regs, b.Register)
	}
	return compileGlslangText(k.HLSL, k.Entry, regs)
}

// compileGlslangText compiles HLSL with glslangValidator. glslang maps
// register(xN, spaceM) to binding N, set M for every class, so kernels meant for it
// use distinct register numbers across classes; bindings are derived the same way.
func compileGlslangText(text, entry string, registers []string) *compiled {
	bin, err := exec.LookPath("glslangValidator")
	if err != nil {
		return &compiled{skip: "glslangValidator not installed (apt-get install glslang-tools)"}
	}
	data, why, err := glslangSPIRV(bin, text, entry)
	if err != nil {
		return &compiled{err: err}
	}
	if why != "" {
		return &compiled{skip: why}
	}
	c := &compiled{entry: entry, spirv: bytesToWords(data), bindings: map[string]reflect.Binding{}}
	for _, r := range registers {
		m := registerRE().FindStringSubmatch(reflect.NormalizeRegister(r))
		if m == nil {
			return &compiled{err: fmt.Errorf("cannot map register %q for glslang", r)}
		}
		var n, s int
		fmt.Sscan(m[2], &n)
		if m[3] != "" {
			fmt.Sscan(m[3], &s)
		}
		if n >= 16 {
			return &compiled{err: fmt.Errorf("register %q: the glslang binding map gives each class 16 bindings", r)}
		}
		n += glslangClassBase[m[1]]
		desc := "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"
		if m[1] == "b" {
			desc = "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER"
		}
		c.bindings[reflect.NormalizeRegister(r)] = reflect.Binding{Register: r, Set: s, Binding: n, Descriptor: desc}
	}
	return c
}

// glslang maps register(xN) to binding N whatever the class, so t0 and u0 would
// collide; these shifts give each class its own range (t: 0-15, u: 16-31,
// b: 32-47, s: 48-63), and glslangBinding applies the same rule.
var glslangShiftArgs = []string{"--hlsl-iomap", "--shift-texture-binding", "0", "--shift-uav-binding", "16",
	"--shift-cbuffer-binding", "32", "--shift-sampler-binding", "48"}

var glslangClassBase = map[string]int{"t": 0, "u": 16, "b": 32, "s": 48}

var glslangVersion = sync.OnceValue(func() string {
	out, _ := exec.Command("glslangValidator", "--version").Output()
	return string(out)
})

// glslangSPIRV runs glslangValidator, with an on-disk cache keyed by the source,
// the entry point and glslang's version: every wave size runs in its own child
// process, and without the cache each would pay ~90 ms per kernel again.
func glslangSPIRV(bin, text, entry string) (spv []byte, skip string, err error) {
	sum := sha256.Sum256([]byte(glslangVersion() + "\x00" + strings.Join(glslangShiftArgs, " ") + "\x00" + entry + "\x00" + text))
	cacheDir := ""
	if d, err := os.UserCacheDir(); err == nil {
		cacheDir = filepath.Join(d, "waverig", "glslang")
	}
	cached := filepath.Join(cacheDir, fmt.Sprintf("%x.spv", sum[:12]))
	rejected := filepath.Join(cacheDir, fmt.Sprintf("%x.rejected", sum[:12]))
	if cacheDir != "" {
		if data, err := os.ReadFile(cached); err == nil && len(data) >= 20 {
			return data, "", nil
		}
		if why, err := os.ReadFile(rejected); err == nil {
			return nil, string(why), nil
		}
	}
	dir, err := os.MkdirTemp("", "waverig-glslang")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "kernel.hlsl")
	out := filepath.Join(dir, "kernel.spv")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		return nil, "", err
	}
	// vulkan1.1: glslang 12 emits BufferBlock at SPIR-V 1.5, which spirv-val rejects.
	args := append([]string{"-V", "-D", "--target-env", "vulkan1.1", "-S", "comp", "-e", entry}, glslangShiftArgs...)
	cmd := exec.Command(bin, append(args, "-o", out, src)...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		// The second opinion is unavailable for this kernel (glslang's HLSL front end
		// lacks e.g. int64_t): that says nothing about the driver, so skip, with why.
		why := "glslangValidator rejects this kernel: " + glslangError(buf.String())
		if cacheDir != "" && os.MkdirAll(cacheDir, 0o755) == nil {
			os.WriteFile(rejected, []byte(why), 0o644)
		}
		return nil, why, nil
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	if cacheDir != "" && os.MkdirAll(cacheDir, 0o755) == nil {
		tmp := cached + ".tmp"
		if os.WriteFile(tmp, data, 0o644) == nil {
			os.Rename(tmp, cached) // atomic: concurrent children never read half a file
		}
	}
	return data, "", nil
}

// glslangError picks the first ERROR line of glslang's output.
func glslangError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ERROR: ") {
			if i := strings.Index(l, ".hlsl:"); i >= 0 {
				return "line " + strings.TrimSpace(l[i+len(".hlsl:"):])
			}
			return strings.TrimPrefix(l, "ERROR: ")
		}
	}
	return strings.TrimSpace(out)
}

// validateSPIRV runs spirv-val on a module before it reaches the driver. A missing
// spirv-val is a skip reason locally and an error when tools are required (CI).
func validateSPIRV(words []uint32, require bool) (skip string, err error) {
	bin, lerr := exec.LookPath("spirv-val")
	if lerr != nil {
		if require {
			return "", fmt.Errorf("spirv-val is required but not installed (apt-get install spirv-tools)")
		}
		return "spirv-val not installed (apt-get install spirv-tools)", nil
	}
	f, err := os.CreateTemp("", "waverig-*.spv")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	f.Write(wordsToBytes(words))
	f.Close()
	out, err := exec.Command(bin, "--target-env", "vulkan1.2", f.Name()).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("spirv-val rejects the module: %s", strings.TrimSpace(string(out)))
	}
	return "", nil
}

func bytesToWords(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

func wordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}

// SortRecords orders records by case, compiler and wave size (for stable reports).
func SortRecords(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Case != b.Case {
			return a.Case < b.Case
		}
		if a.Compiler != b.Compiler {
			return a.Compiler < b.Compiler
		}
		return a.WaveSize < b.WaveSize
	})
}
