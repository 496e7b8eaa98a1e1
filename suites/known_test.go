package suites

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness"
	"waverig/harness/expect"
)

// Known driver crashes are not run by the matrix (each one kills a process and
// costs a restart). These specs re-run each one alone, with the expectation files
// off, and check that it still crashes: a driver that got fixed makes the spec
// fail, so the entry is removed instead of hiding a case forever.
var _ = Describe("known driver crashes", Label("api:vulkan", "stage:compute", "known-crashes"), func() {
	sets, err := expect.Builtin()
	if err != nil {
		panic(err) // the embedded files are part of the binary; a parse error is a build defect
	}
	for _, set := range sets {
		for _, e := range set.Entries {
			if e.Kind != expect.Crash {
				continue
			}
			for _, size := range e.Sizes {
				e, size := e, size
				It(fmt.Sprintf("%s: %s %s at wave size %d (%s) still crashes", e.Where, e.Op, e.Type, size, e.Compiler),
					Label("op:"+e.Op, fmt.Sprintf("size:%d", size)), func() {
						d := requireDevice()
						if !set.Driver.MatchString(harness.DeviceString(d)) {
							Skip(fmt.Sprintf("%s applies to drivers matching %q, not %s", set.Name, set.Driver, harness.DeviceString(d)))
						}
						sp, why := sizePlan(size)
						if why != "" {
							Skip(why)
						}
						if sp.LPWidth == 0 {
							Skip("known crashes are re-checked through lavapipe child processes only")
						}
						comps := harness.Ours
						if e.Compiler != "*" {
							comps = e.Compiler
						}
						crashed, ran := 0, 0
						newCmd := func() *exec.Cmd {
							cmd := exec.Command(os.Args[0])
							cmd.Env = append(os.Environ(), opsEnv+"="+e.Op, typesEnv+"="+e.Type, noExpectEnv+"=1", compilersEnv+"="+comps)
							return cmd
						}
						cfg := harness.Config{Filter: filterFor([]string{e.Op}), NoExpectations: true, Compilers: strings.Split(comps, ",")}
						cfg.Filter.Types = []string{e.Type}
						_, err := harness.RunChildCommand(newCmd, sp, cfg, func(r harness.Record) {
							if r.Case == harness.LayoutCase {
								return
							}
							ran++
							if r.Status == harness.Error && strings.Contains(r.Reason, "crashed") {
								crashed++
							}
						})
						Expect(err).NotTo(HaveOccurred())
						Expect(ran).To(BeNumerically(">", 0), "no case matched the entry")
						Expect(crashed).To(BeNumerically(">", 0),
							"%s no longer crashes this driver: remove the entry from harness/expect/data/%s", e.Where, set.Name)
					})
			}
		}
	}
})
