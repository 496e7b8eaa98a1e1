package pass

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/browser"
	"waverig/harness/dawn"
	"waverig/harness/kernels"
	"waverig/harness/produce"
	"waverig/harness/results"
	"waverig/harness/vulkan"
	"waverig/harness/webgpu"
)

// The APIs a run can drive. Vulkan takes SPIR-V (waverig's and glslang's);
// WebGPU takes waverig's WGSL in naga's dialect through wgpu-native, and Dawn
// (WebGPU through Dawn: records say API webgpu, impl dawn) in the standard
// dialect through Tint. Both WebGPU implementations run on an adapter of the
// same physical device, so the three can be compared lane by lane.
const (
	Vulkan = results.Vulkan
	WebGPU = results.WebGPU
	Dawn   = results.Dawn
)

// APIs lists every API in run order.
var APIs = []string{Vulkan, WebGPU, Dawn}

// Browser is headless Chromium's WebGPU (harness/browser): `waverig exec
// -api browser` runs a case file's WGSL there. It is not one of a run's APIs:
// the browser picks its own adapter, not the run's device.
const Browser = "browser"

// isWebGPU reports whether api is WebGPU through either implementation: it
// runs WGSL, cannot ask for a wave size and has WebGPU's limits.
func isWebGPU(api string) bool { return api == WebGPU || api == Dawn }

// ParseAPIs reads a comma-separated API list ("vulkan,webgpu").
func ParseAPIs(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.ToLower(strings.TrimSpace(a))
		switch a {
		case Vulkan, WebGPU, Dawn:
			for _, b := range out {
				if b == a {
					return nil, fmt.Errorf("API %q named twice", a)
				}
			}
			out = append(out, a)
		default:
			return nil, fmt.Errorf("unknown API %q (use vulkan, webgpu (wgpu-native), dawn (WebGPU through Dawn))", a)
		}
	}
	return out, nil
}

// Stages lists every shader stage the matrix covers, in run order.
var Stages = []string{results.Compute, results.Pixel, results.Vertex, results.Task, results.Mesh}

