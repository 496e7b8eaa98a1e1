package suites

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"waverig/compiler/intrinsics"
	"waverig/devices"
	"waverig/harness"
	"waverig/harness/dawn"
	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// sizes are the wave sizes the suite covers on a device: those of its run
// plan (plan.Make), so the suites and `waverig run` cover the same ones —
// lavapipe's three (4, 8, 16: a machine that cannot run one skips its specs
// with the reason), or the legal sizes of the device (4 on SwiftShader, 32 on
// the H200, 32 and 64 on a device with size control over both).
func (d suiteDevice) sizes() []uint32 {
	var out []uint32
	for _, sp := range d.Plan.Sizes {
		out = append(out, sp.Size)
	}
	return out
}

// target is one way a case runs: an API and a compiler. WebGPU (wgpu-native
// and Dawn) runs waverig's WGSL only (glslang emits no WGSL).
type target struct{ api, comp string }

var targets = []target{{pass.Vulkan, pass.Ours}, {pass.Vulkan, pass.Glslang}, {pass.WebGPU, pass.Ours}, {pass.Dawn, pass.Ours}}

// containerLabels are the labels every wave spec inherits from its containers.
var containerLabels = []string{}

// familyKernels are a family's kernels in every stage: compute, pixel, vertex.
// Every device's tier starts from them, so they are built once per family.
func familyKernels(ops []string) []kernels.Kernel {
	key := strings.Join(ops, "|")
	familyMu.Lock()
	defer familyMu.Unlock()
	if ks, ok := familyCache[key]; ok {
		return ks
	}
	ks := everyStage(filterFor(ops))
	familyCache[key] = ks
	return ks
}

// everyStage is the matrix's kernels in every stage: compute, pixel, vertex,
// task, mesh.
func everyStage(f kernels.Filter) []kernels.Kernel {
	ks := kernels.Matrix(f)
	ks = append(ks, kernels.GraphicsMatrix(kernels.Pixel, f)...)
	ks = append(ks, kernels.GraphicsMatrix(kernels.Vertex, f)...)
	ks = append(ks, kernels.MeshMatrix(kernels.Task, f)...)
	return append(ks, kernels.MeshMatrix(kernels.Mesh, f)...)
}

var (
	familyMu    sync.Mutex
	familyCache = map[string][]kernels.Kernel{}
)

// tierKernels are familyKernels narrowed to the CI tier of a device at one wave size
// (kernels.TierKernels: every operation × type family × stage at least once, a
// 1/fraction share of the rest, every case the built-in baseline expects to
// crash): WAVERIG_FRACTION=N picks it, scripts/test.sh sets it for pre-merge
// runs and `scripts/test.sh --full` (fraction 1, the default here) runs all.
// Specs exist only for the tier's cases: the rest is not work this run does.
// The spec tree and its container's BeforeAll (selected) both ask for a
// family's tier at a size; building the matrix is the expensive part, so it
// is built once per (family, size).
func tierKernels(d suiteDevice, ops []string, size uint32) []kernels.Kernel {
	key := fmt.Sprintf("%d:%s@%d", d.Index, strings.Join(ops, "|"), size)
	tierMu.Lock()
	defer tierMu.Unlock()
	if ks, ok := tierCache[key]; ok {
		return ks
	}
	ks := kernels.TierKernels(familyKernels(ops), size, suiteFraction, knownCrash(d, size))
	tierCache[key] = ks
	return ks
}

var (
	tierMu    sync.Mutex
	tierCache = map[string][]kernels.Kernel{}
)

// suiteFraction is WAVERIG_FRACTION (1 when unset: the whole matrix).
var suiteFraction = fractionFromEnv()

func fractionFromEnv() int {
	v := os.Getenv("WAVERIG_FRACTION")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		panic(fmt.Sprintf("WAVERIG_FRACTION=%q: want a whole number ≥ 1", v))
	}
	return n
}

