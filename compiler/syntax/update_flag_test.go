package syntax

// go test ./compiler/... -update passes the one -update flag of package
// golden to every test binary under compiler/; this package has no golden
// files, but its binary must accept the flag.
import _ "waverig/internal/golden"
