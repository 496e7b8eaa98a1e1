package suites

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/compiler/intrinsics"
	"waverig/harness"
	"waverig/harness/kernels"
)

// suiteSizes are the wave sizes the suite covers; a device that cannot run one
// skips its specs with the reason (e.g. lavapipe 16 needs AVX-512).
var suiteSizes = []uint32{4, 8, 16}

var compilers = []string{harness.Ours, harness.Glslang}

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

type recKey struct{ caseID, compiler string }

// runFamily produces the records of one family at one wave size.
func runFamily(f family, size uint32) (map[recKey]harness.Record, harness.Record, error) {
	recs := map[recKey]harness.Record{}
	var layout harness.Record
	emit := func(r harness.Record) {
		if r.Case == harness.LayoutCase {
			layout = r
			return
		}
		recs[recKey{r.Case, r.Compiler}] = r
	}
	sp, _ := sizePlan(size)
	cfg := harness.Config{RequireTools: os.Getenv("CI") != "", Filter: filterFor(f.ops), Compilers: compilers}
	var err error
	if sp.LPWidth > 0 {
		newCmd := func() *exec.Cmd {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), opsEnv+"="+strings.Join(f.ops, ","))
			return cmd
		}
		_, err = harness.RunChildCommand(newCmd, sp, cfg, emit)
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

// describeFailure renders a failing record with its per-lane table.
func describeFailure(r harness.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] at wave size %d on %s (%s): %s\n", r.Case, r.Compiler, r.WaveSize, r.Device, r.Driver, r.Status)
	if r.Reason != "" {
		fmt.Fprintf(&b, "  %s\n", r.Reason)
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(&b, "  %-10s %-5s %-18s %-24s %-24s %s\n", "wave key", "lane", "active mask", "input", "expected", "actual")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "  %#-10x %-5d %-18s %-24s %-24s %s\n", f.WaveKey, f.Lane, f.ActiveMask, f.Input, f.Expected, f.Actual)
		}
	}
	return b.String()
}

var _ = Describe("wave intrinsics on Vulkan", Label("api:vulkan", "stage:compute"), func() {
	for _, fam := range families() {
		fam := fam
		Describe(fam.name, func() {
			for _, size := range suiteSizes {
				size := size
				Describe(fmt.Sprintf("wave size %d", size), Ordered, Label(fmt.Sprintf("size:%d", size)), func() {
					var recs map[recKey]harness.Record
					var layout harness.Record
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
						Expect(layout.Status).To(Equal(harness.Pass), layout.Reason)
					})

					for _, k := range kernels.Matrix(filterFor(fam.ops)) {
						for _, c := range k.Cases {
							for _, comp := range compilers {
								c, comp := c, comp
								labels := Label("op:"+c.Op.String(), "type:"+c.Type.HLSL(), "compiler:"+comp,
									"pattern:"+string(c.Pattern), "shape:"+c.Shape.Name)
								It(fmt.Sprintf("%s [%s]", c.ID(), comp), labels, func() {
									r, ok := recs[recKey{c.ID(), comp}]
									Expect(ok).To(BeTrue(), "no result for %s [%s]", c.ID(), comp)
									switch {
									case r.Status == harness.Skip:
										Skip(r.Reason)
									case r.Blame != "":
										// The same case passed on this device with waverig's compiler:
										// the finding is about the other compiler, and is reported.
										AddReportEntry("compiler finding", describeFailure(r))
									default:
										Expect(r.Status).To(Equal(harness.Pass), describeFailure(r))
									}
								})
							}
						}
					}

					if fam.name == "Arithmetic" {
						It("finds, by running, that glslang's WavePrefixSum and WavePrefixProduct are not exclusive",
							Label("compiler:glslang", "op:WavePrefixSum", "op:WavePrefixProduct"), func() {
								if _, err := exec.LookPath("glslangValidator"); err != nil {
									Skip("glslangValidator not installed")
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
									if key.compiler == harness.Ours && (r.Op == "WavePrefixSum" || r.Op == "WavePrefixProduct") && r.Status != harness.Skip {
										Expect(r.Status).To(Equal(harness.Pass), describeFailure(r))
									}
								}
							})
					}
				})
			}
		})
	}
})
