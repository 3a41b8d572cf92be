package testbed

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one process of the testbed, started in a host's namespace,
// its output in a log file.
type Proc struct {
	Name string
	Host string
	Log  string

	cmd  *exec.Cmd
	logf *os.File
	done chan struct{}
	err  error
}

// Start starts args in host's namespace with its output appended to log.
// The process gets SIGTERM if this one dies (ip netns exec runs it in its
// own place, so the signal reaches it).
func (n *Net) Start(name, host, log string, args ...string) (*Proc, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	p := &Proc{Name: name, Host: host, Log: log, logf: f, done: make(chan struct{})}
	p.cmd = n.Command(host, args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("testbed: starting %s on %s: %w", name, host, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the process has ended, and how.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop interrupts the process and waits for it, up to limit; then kills it.
func (p *Proc) Stop(limit time.Duration) error {
	if ok, _ := p.Exited(); ok {
		return nil
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
		return nil
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("testbed: %s did not stop within %s and was killed", p.Name, limit)
	}
}

// Kill kills the process at once (SIGKILL), as a crash or a power cut
// would, and waits for it.
func (p *Proc) Kill() {
	if ok, _ := p.Exited(); ok {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// WaitLine waits until the process's log has a line holding want and
// returns it.
func (p *Proc) WaitLine(ctx context.Context, want string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		if l, ok := grepFile(p.Log, want); ok {
			return l, nil
		}
		if ok, err := p.Exited(); ok {
			return "", fmt.Errorf("testbed: %s exited (%v) before printing %q:\n%s", p.Name, err, want, Tail(p.Log, 20))
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("testbed: %s did not print %q within %s:\n%s", p.Name, want, limit, Tail(p.Log, 20))
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func grepFile(path, want string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			return sc.Text(), true
		}
	}
	return "", false
}

// Tail returns the last n lines of a file, indented.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "  " + err.Error() + "\n"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString("  " + l + "\n")
	}
	return buf.String()
}

// HTTPClient returns an HTTP client whose connections are opened inside
// host's namespace (Dialer): for a testbed host's API and metrics on its
// loopback.
func (n *Net) HTTPClient(host string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.Dialer(host), MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}
}

// Metric reads the sum of a Prometheus counter's samples whose labels
// hold every one of labels (such as `path="relayed"`) from a metrics page.
func Metric(page []byte, name string, labels ...string) float64 {
	var sum float64
	for _, l := range strings.Split(string(page), "\n") {
		if !strings.HasPrefix(l, name) || (len(l) > len(name) && l[len(name)] != '{' && l[len(name)] != ' ') {
			continue
		}
		ok := true
		for _, want := range labels {
			if !strings.Contains(l, want) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}

// Scrape fetches a metrics page over c.
func Scrape(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("testbed: %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 8<<20))
}

// RSS returns a process's resident set size in bytes (VmRSS of
// /proc/<pid>/status).
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmRSS:"), "kB")), &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("testbed: no VmRSS")
}

// PSS returns a process's proportional set size in bytes (Pss of
// /proc/<pid>/smaps_rollup): its own memory plus its share of what it
// shares, such as the binary's text every node process maps.
func PSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Pss:") {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "Pss:"), "kB")), &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("testbed: no Pss")
}

// Pid is the process's id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Report collects a run's scenarios: each with what happened and its
// figures, printed as they end.
type Report struct {
	mu        sync.Mutex
	w         io.Writer
	Scenarios []*Scenario
}

// Scenario is one scenario's outcome.
type Scenario struct {
	Name    string
	Started time.Time
	Took    time.Duration
	Err     error
	Lines   []string

	report *Report
}

// NewReport returns a Report printing to w.
func NewReport(w io.Writer) *Report { return &Report{w: w} }

// Run runs one scenario, printing its header, its lines as they come and
// its verdict; it returns the scenario's error.
func (r *Report) Run(name string, f func(s *Scenario) error) error {
	s := &Scenario{Name: name, Started: time.Now()}
	r.mu.Lock()
	r.Scenarios = append(r.Scenarios, s)
	r.mu.Unlock()
	r.printf("\n== %s\n", name)
	s.report = r
	s.Err = f(s)
	s.Took = time.Since(s.Started)
	if s.Err != nil {
		r.printf("FAILED %s after %s: %v\n", name, s.Took.Round(100*time.Millisecond), s.Err)
		return fmt.Errorf("scenario %q failed (above)", name)
	}
	r.printf("passed %s in %s\n", name, s.Took.Round(100*time.Millisecond))
	return nil
}

func (r *Report) printf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, format, args...)
}

// Printf prints a line of the scenario and keeps it.
func (s *Scenario) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.Lines = append(s.Lines, line)
	s.report.printf("  %s\n", line)
}

// Summary is one line a scenario: its verdict and time.
func (r *Report) Summary() string {
	var b strings.Builder
	for _, s := range r.Scenarios {
		v := "passed"
		if s.Err != nil {
			v = "FAILED"
		}
		fmt.Fprintf(&b, "  %-6s %-58s %s\n", v, s.Name, s.Took.Round(100*time.Millisecond))
	}
	return b.String()
}
