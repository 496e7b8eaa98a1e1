package suites

import (
	"encoding/json"
	"os"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// SummaryEnv names the file the suite writes its CI summary to
// (scripts/test.sh sets it; unset, nothing is written).
const SummaryEnv = "WAVERIG_SUITE_REPORT"

// summarySpec is a spec in the CI summary: what scripts/testsummary counts,
// in the field names of ginkgo's JSON report (so the summary reads either).
// A passing or skipped spec keeps only its state; a failing one its texts
// and message too.
type summarySpec struct {
	State                   string          `json:"State"`
	LeafNodeType            string          `json:"LeafNodeType"`
	LeafNodeText            string          `json:"LeafNodeText,omitempty"`
	ContainerHierarchyTexts []string        `json:"ContainerHierarchyTexts,omitempty"`
	Failure                 *summaryFailure `json:"Failure,omitempty"`
}

type summaryFailure struct {
	Message string `json:"Message"`
}

type summarySuite struct {
	SuiteDescription string        `json:"SuiteDescription"`
	SuiteSucceeded   bool          `json:"SuiteSucceeded"`
	SpecReports      []summarySpec `json:"SpecReports"`
}

// The CI summary instead of ginkgo's --json-report: that report holds every
// spec's events, locations and labels (~450 MB for the CI tier's 112,000
// specs), which process 1 encodes, the ginkgo CLI decodes and encodes again
// to merge, and the summary decodes a third time — half a minute of CPU on
// two cores for three numbers and the failures. This one is a few MB.
var _ = ReportAfterSuite("the CI summary ($WAVERIG_SUITE_REPORT)", func(r Report) {
	path := os.Getenv(SummaryEnv)
	if path == "" {
		return
	}
	s := summarySuite{SuiteDescription: r.SuiteDescription, SuiteSucceeded: r.SuiteSucceeded}
	for _, sr := range r.SpecReports {
		spec := summarySpec{State: sr.State.String(), LeafNodeType: sr.LeafNodeType.String()}
		if sr.State.Is(types.SpecStateFailureStates) {
			spec.LeafNodeText, spec.ContainerHierarchyTexts = sr.LeafNodeText, sr.ContainerHierarchyTexts
			spec.Failure = &summaryFailure{Message: sr.Failure.Message}
		}
		s.SpecReports = append(s.SpecReports, spec)
	}
	data, err := json.Marshal([]summarySuite{s})
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		Fail("writing the CI summary: " + err.Error())
	}
})
