package workload

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far (getrusage).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// HeapMiB is HeapInuse after a full GC, in MiB.
func HeapMiB() float64 {
	runtime.GC()
	runtime.GC() // the second also frees what the first one's finalizers let go
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / (1 << 20)
}

// Written is how many bytes the process has written with write system
// calls so far (wchar of /proc/self/io): on a worker, nearly all of it is
// its nodes' connections to each other, so it counts the copies a
// message takes and everything that goes with them (gossip, framing,
// Noise). 0 where /proc is not there.
func Written() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("wchar: ")); ok {
			n, _ := strconv.ParseInt(string(v), 10, 64)
			return n
		}
	}
	return 0
}

// meter measures one stretch of wall time, CPU time and bytes written.
type meter struct {
	wall    time.Time
	cpu     time.Duration
	written int64
}

func startMeter() meter { return meter{time.Now(), CPUTime(), Written()} }

// stop returns the wall and CPU time since start.
func (m meter) stop() (wall, cpu time.Duration) {
	return time.Since(m.wall), CPUTime() - m.cpu
}

// bytes returns the bytes written since start.
func (m meter) bytes() int64 { return Written() - m.written }

// Pct is the q quantile (0..1) of xs by the nearest rank; 0 when empty.
func Pct(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

// Median is Pct(xs, 0.5).
func Median(xs []float64) float64 { return Pct(xs, 0.5) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
