package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A request too large for one environment string (the suites' CI tier passes
// thousands of case IDs) travels through a file, and a small one inline.
func TestChildRequestTooLargeForTheEnvironment(t *testing.T) {
	cases := map[string]bool{}
	for i := 0; i < 20000; i++ {
		cases[fmt.Sprintf("WaveActiveSum/float%d/random#%d/whole", i%4+1, i)] = true
	}
	big := ChildRequest{Device: 1, WaveSize: 8, Config: wireConfig{Cases: cases}}
	data, err := json.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 128<<10 {
		t.Fatalf("the request is only %d bytes: not past Linux's 128 KiB per environment string", len(data))
	}
	var file string
	value, err := childRequestValue(data, &file)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	if !strings.HasPrefix(value, "@") || len(value) > maxEnvRequest {
		t.Fatalf("a %d-byte request went into the environment as %d bytes", len(data), len(value))
	}
	back, err := childRequestData(value)
	if err != nil {
		t.Fatal(err)
	}
	var got ChildRequest
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatal(err)
	}
	if got.Device != 1 || got.WaveSize != 8 || len(got.Config.Cases) != len(cases) {
		t.Fatalf("round trip lost the request: device %d, size %d, %d cases", got.Device, got.WaveSize, len(got.Config.Cases))
	}
	// A restart rewrites the same file.
	again, err := childRequestValue(data, &file)
	if err != nil || again != value {
		t.Fatalf("restart: %q, %v; want the same file %q", again, err, value)
	}

	small, _ := json.Marshal(ChildRequest{Device: 2})
	var none string
	v, err := childRequestValue(small, &none)
	if err != nil || v != string(small) || none != "" {
		t.Fatalf("a small request: %q, file %q, %v; want it inline", v, none, err)
	}
}
