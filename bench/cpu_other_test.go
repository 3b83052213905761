//go:build !unix

package bench

import "time"

// processCPU is unknown where getrusage is not there: cpu-ms/req is
// then not reported.
func processCPU() (time.Duration, bool) { return 0, false }
