//go:build !unix

package ledger

import "time"

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }
