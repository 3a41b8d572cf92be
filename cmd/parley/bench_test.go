package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleynet/parley/node/loadtest"
)

func TestBenchShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four nodes and runs them for a few seconds")
	}
	out, err := runParley(t, "bench", "--counterparties", "3", "--duration", "2s", "--warmup", "500ms",
		"--baseline-duration", "1s", "--dir", t.TempDir(), "--json")
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	var rep loadtest.Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("the report is not the JSON of a loadtest.Report: %v\n%s", err, out)
	}
	if rep.Counterparties != 3 || rep.Baseline == nil || rep.Baseline.Counterparties != 1 || rep.Load.Counterparties != 3 {
		t.Fatalf("phases: %+v", rep)
	}
	for name, p := range map[string]*loadtest.Phase{"baseline": rep.Baseline, "load": &rep.Load} {
		if p.Agreed == 0 || p.Failed != 0 || len(p.Errors) != 0 {
			t.Errorf("%s: %d agreed, %d failed %v", name, p.Agreed, p.Failed, p.Errors)
		}
		l := p.Latency
		if !(l.P50 > 0 && l.P50 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.Max) {
			t.Errorf("%s: latency quantiles out of order: %+v", name, l)
		}
		if p.Seconds <= 0 || p.PerSecond != float64(p.Agreed)/p.Seconds {
			t.Errorf("%s: %v per second over %v s for %d agreed", name, p.PerSecond, p.Seconds, p.Agreed)
		}
		if p.CPUSeconds <= 0 || p.CPUPerNegotiationMS <= 0 || p.PeakRSSBytes == 0 || p.PeakHeapInuseBytes == 0 || p.Goroutines == 0 {
			t.Errorf("%s: resources not measured: %+v", name, p)
		}
		if p.FundLatency != nil || p.Funded != 0 {
			t.Errorf("%s: funding reported without --fund", name)
		}
	}
	if rep.Ratio <= 0 || rep.Ratio != rep.Load.PerSecond/rep.Baseline.PerSecond {
		t.Errorf("ratio %v, throughputs %v and %v", rep.Ratio, rep.Load.PerSecond, rep.Baseline.PerSecond)
	}
	if rep.Machine.NumCPU == 0 || rep.Machine.GoVersion == "" {
		t.Errorf("machine: %+v", rep.Machine)
	}

	var human bytes.Buffer
	printBench(&human, &rep)
	for _, want := range []string{"baseline", "load", "ratio:", "p50 ms", "cpu ms/op", "peak RSS"} {
		if !strings.Contains(human.String(), want) {
			t.Errorf("human report lacks %q:\n%s", want, human.String())
		}
	}
}

func TestBenchFund(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a dev chain and three nodes")
	}
	out, err := runParley(t, "bench", "--fund", "--counterparties", "2", "--duration", "2s", "--warmup", "500ms",
		"--no-baseline", "--poll", "20ms", "--dir", t.TempDir(), "--json")
	if err != nil {
		t.Fatalf("bench --fund: %v\n%s", err, out)
	}
	var rep loadtest.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Load
	if !rep.Fund || rep.Baseline != nil || p.Funded == 0 || p.Funded != p.Agreed || p.Failed != 0 || p.FundLatency == nil {
		t.Fatalf("funded run: %+v", rep)
	}
	if p.FundLatency.P50 < p.Latency.P50 || p.PerSecond != float64(p.Funded)/p.Seconds {
		t.Fatalf("funding comes after agreement: agreement p50 %v, funded p50 %v", p.Latency.P50, p.FundLatency.P50)
	}
}

func TestBenchRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--counterparties", "0"},
		{"bench", "--duration", "1ms"},
		{"bench", "--step-timeout", "10ms"},
	} {
		if _, err := runParley(t, args...); exitCode(err) != 2 {
			t.Errorf("%v: got %v, want exit 2", args, err)
		}
	}
}