// knownCrash is the run's own rule (pass.Config.KnownCrash) for a device
// and the suite's targets: pre-merge must still see each known crash (a fixed
// crash is an UnexpectedImprovement).
func knownCrash(d suiteDevice, size uint32) func(kernels.TierItem) bool {
	cfg := pass.Config{APIs: pass.APIs, Compilers: []string{pass.Ours, pass.Glslang}}
	return cfg.KnownCrash(d.Device, size)
}

// meshSkipOf is why a task or mesh case cannot run on a device with a
// target, where that holds for the whole stage ("" otherwise): the device
// lacks VK_EXT_mesh_shader, its features, the stage bit or quad operations in
// the stage (the rig's own check, pass.DeviceMeshMissing), or the compiler is
// glslang, whose HLSL front end has no DispatchMesh (the rig finds that with a
// probe compile; the suite knows it of glslang 12).
func meshSkipOf(d suiteDevice, k kernels.Kernel, t target) string {
	if k.MeshDraw == nil {
		return ""
	}
	if why := pass.DeviceMeshMissing(d.Device, k); why != "" {
		return why
	}
	if t.comp == pass.Glslang {
		return "glslang 12's HLSL front end has no DispatchMesh"
	}
	return ""
}

// Why a whole group of a device's cases can only skip, known before the run:
// such cases get one spec per (stage, API, compiler, reason) instead of one
// each. On the CPU drivers they are about half of the CI tier's cases (the
// partitioned operations on a device without the bit, vertex waves where the
// device has none, Dawn where it offers no adapter, a baseline's skipped
// stage), and a spec each cost more than their run: ginkgo's per-spec
// bookkeeping and a JSON report near a gigabyte.
const (
	skipAPI      = "api"      // the API has no adapter of this device (requireAPI)
	skipDevice   = "device"   // the device lacks a stage, operation bit or feature
	skipBaseline = "baseline" // a baseline's skips.txt line names the case
)

// staticSkip is why a case cannot run on a device with a target at a size,
// where the device, the suite's adapters or a baseline decide it before the
// run ("" otherwise), and the class of that reason.
func staticSkip(d suiteDevice, k kernels.Kernel, c kernels.Case, t target, size uint32, baselineSkip func(api, stage, caseID, comp string) string) (string, string) {
	if t.api == pass.Dawn && d.Dawn != "" {
		return d.Dawn, skipAPI
	}
	if t.api == pass.WebGPU && d.WebGPU != "" {
		return d.WebGPU, skipAPI
	}
	if why := meshSkipOf(d, k, t); why != "" {
		return why, skipDevice
	}
	if k.Draw != nil {
		if why := pass.DeviceStageMissing(d.Device, k); why != "" {
			return why, skipDevice
		}
	}
	if why := pass.DeviceMissing(d.Device, k); why != "" {
		return why, skipDevice
	}
	if why := baselineSkip(t.api, stageOf(k), c.ID(), t.comp); why != "" {
		return why, skipBaseline
	}
	return "", ""
}

// stageOf names a kernel's stage as records and labels do.
func stageOf(k kernels.Kernel) string {
	if k.Stage == "" {
		return results.Compute
	}
	return string(k.Stage)
}

// family is a group of operations that share a Vulkan subgroup feature bit; each
// family × size gets one container and one run.
type family struct {
	name string
	ops  []string
}

// families groups the 24 SM 6.0 wave/quad intrinsics by the feature bit the
// intrinsic table gives them.
func families() []family {
	var fams []family
	for _, b := range intrinsics.VkBitNames {
		var ops []string
		for _, op := range intrinsics.Wave24 {
			if intrinsics.Get(op).VkBit == b.Bit {
				ops = append(ops, op.String())
			}
		}
		if len(ops) > 0 {
			fams = append(fams, family{b.Name, ops})
		}
	}
	// Whole programs rather than one intrinsic: the seed's CSSum (a wave's sum
	// into an atomic total) and PSSlope (quad neighbours' slopes of a sampled
	// height), PSSampled (quad reads of samples, a sample at a quad read's
	// coordinate), and IsHelperLane (SM 6.6) read through quad operations.
	fams = append(fams, family{"Whole programs", []string{"CSSum", "PSSlope", "PSSampled", "IsHelperLane"}})
	return append(fams, pastSM60()...)
}

