package suites

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness/browser"
	"waverig/harness/casefile"
	"waverig/harness/pass"
)

// The browser check: the example case files' WGSL (compiled from HLSL, or
// a .wgsl module) runs in headless Chromium's WebGPU and is checked exactly
// as `waverig exec -api browser` checks it, on the adapter the browser picks
// (SwiftShader on these machines: Chromium blocklists lavapipe). A correct
// expectation passes; the file with a wrong one reports its mismatches.
var _ = Describe("the browser check (waverig exec -api browser)", Label("api:browser"), Ordered, func() {
	var rig *pass.Rig
	BeforeAll(func() {
		requireDevices()
		if why := browser.Available(); why != "" {
			if os.Getenv("CI") != "" {
				Fail("CI needs Chromium: " + why)
			}
			Skip(why)
		}
		var err error
		rig, err = pass.New(suiteDevices[0].Index, pass.Config{APIs: []string{pass.Browser}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rig.Close)
		Expect(rig.BrowserAdapter()).NotTo(BeEmpty(), "the browser gave no WebGPU adapter with subgroups")
		AddReportEntry("browser adapter", rig.BrowserAdapter())
	})

	files, _ := filepath.Glob("../fixtures/cases/*.json")
	for _, f := range files {
		f := f
		name := filepath.Base(f)
		It("runs "+name, func() {
			c, err := casefile.Load(f)
			if err != nil {
				// bad_unknown_key.json exists to be refused.
				Expect(name).To(HavePrefix("bad_"), "%s: %v", name, err)
				return
			}
			if kind := casefile.ShaderKind(c.Shader); kind != casefile.ShaderHLSL && kind != casefile.ShaderWGSL {
				Skip(c.Shader + " is SPIR-V: the browser runs WGSL")
			}
			mism, err := rig.ExecCase(pass.Browser, c, pass.Ours)
			var skip *casefile.Skip
			if errors.As(err, &skip) {
				Skip(skip.Reason)
			}
			Expect(err).NotTo(HaveOccurred())
			if strings.Contains(name, "wrong_expectation") {
				Expect(mism).NotTo(BeEmpty(), "a wrong expectation must be reported")
				return
			}
			Expect(mism).To(BeEmpty(), "%v", mism)
		})
	}
})
