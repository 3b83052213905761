//go:build !unix

package bench

import "time"

// processCPU is 0 where getrusage is not there: cpu-ms/req reads 0.
func processCPU() time.Duration { return 0 }