// pastSM60 are the families of the operations and attributes past Shader
// Model 6.0: each needs a device feature lavapipe lacks or a size it may not
// have, so on lavapipe most of their specs are skips that name it.
func pastSM60() []family {
	var part, votes, sizes []string
	for _, in := range intrinsics.Table {
		if in.VkBit&intrinsics.VkPartitionedNV != 0 {
			part = append(part, in.Name)
		}
	}
	for _, op := range intrinsics.QuadVotes {
		votes = append(votes, op.String(), op.String()+".khr")
	}
	for _, w := range kernels.WaveSizeAttrs {
		sizes = append(sizes, w.Name())
	}
	helpers := kernels.HelperLaneNames()
	return []family{
		{"PartitionedNV: WaveMatch and WaveMultiPrefix (SM 6.5)", part},
		{"Quad votes: QuadAny and QuadAll, portable and SPV_KHR_quad_control (SM 6.7)", votes},
		{"WaveSize (SM 6.6 and 6.8)", sizes},
		{"WaveOpsIncludeHelperLanes (SM 6.7)", helpers},
		{"Meshlet compaction: DispatchMesh(WaveActiveCountBits) in amplification shaders (SM 6.5)", []string{kernels.Compaction}},
	}
}

func filterFor(ops []string) kernels.Filter {
	quoted := make([]string, len(ops))
	for i, op := range ops {
		quoted[i] = regexp.QuoteMeta(op)
	}
	return kernels.Filter{Ops: regexp.MustCompile("^(" + strings.Join(quoted, "|") + ")$")}
}

// caseLabels are a case spec's own labels.
func caseLabels(c kernels.Case, stage string, t target) []string {
	labels := []string{"api:" + t.api, "stage:" + stage, "op:" + c.Op.String(), "type:" + c.Type.HLSL(), "compiler:" + t.comp,
		"pattern:" + string(c.Pattern), "shape:" + c.Shape.Name}
	if c.Name != "" && c.Name != c.Op.String() {
		// A named program (PSSlope, WaveSize32, QuadAny.khr) is also op:NAME.
		labels = append(labels, "op:"+c.Name)
	}
	return labels
}

// selected narrows a family's run to the cases, compilers and APIs whose specs
// ginkgo's label filter keeps, so `--label-filter=op:WaveActiveSum` runs less on
// the device, not just reports less; likewise to the CI tier (tierKernels).
func selected(d suiteDevice, f family, size uint32) (kernels.Filter, []string, []string) {
	filter := filterFor(f.ops)
	expr := GinkgoLabelFilter()
	if expr == "" && suiteFraction <= 1 {
		return filter, []string{pass.Ours, pass.Glslang}, applicableAPIs(tierKernels(d, f.ops, size))
	}
	match := func([]string) bool { return true } // every spec of the tier
	if expr != "" {
		var err error
		match, err = types.ParseLabelFilter(expr)
		Expect(err).NotTo(HaveOccurred())
	}
	inherited := append(append([]string{}, containerLabels...), "device:"+d.Slug, fmt.Sprintf("size:%d", size))
	filter.Cases = map[string]bool{}
	comps, apis := map[string]bool{}, map[string]bool{}
	for _, k := range tierKernels(d, f.ops, size) {
		for _, c := range k.Cases {
			for _, t := range targets {
				if pass.NotApplicable(t.api, k) != "" {
					continue // no spec: the rig plans no record of it
				}
				if match(append(append([]string{}, inherited...), caseLabels(c, stageOf(k), t)...)) {
					filter.Cases[c.ID()] = true
					comps[t.comp] = true
					apis[t.api] = true
				}
			}
		}
	}
	var cs, as []string
	for _, comp := range []string{pass.Ours, pass.Glslang} {
		if comps[comp] {
			cs = append(cs, comp)
		}
	}
	for _, api := range pass.APIs {
		if apis[api] {
			as = append(as, api)
		}
	}
	return filter, cs, as
}