// ParseStages reads a comma-separated stage list ("compute,pixel").
func ParseStages(s string) ([]string, error) {
	var out []string
	for _, st := range strings.Split(s, ",") {
		st = strings.ToLower(strings.TrimSpace(st))
		ok := false
		for _, known := range Stages {
			ok = ok || st == known
		}
		if !ok {
			return nil, fmt.Errorf("unknown stage %q (use compute, pixel, vertex, task, mesh)", st)
		}
		for _, b := range out {
			if b == st {
				return nil, fmt.Errorf("stage %q named twice", st)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// wantsStage reports whether a run covers a stage (every stage when none is named).
func (c Config) wantsStage(stage string) bool {
	if len(c.Stages) == 0 {
		return true
	}
	for _, s := range c.Stages {
		if s == stage {
			return true
		}
	}
	return false
}

// target is one way a kernel runs: an API and a compiler.
type target struct{ api, comp string }

func (t target) String() string { return t.api + "/" + t.comp }

// targets are the (API, compiler) pairs of a run, in order: Vulkan with every
// configured compiler (a command compiler by its NAME), then WebGPU with
// waverig's and every command compiler's WGSL (glslang emits none).
func (r *Rig) targets() []target { return r.cfg.targets() }

// targets are a configuration's (API, compiler) pairs (Rig.targets); no
// compilers named is the default ones, as New makes them.
func (cfg Config) targets() []target {
	comps := cfg.Compilers
	if len(comps) == 0 {
		comps = produce.DefaultCompilers()
	}
	var out []target
	for _, api := range cfg.apis() {
		switch api {
		case Vulkan:
			for _, c := range comps {
				out = append(out, target{Vulkan, produce.CompilerName(c)})
			}
		case WebGPU, Dawn:
			// glslang emits no WGSL; a command compiler is asked for it
			// (--target wgsl) and may say it cannot (exit 3: a skip).
			for _, c := range comps {
				if n := produce.CompilerName(c); n == Ours || c != n {
					out = append(out, target{api, n})
				}
			}
		}
	}
	return out
}

// NotApplicable says why an API can never run a kernel by its own design —
// not a device's missing feature, a driver's bug or a compiler's gap, which
// stay skips with their reasons — or "" when it can. The rig does not run
// such a (kernel, API) pair (Rig.Run, and precompile through missingFeature),
// PlanCases does not list it, the suites make no spec of it, and the run's
// summary counts it in one line (PlanRun), so `waverig list`, the progress
// total, shards and merge agree. Each rule is a skip the rig used to record
// on every device: TestNotApplicableIsWhatWGSLRefuses holds the rules to what
// waverig's WGSL back end and the rig's WebGPU checks say of every kernel.
// The reasons are short: the summary prints them side by side.
func NotApplicable(api string, k kernels.Kernel) string {
	if !isWebGPU(api) || len(k.Cases) == 0 {
		return ""
	}
	c := k.Cases[0] // one kernel is one pipeline: its cases share these
	_, sized := kernels.WaveSizeOf(c)
	switch {
	case len(k.Extensions) > 0:
		// PartitionedNV's WaveMatch/WaveMultiPrefix*, SPV_KHR_quad_control's votes.
		return "WebGPU cannot ask for the SPIR-V extension " + strings.Join(k.Extensions, ", ")
	case sized:
		return "WebGPU cannot require a wave size ([WaveSize], W0601)"
	case kernels.IncludesHelperLanes(c):
		return "WebGPU cannot make helper lanes take part in wave operations ([WaveOpsIncludeHelperLanes], W0602)"
	case k.Stage == kernels.Task || k.Stage == kernels.Mesh:
		return webgpuNoMesh
	case k.Stage == kernels.Vertex && api == Dawn:
		// The standard dialect's rule (WGSL); wgpu-native runs them with
		// native-feature-subgroup-vertex, a device feature (stageMissing).
		return "WebGPU has wave operations only in compute and fragment shaders (E0602)"
	case k.Needs.Float64 || k.Needs.Int64:
		return "WGSL has no 64-bit types (E0601)"
	case k.Stage == kernels.Pixel && strings.Contains(k.HLSL, "IsHelperLane("):
		return "WGSL has no helper-invocation builtin for IsHelperLane (E0612)"
	}
	return ""
}

// apis is the configured API list (Vulkan when none is named).
func (c Config) apis() []string {
	if len(c.APIs) == 0 {
		return []string{Vulkan}
	}
	return c.APIs
}

// openWebGPU opens the WebGPU adapter of the rig's Vulkan device. Failing to
// find one is not an error of the run: every WebGPU case becomes a skip with the
// reason.
func (r *Rig) openWebGPU() {
	d, err := webgpu.OpenMatching(wgpuMatch(r.dev))
	if err != nil {
		r.skips[WebGPU] = "no WebGPU adapter for " + r.dev.Name + ": " + err.Error()
		return
	}
	r.gpu = d
	r.devs[WebGPU] = wgpuAPI{d}
	delete(r.skips, WebGPU)
}

// openDawn starts Dawn's helper on the adapter of the rig's Vulkan device;
// as with wgpu, failing to find one makes every Dawn case a skip with the
// reason. The helper's stderr (Dawn's warnings) goes to this process's: a
// child's is the run's children.log.
//
// It opens the helper straight away: listing Dawn's adapters first (what
// DawnAvailable does, a Node start of its own) would cost every pass, every
// child, a second start. Only a pass that finds no adapter of its driver
// asks DawnAvailable, for the reason.
func (r *Rig) openDawn() {
	if why := dawn.Available(); why != "" {
		r.skips[Dawn] = why
		return
	}
	d, err := dawn.Open(r.dev.Name, &dawnLog{w: os.Stderr})
	if err == nil && (!dawnAdapterOf(d.Adapter, r.dev) || !d.Adapter.Has("subgroups")) {
		d.Close()
		why := DawnAvailable(r.dev)
		if why == "" {
			why = fmt.Sprintf("Dawn's adapter %q is not this device's driver (%s), or lacks subgroups", d.Adapter.Description, DriverString(r.dev))
		}
		r.skips[Dawn] = why
		return
	}
	if err != nil {
		r.skips[Dawn] = "no Dawn adapter for " + r.dev.Name + ": " + err.Error()
		return
	}
	r.dawn = d
	r.devs[Dawn] = dawnAPI{d}
	delete(r.skips, Dawn)
}

// openBrowser starts headless Chromium with a WebGPU page (exec only).
func (r *Rig) openBrowser() {
	b, err := browser.Open()
	if err != nil {
		r.skips[Browser] = err.Error()
		return
	}
	r.browser = b
	r.devs[Browser] = browserAPI{b}
	delete(r.skips, Browser)
}

// BrowserAdapter names the adapter the browser chose ("" without one).
func (r *Rig) BrowserAdapter() string {
	if r.browser == nil {
		return ""
	}
	a := r.browser.Adapter
	return fmt.Sprintf("%s %s, wave size %d..%d", a.Vendor, a.Architecture, a.SubgroupMinSize, a.SubgroupMaxSize)
}

// dawnLog forwards the Dawn helper's stderr to this process's, line by
// line, less the lines every start prints (Mesa's device-select layer and
// Dawn's warnings about drivers it refuses and limits it lowers). Whole lines
// are judged: a write may hold several, and a crash's last words must not go
// with a warning that came in the same write.
type dawnLog struct {
	w       io.Writer
	partial []byte
}

// dawnNoise are the start-up lines dawnLog drops.
var dawnNoise = []string{"XDG_RUNTIME_DIR", "artificially reduced", "shaderUniform*ArrayDynamicIndexing", "While initializing adapter", "PhysicalDeviceVk.cpp"}

func (l *dawnLog) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	var keep []byte
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i+1]
		l.partial = l.partial[i+1:]
		noise := len(bytes.TrimSpace(line)) == 0
		for _, n := range dawnNoise {
			noise = noise || bytes.Contains(line, []byte(n))
		}
		if !noise {
			keep = append(keep, line...)
		}
	}
	if len(keep) > 0 {
		if _, err := l.w.Write(keep); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes a last line that had no newline (harness/dawn calls it when
// the helper has ended).
func (l *dawnLog) Flush() {
	if len(l.partial) > 0 {
		l.Write([]byte("\n"))
	}
}

// dawnAdapterOf reports whether Dawn's adapter is the Vulkan device's
// driver: two lavapipes share a device name, so the name Dawn was asked for
// is not enough (Dawn refuses lavapipe 22.3.6 and offers 25.0.7 under the
// same name).
func dawnAdapterOf(a dawn.Adapter, d devices.Device) bool {
	if d.DriverInfo != "" {
		return strings.Contains(a.Description, d.DriverInfo)
	}
	return strings.Contains(a.Description, d.DriverName)
}

// DawnAvailable says why Dawn cannot run on the Vulkan device d ("" when
// Dawn offers an adapter of its driver with subgroups). It asks Dawn for its
// adapters once per process.
func DawnAvailable(d devices.Device) string {
	if why := dawn.Available(); why != "" {
		return why
	}
	adapters, err := dawn.Adapters()
	if err != nil {
		return "Dawn lists no adapter: " + err.Error()
	}
	for _, a := range adapters {
		if dawnAdapterOf(a, d) {
			if !slices.Contains(a.Features, "subgroups") {
				return "Dawn's adapter " + a.Description + " lacks the subgroups feature"
			}
			return ""
		}
	}
	var have []string
	for _, a := range adapters {
		have = append(have, a.Description)
	}
	return fmt.Sprintf("Dawn offers no adapter of %s (it offers: %s)", DriverString(d), strings.Join(have, "; "))
}

// layoutKernel is the layout kernel of an API: wgpu-native's is 1-D (see
// nagaMultiDim); Tint takes the 2-D one.
func layoutKernel(api string) kernels.Kernel {
	if api == WebGPU {
		return kernels.Layout1D()
	}
	return kernels.Layout()
}

// parityPairs are the API pairs parity compares, when both ran the kernel
// at the same wave size: Vulkan with each WebGPU implementation, and the two
// implementations with each other.
var parityPairs = [][2]string{{Vulkan, WebGPU}, {Vulkan, Dawn}, {WebGPU, Dawn}}

// APILabel names an API as prose does (a parity record's reason, the
// summary's lines): "Vulkan", "WebGPU (wgpu)", "WebGPU (Dawn)".
func APILabel(api string) string {
	switch api {
	case Vulkan:
		return "Vulkan"
	case WebGPU:
		return "WebGPU (wgpu)"
	case Dawn:
		return "WebGPU (Dawn)"
	}
	return api
}

// parity compares waverig's outputs of one kernel on every pair of APIs that
// ran it (same device, same wave size; compute and pixel kernels, see
// kernels.Compare) and returns one Differs record per case and pair that
// differs. Cases that agree produce no record: their case records say
// enough. memo is the one the kernel's checks used: the comparison takes the
// models' values from it.
func (r *Rig) parity(k kernels.Kernel, memo *kernels.Memo, outs map[string]map[string][]byte, layouts map[string]results.Record, st *results.Stats) []results.Record {
	if stageOf(k) == results.Vertex {
		// Not yet: on SwiftShader's padded last batch (a repeated vertex) the
		// comparison reports lanes whose values print the same on both APIs
		// (14 float sum and product cases of vtx63): it does not follow the
		// repeats as the vertex checker does.
		return nil
	}
	var out []results.Record
	for _, pair := range parityPairs {
		out = append(out, r.parityPair(k, memo, pair[0], pair[1], outs, layouts, st)...)
	}
	return out
}

func (r *Rig) parityPair(k kernels.Kernel, memo *kernels.Memo, apiA, apiB string, outs map[string]map[string][]byte, layouts map[string]results.Record, st *results.Stats) []results.Record {
	a, b := outs[apiA], outs[apiB]
	if a == nil || b == nil || layouts[apiA].WaveSize != layouts[apiB].WaveSize {
		return nil
	}
	ps, err := memo.Compare(apiA, a, apiB, b)
	t := target{apiA + "+" + apiB, Ours}
	size := layouts[apiA].WaveSize
	if err != nil {
		rec := r.record(size, t, k)
		rec.Case, rec.Op, rec.Status, rec.Reason = k.Name, k.Cases[0].OpName(), results.Differs, "outputs not comparable: "+err.Error()
		return []results.Record{rec}
	}
	var out []results.Record
	for _, p := range ps {
		st.ParityCases++
		st.ParityLanes += p.Compared + p.Differing
		if p.Differing == 0 {
			continue
		}
		rec := r.caseRecord(k, p.Case, t, size)
		rec.Status = results.Differs
		rec.Reason = fmt.Sprintf("%d of %d compared lanes differ between %s and %s", p.Differing, p.Compared+p.Differing, APILabel(apiA), APILabel(apiB))
		rec.Parity = p.Lanes
		out = append(out, rec)
	}
	return out
}

// wgpuMatch is what webgpu.FindMatching matches a Vulkan device by.
func wgpuMatch(d devices.Device) webgpu.VulkanDevice {
	return webgpu.VulkanDevice{Name: d.Name, DriverInfo: d.DriverInfo, VendorID: d.VendorID, DeviceID: d.DeviceID}
}

// WebGPUAvailable says why WebGPU cannot run on the Vulkan device d ("" when
// wgpu-native offers an adapter of it with subgroup support).
func WebGPUAvailable(d devices.Device) string {
	if _, err := webgpu.FindMatching(wgpuMatch(d)); err != nil {
		return err.Error()
	}
	return ""
}

// vulkanBuffer binds a copy of data (the runner writes into its buffers) at
// a binding the reflection reported (exec's Vulkan path; a pass's jobs go
// through device.go).
func vulkanBuffer(bd reflect.Binding, data []byte) vulkan.Buffer {
	return vulkan.Buffer{Set: uint32(bd.Set), Binding: uint32(bd.Binding), Kind: bufferKind(bd.Descriptor), Data: append([]byte(nil), data...)}
}
