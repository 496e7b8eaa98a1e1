package suites

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/devices"
)

// Each family's pass at a device's own wave size runs in a child process with
// the Khronos validation layer on waverig's Vulkan instance
// (devices.ValidationDirEnv): that is the CI tier's validation pass, one per
// driver, at no cost beyond the layer's own. The pass's spec "uses Vulkan as
// the validation layer allows" fails on any message the layer logged.

// validationSetup is the suite's directory of validation logs and the layer
// the validated passes load (with its version), made once.
type validationSetup struct{ root, layer string }

var validationRoot = sync.OnceValues(func() (validationSetup, error) {
	layer, err := devices.ValidationAvailable()
	if err != nil {
		return validationSetup{}, err
	}
	root, err := os.MkdirTemp("", "waverig-suite-validation-")
	return validationSetup{root, layer}, err
})

// validationDir is a new log directory for one pass, or why there is none
// (the layer cannot be loaded: the pass then runs unvalidated and its
// validation spec says why).
func validationDir() (string, error) {
	v, err := validationRoot()
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(v.root, "pass-")
}

// expectNoValidationMessages fails on any message in a pass's logs, and when
// no process of the pass loaded the layer at all; without logs (why says
// why) it skips, or fails in CI.
func expectNoValidationMessages(logs string, why error) {
	if logs == "" {
		if os.Getenv("CI") != "" {
			Fail("CI runs a validated pass per driver: " + why.Error())
		}
		Skip(why.Error())
	}
	loaded, _ := filepath.Glob(filepath.Join(logs, "settings-*"))
	Expect(loaded).NotTo(BeEmpty(), "no process of the pass loaded %s", devices.ValidationLayer)
	files, err := filepath.Glob(filepath.Join(logs, "*.log"))
	Expect(err).NotTo(HaveOccurred())
	byID := map[string]int{}
	total := 0
	var text strings.Builder
	for _, f := range files {
		n, err := devices.CountValidationMessages(f, byID)
		Expect(err).NotTo(HaveOccurred())
		total += n
		if n > 0 && text.Len() < 4000 {
			data, _ := os.ReadFile(f)
			text.Write(data[:min(len(data), 4000-text.Len())])
		}
	}
	Expect(total).To(BeZero(), "%s reported waverig's use of Vulkan (%v):\n%s", devices.ValidationLayer, byID, text.String())
	v, _ := validationRoot()
	AddReportEntry("validation", fmt.Sprintf("%s: 0 messages from %d processes", v.layer, len(loaded)))
}

var _ = AfterSuite(func() {
	if v, err := validationRoot(); err == nil {
		os.RemoveAll(v.root)
	}
})