// applicableAPIs are the APIs some kernel of ks can run on by design
// (pass.NotApplicable): a family whose kernels WebGPU cannot run at all
// (PartitionedNV's extension, [WaveSize], helper lanes, task and mesh
// shaders) starts neither wgpu nor Dawn's helper in its run.
func applicableAPIs(ks []kernels.Kernel) []string {
	var out []string
	for _, api := range pass.APIs {
		for _, k := range ks {
			if pass.NotApplicable(api, k) == "" {
				out = append(out, api)
				break
			}
		}
	}
	return out
}

type recKey struct{ caseID, stage, api, compiler string }

// collapsedCase is a case of a collapsed spec (staticSkip), with why the
// pass at this size may have no record of it (noRecordHere).
type collapsedCase struct {
	recKey
	noRecord string
}

// noRecordHere is why a pass of a device at a size may hold no record of a
// case ("" when it must hold one): the rig draws at the device's own wave
// size only (it does not ask for a size in graphics stages: on lavapipe every
// child's size is its own, elsewhere only the default size has records), and
// a [WaveSize] kernel runs once, in the pass at the size picked for it.
func noRecordHere(dev suiteDevice, c kernels.Case, stage string, size uint32) string {
	if stage != results.Compute && size != dev.Device.SubgroupSize {
		return fmt.Sprintf("graphics stages run at the device's own wave size (%d)", dev.Device.SubgroupSize)
	}
	if w, sized := kernels.WaveSizeOf(c); sized {
		return fmt.Sprintf("%s runs once, at the size picked for it on this device, not at %d", w.HLSL(), size)
	}
	return ""
}

// familyRun is what one family's run at one size produced.
type familyRun struct {
	apis    []string // the APIs the run asked for
	recs    map[recKey]results.Record
	layouts map[string]results.Record // by API
	parity  []results.Record
	stats   results.Stats
}

// runFamily produces the records of one family at one wave size on a device,
// on every selected API (WebGPU only where the suite found an adapter of the
// device). A lavapipe size runs in a child process with its
// LP_NATIVE_VECTOR_WIDTH; the device's own size runs in a child under the
// validation layer when validate names a log directory (validation.go); other
// sizes run in this process.
func runFamily(d suiteDevice, f family, size uint32, validate string) (familyRun, error) {
	run := familyRun{recs: map[recKey]results.Record{}, layouts: map[string]results.Record{}}
	emit := func(r results.Record) {
		switch {
		case r.Case == results.LayoutCase:
			run.layouts[r.Backend()] = r
		case r.Status == results.Differs:
			run.parity = append(run.parity, r)
		default:
			run.recs[recKey{r.Case, r.Stage, r.Backend(), r.Compiler}] = r
		}
	}
	sp, _ := d.sizePlan(size)
	filter, comps, apis := selected(d, f, size)
	if d.WebGPU != "" {
		apis = without(apis, pass.WebGPU)
	}
	if d.Dawn != "" {
		apis = without(apis, pass.Dawn)
	}
	// New failures are re-run as `waverig run` does (a pass then is a Flake).
	cfg := pass.Config{Filter: filter, Compilers: comps, APIs: apis, Retries: 2, KernelTimeout: 5 * time.Minute}
	var err error
	if len(comps) == 0 || len(apis) == 0 {
		// Only layout specs are selected: the layout kernels still run.
		cfg.Compilers = []string{pass.Ours}
		cfg.Filter.Cases = map[string]bool{"": true}
		if len(apis) == 0 {
			cfg.APIs = pass.APIs
		}
	}
	run.apis = cfg.APIs
	if sp.LPWidth > 0 || validate != "" {
		child := func() *exec.Cmd {
			cmd := exec.Command(os.Args[0])
			if validate != "" {
				cmd.Env = append(os.Environ(), devices.ValidationDirEnv+"="+validate)
			}
			return cmd
		}
		run.stats, err = harness.RunChild(child, d.Index, sp, cfg, emit)
	} else {
		var rig *pass.Rig
		rig, err = pass.New(d.Index, cfg)
		if err == nil {
			run.stats, err = rig.Run(size, emit)
			rig.Close()
		}
	}
	return run, err
}

