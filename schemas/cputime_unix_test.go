//go:build unix

package schemas

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time the process has used. The
// benchmarks report it per operation: on a shared machine it is a steadier
// figure than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
