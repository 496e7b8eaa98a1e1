package pass

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// ProfileEnv, set to 1, makes every pass print where its time went to stderr
// (one "profile:" line per wave size: compiling and validating, building
// pipelines in parallel, the serial device work per API, the checks and the
// parity comparison). scripts/bench.sh and performance work read it; it
// changes nothing else.
const ProfileEnv = "WAVERIG_PROFILE"

// profile sums wall time per phase of one pass.
type profile struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

func (p *profile) add(phase string, since time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d == nil {
		p.d = map[string]time.Duration{}
	}
	p.d[phase] += time.Since(since)
}

// report prints the pass's phases (when ProfileEnv is set) and starts over.
func (p *profile) report(size uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if os.Getenv(ProfileEnv) == "1" && len(p.d) > 0 {
		var parts []string
		for k, v := range p.d {
			parts = append(parts, fmt.Sprintf("%s %.2fs", k, v.Seconds()))
		}
		sort.Strings(parts)
		fmt.Fprintf(os.Stderr, "profile: wave size %d: %s\n", size, strings.Join(parts, ", "))
	}
	p.d = nil
}