func without(list []string, x string) []string {
	var out []string
	for _, s := range list {
		if s != x {
			out = append(out, s)
		}
	}
	return out
}

// requireAPI skips (locally) or fails (CI) a spec of an API the device lacks.
// Dawn is skipped wherever it offers no adapter of the driver (it refuses
// lavapipe 22.3.6); CI fails only when Dawn itself is not installed.
func requireAPI(d suiteDevice, api string) {
	if api == pass.WebGPU && d.WebGPU != "" {
		if os.Getenv("CI") != "" {
			Fail("CI needs WebGPU (wgpu-native on the Vulkan device): " + d.WebGPU)
		}
		Skip(d.WebGPU)
	}
	if api == pass.Dawn && d.Dawn != "" {
		if why := dawn.Available(); why != "" && os.Getenv("CI") != "" {
			Fail("CI needs Dawn: " + why)
		}
		Skip(d.Dawn)
	}
}

// expectVerdict turns a record into the spec's outcome through the one verdict.
func expectVerdict(r results.Record) {
	switch r.Verdict() {
	case results.VerdictSkip:
		Skip(r.Reason)
	case results.VerdictKnown:
		AddReportEntry("known problem", brief(r), ReportEntryVisibilityFailureOrVerbose)
	case results.VerdictFlake:
		AddReportEntry("flake", brief(r))
	case results.VerdictVacuous:
		Skip("vacuous: the case compared no lane (every lane it reads from was inactive), so it could not fail")
	case results.VerdictImproved:
		Fail(r.RunStatus() + ": the baseline (" + r.Known + ") expects " + r.Expected + "; change it\n" + r.Describe())
	case results.VerdictUnexpected:
		Fail(r.Describe())
	}
	if r.Blame != "" {
		AddReportEntry("compiler finding", brief(r), ReportEntryVisibilityFailureOrVerbose)
	}
}

// briefLines bounds a report entry of a spec that passes (a known problem, a
// flake, a compiler finding): its head and the first lanes of its table say
// what it is, and some 16,000 such entries with every lane made the JSON report
// near a gigabyte. A failing spec keeps the whole description. Known problems
// and compiler findings (thousands: glslang's prefix scans) show on the
// terminal only with ginkgo -v or beside a failure; they are in the JSON report.
const briefLines = 8

// brief is r.Describe() cut to briefLines lines, saying how many it left out.
func brief(r results.Record) string {
	d := r.Describe()
	lines := strings.SplitAfter(d, "\n")
	if len(lines) <= briefLines+1 {
		return d
	}
	rest := len(lines) - briefLines
	if lines[len(lines)-1] == "" {
		rest--
	}
	return strings.Join(lines[:briefLines], "") + fmt.Sprintf("  … %d more lines (`waverig run -ops` with this case writes them all)\n", rest)
}

var _ = Describe("wave intrinsics in compute, pixel and vertex shaders on Vulkan and WebGPU (wgpu-native and Dawn)", Label(containerLabels...), func() {
	if len(suiteDevices) == 0 {
		It("finds a Vulkan device", func() { requireDevices() })
	}
	for _, dev := range suiteDevices {
		dev := dev
		Describe("on "+dev.Title(), Label("device:"+dev.Slug), func() {
			deviceSpecs(dev)
		})
	}
})

