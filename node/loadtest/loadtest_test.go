package loadtest

import (
	"strings"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 1..100 ms, given in reverse
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarise(ds)
	want := Latency{P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5}
	if got != want {
		t.Fatalf("summarise(1..100 ms) = %+v, want %+v", got, want)
	}
	if ds[0] != 100*time.Millisecond {
		t.Fatal("summarise reordered its argument")
	}
	if got := summarise([]time.Duration{7 * time.Millisecond}); got != (Latency{P50: 7, P95: 7, P99: 7, Max: 7, Mean: 7}) {
		t.Fatalf("one sample: %+v", got)
	}
	if got := summarise(nil); got != (Latency{}) {
		t.Fatalf("no samples: %+v", got)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	cases := []struct {
		field string
		edit  func(*Config)
	}{
		{"Counterparties", func(c *Config) { c.Counterparties = 0 }},
		{"Counterparties", func(c *Config) { c.Counterparties = MaxCounterparties + 1 }},
		{"Duration", func(c *Config) { c.Duration = time.Millisecond }},
		{"Warmup", func(c *Config) { c.Warmup = -time.Second }},
		{"BaselineDuration", func(c *Config) { c.BaselineDuration = 0 }},
		{"PollInterval", func(c *Config) { c.PollInterval = 0 }},
		{"StepTimeout", func(c *Config) { c.StepTimeout = time.Millisecond }},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s out of range: got %v", c.field, err)
		}
	}
	cfg := DefaultConfig()
	cfg.Baseline, cfg.BaselineDuration = false, 0
	if err := cfg.Validate(); err != nil {
		t.Errorf("no baseline needs no baseline duration: %v", err)
	}
}
