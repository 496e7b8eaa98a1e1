package suites

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"waverig/compiler/intrinsics"
	"waverig/harness"
	"waverig/harness/glslang"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// suiteSizes are the wave sizes the suite covers; a device that cannot run one
// skips its specs with the reason (e.g. lavapipe 16 needs AVX-512 to be fast).
var suiteSizes = []uint32{4, 8, 16}

var compilers = []string{harness.Ours, harness.Glslang}

// containerLabels are the labels every wave spec inherits from its containers.
var containerLabels = []string{"api:vulkan", "stage:compute"}

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
	return fams
}

func filterFor(ops []string) kernels.Filter {
	return kernels.Filter{Ops: regexp.MustCompile("^(" + strings.Join(ops, "|") + ")$")}
}

// caseLabels are a case spec's own labels.
func caseLabels(c kernels.Case, comp string) []string {
	return []string{"op:" + c.Op.String(), "type:" + c.Type.HLSL(), "compiler:" + comp,
		"pattern:" + string(c.Pattern), "shape:" + c.Shape.Name}
}

// selected narrows a family's run to the cases and compilers whose specs ginkgo's
// label filter keeps, so `--label-filter=op:WaveActiveSum` runs less on the
// device, not just reports less.
func selected(f family, size uint32) (kernels.Filter, []string) {
	filter := filterFor(f.ops)
	expr := GinkgoLabelFilter()
	if expr == "" {
		return filter, compilers
	}
	match, err := types.ParseLabelFilter(expr)
	Expect(err).NotTo(HaveOccurred())
	inherited := append(append([]string{}, containerLabels...), fmt.Sprintf("size:%d", size))
	filter.Cases = map[string]bool{}
	comps := map[string]bool{}
	for _, k := range kernels.Matrix(filterFor(f.ops)) {
		for _, c := range k.Cases {
			for _, comp := range compilers {
				if match(append(append([]string{}, inherited...), caseLabels(c, comp)...)) {
					filter.Cases[c.ID()] = true
					comps[comp] = true
				}
			}
		}
	}
	var cs []string
	for _, comp := range compilers {
		if comps[comp] {
			cs = append(cs, comp)
		}
	}
	return filter, cs
}

type recKey struct{ caseID, compiler string }

// runFamily produces the records of one family at one wave size.
func runFamily(f family, size uint32) (map[recKey]results.Record, results.Record, error) {
	recs := map[recKey]results.Record{}
	var layout results.Record
	emit := func(r results.Record) {
		if r.Case == results.LayoutCase {
			layout = r
			return
		}
		recs[recKey{r.Case, r.Compiler}] = r
	}
	sp, _ := sizePlan(size)
	filter, comps := selected(f, size)
	cfg := harness.Config{RequireTools: os.Getenv("CI") != "", Filter: filter, Compilers: comps}
	var err error
	if len(comps) == 0 {
		// Only the layout spec is selected: the layout kernel still runs.
		cfg.Compilers = []string{harness.Ours}
		cfg.Filter.Cases = map[string]bool{"": true}
	}
	if sp.LPWidth > 0 {
		_, err = harness.RunChild(func() *exec.Cmd { return exec.Command(os.Args[0]) }, 0, sp, cfg, emit)
	} else {
		var rig *harness.Rig
		rig, err = harness.New(0, cfg)
		if err == nil {
			_, err = rig.Run(size, emit)
			rig.Close()
		}
	}
	return recs, layout, err
}

// expectVerdict turns a record into the spec's outcome through the one verdict.
func expectVerdict(r results.Record) {
	switch r.Verdict() {
	case results.VerdictSkip:
		Skip(r.Reason)
	case results.VerdictKnown:
		AddReportEntry("known problem", r.Describe())
	case results.VerdictUnexpected:
		Fail(r.Describe())
	}
	if r.Blame != "" {
		AddReportEntry("compiler finding", r.Describe())
	}
}

var _ = Describe("wave intrinsics on Vulkan", Label(containerLabels...), func() {
	for _, fam := range families() {
		fam := fam
		Describe(fam.name, func() {
			for _, size := range suiteSizes {
				size := size
				Describe(fmt.Sprintf("wave size %d", size), Ordered, Label(fmt.Sprintf("size:%d", size)), func() {
					var recs map[recKey]results.Record
					var layout results.Record
					BeforeAll(func() {
						requireDevice()
						if _, why := sizePlan(size); why != "" {
							Skip(why)
						}
						var err error
						recs, layout, err = runFamily(fam, size)
						var su *harness.SizeUnavailableError
						if errors.As(err, &su) {
							if sp, _ := sizePlan(size); sp.Optional {
								Skip(su.Msg)
							}
						}
						Expect(err).NotTo(HaveOccurred(), "running %s at wave size %d", fam.name, size)
					})

					It("observes a consistent lane layout before trusting wave keys", Label("op:layout"), func() {
						Expect(layout.Status).To(Equal(results.Pass), layout.Reason)
					})

					for _, k := range kernels.Matrix(filterFor(fam.ops)) {
						for _, c := range k.Cases {
							for _, comp := range compilers {
								c, comp := c, comp
								It(fmt.Sprintf("%s [%s]", c.ID(), comp), Label(caseLabels(c, comp)...), func() {
									r, ok := recs[recKey{c.ID(), comp}]
									Expect(ok).To(BeTrue(), "no result for %s [%s]", c.ID(), comp)
									expectVerdict(r)
								})
							}
						}
					}

					if fam.name == "Arithmetic" {
						It("finds, by running, that glslang's WavePrefixSum and WavePrefixProduct are not exclusive",
							Label("compiler:glslang", "op:WavePrefixSum", "op:WavePrefixProduct"), func() {
								if !glslang.Installed() {
									Skip(glslang.NotInstalled)
								}
								found := map[string]bool{}
								for key, r := range recs {
									if key.compiler == harness.Glslang && r.Blame == "compiler:glslang" {
										found[r.Op] = true
									}
								}
								Expect(found).To(HaveKey("WavePrefixSum"))
								Expect(found).To(HaveKey("WavePrefixProduct"))
								for key, r := range recs {
									if key.compiler == harness.Ours && (r.Op == "WavePrefixSum" || r.Op == "WavePrefixProduct") && r.Status != results.Skip {
										Expect(r.Status).To(Equal(results.Pass), r.Describe())
									}
								}
							})
					}
				})
			}
		})
	}
})