// deviceSpecs are one device's specs: per family and wave size, the layout,
// parity, validation and case specs.
func deviceSpecs(dev suiteDevice) {
	for _, fam := range families() {
		fam := fam
		Describe(fam.name, func() {
			for _, size := range dev.sizes() {
				size := size
				validated := size == dev.Device.SubgroupSize // one validated pass per device and family
				Describe(fmt.Sprintf("wave size %d", size), Ordered, Label(fmt.Sprintf("size:%d", size)), func() {
					var run familyRun
					var logs string   // the validation layer's logs of this pass ("" when not validated)
					var logsErr error // why a validated pass has no logs
					BeforeAll(func() {
						requireDevices()
						if _, why := dev.sizePlan(size); why != "" {
							Skip(why)
						}
						if validated {
							logs, logsErr = validationDir()
						}
						var err error
						run, err = runFamily(dev, fam, size, logs)
						var su *harness.SizeUnavailableError
						if errors.As(err, &su) {
							if sp, _ := dev.sizePlan(size); sp.Optional {
								Skip(su.Msg)
							}
						}
						Expect(err).NotTo(HaveOccurred(), "running %s at wave size %d on %s", fam.name, size, dev.Title())
					})

					if validated {
						It("uses Vulkan as the validation layer allows", Label("api:vulkan", "validation"), func() {
							expectNoValidationMessages(logs, logsErr)
						})
					}

					for _, api := range pass.APIs {
						api := api
						It("observes a consistent lane layout before trusting wave keys on "+api, Label("op:layout", "api:"+api), func() {
							requireAPI(dev, api)
							if !slices.Contains(run.apis, api) {
								// No case of the family can run there by design: the run did not
								// start the API. Its layout at this size is another family's spec.
								Skip(fmt.Sprintf("no case of this family runs on %s (pass.NotApplicable); the other families check its layout at wave size %d", api, size))
							}
							layout, ok := run.layouts[api]
							Expect(ok).To(BeTrue(), "no layout record for %s (layouts of %v)", api, slices.Sorted(maps.Keys(run.layouts)))
							Expect(layout.Status).To(Equal(results.Pass), layout.Reason)
							// WebGPU cannot ask for a size: the one it observed must be the one the
							// device reports in this process.
							Expect(layout.WaveSize).To(Equal(size), layout.Reason)
						})
					}

					for _, pair := range [][2]string{{pass.Vulkan, pass.WebGPU}, {pass.Vulkan, pass.Dawn}, {pass.WebGPU, pass.Dawn}} {
						a, b := pair[0], pair[1]
						It(fmt.Sprintf("gets the same lanes from %s and %s on one device, or reports the difference", a, b), Label("api:"+a, "api:"+b, "op:parity"), func() {
							requireAPI(dev, a)
							requireAPI(dev, b)
							compared := 0
							for key, r := range run.recs {
								if key.api == b && key.compiler == pass.Ours && r.Status == results.Pass && key.stage != results.Vertex {
									if v, ok := run.recs[recKey{key.caseID, key.stage, a, pass.Ours}]; ok && v.Status == results.Pass {
										compared++
									}
								}
							}
							differ := 0
							for _, p := range run.parity {
								if p.API != a+"+"+b {
									continue
								}
								// A case the rig could not compare is a rig defect; a difference
								// between two legal results is reported, not failed (Verdict).
								Expect(p.Parity).NotTo(BeEmpty(), p.Describe())
								AddReportEntry("parity difference", p.Describe())
								differ++
							}
							if compared == 0 {
								Skip("no case passed on both APIs in this selection")
							}
							// Every case that passed on both APIs was compared (the count
							// is over every pair of the pass).
							Expect(run.stats.ParityCases).To(BeNumerically(">=", compared), "cases compared lane by lane")
							AddReportEntry("parity", fmt.Sprintf("%d cases passed on %s and %s; the pass compared %d cases over its API pairs (%d lanes), %d of this pair differ",
								compared, a, b, run.stats.ParityCases, run.stats.ParityLanes, differ))
						})
					}

					type group struct {
						class, api, stage, comp, why string
						keys                         []collapsedCase
					}
					collapsed := map[string]*group{} // "stage [api comp]: reason" -> its cases
					var collapsedOrder []string
					baselineSkip := pass.Config{}.BaselineSkip(dev.Device, size)
					for _, k := range tierKernels(dev, fam.ops, size) {
						stage := stageOf(k)
						for _, c := range k.Cases {
							for _, t := range targets {
								if pass.NotApplicable(t.api, k) != "" {
									// The API cannot run it by design: the rig plans no
									// record of it, so there is no spec to skip either.
									continue
								}
								if why, class := staticSkip(dev, k, c, t, size, baselineSkip); why != "" {
									key := fmt.Sprintf("%s [%s %s]: %s", stage, t.api, t.comp, why)
									if collapsed[key] == nil {
										collapsedOrder = append(collapsedOrder, key)
										collapsed[key] = &group{class: class, api: t.api, stage: stage, comp: t.comp, why: why}
									}
									collapsed[key].keys = append(collapsed[key].keys, collapsedCase{recKey{c.ID(), stage, t.api, t.comp}, noRecordHere(dev, c, stage, size)})
									continue
								}
								c, t := c, t
								It(fmt.Sprintf("%s [%s %s %s]", c.ID(), t.api, stage, t.comp), Label(caseLabels(c, stage, t)...), func() {
									requireAPI(dev, t.api)
									r, ok := run.recs[recKey{c.ID(), stage, t.api, t.comp}]
									if why := noRecordHere(dev, c, stage, size); !ok && why != "" {
										Skip(why)
									}
									Expect(ok).To(BeTrue(), "no result for %s [%s %s %s]", c.ID(), t.api, stage, t.comp)
									expectVerdict(r)
								})
							}
						}
					}
					for _, key := range collapsedOrder {
						g := collapsed[key]
						It(fmt.Sprintf("skips %d cases: %s", len(g.keys), key), Label("skip:"+g.class, "api:"+g.api, "stage:"+g.stage, "compiler:"+g.comp), func() {
							if g.class == skipAPI {
								requireAPI(dev, g.api) // skips, or fails in CI where the API must be there
								Fail("the suite found no adapter of this device, yet requireAPI let it run: " + g.why)
							}
							// The rig still plans each case: every one has its record. A
							// device's gap makes each a skip with a reason; a baseline's
							// skips.txt line must leave none that would fail its own spec
							// (expectVerdict), as one spec per case would have.
							for _, cc := range g.keys {
								rk := cc.recKey
								r, ok := run.recs[rk]
								if !ok && cc.noRecord != "" {
									continue // as a spec of its own would skip (noRecordHere)
								}
								Expect(ok).To(BeTrue(), "no result for %s [%s %s %s]", rk.caseID, rk.api, rk.stage, rk.compiler)
								switch g.class {
								case skipDevice:
									Expect(r.Status).To(Equal(results.Skip), r.Describe())
									Expect(r.Reason).NotTo(BeEmpty(), r.Describe())
								default:
									switch r.Verdict() {
									case results.VerdictUnexpected, results.VerdictImproved:
										expectVerdict(r)
									}
								}
							}
							Skip(fmt.Sprintf("%d cases: %s", len(g.keys), g.why))
						})
					}

					if fam.name == "Arithmetic" {
						It("finds, by running, that glslang's WavePrefixSum and WavePrefixProduct are not exclusive",
							Label("compiler:glslang", "op:WavePrefixSum", "op:WavePrefixProduct"), func() {
								found := map[string]bool{}
								for key, r := range run.recs {
									if key.compiler == pass.Glslang && r.Blame == "compiler:glslang" {
										found[r.Op] = true
									}
								}
								Expect(found).To(HaveKey("WavePrefixSum"))
								Expect(found).To(HaveKey("WavePrefixProduct"))
								// waverig's own modules of the same cases pass: the fault is
								// glslang's. A vacuous case (lavapipe runs workgroups one
								// invocation wide one invocation per wave, so an "odd" case
								// there has no lane in its arm) compared nothing either way.
								passed := 0
								for key, r := range run.recs {
									if key.compiler != pass.Ours || (r.Op != "WavePrefixSum" && r.Op != "WavePrefixProduct") ||
										r.Status == results.Skip || r.Verdict() == results.VerdictVacuous {
										continue
									}
									Expect(r.Status).To(Equal(results.Pass), r.Describe())
									passed++
								}
								Expect(passed).To(BeNumerically(">", 0), "no waverig-compiled prefix case ran")
							})
					}
				})
			}
		})
	}
}
