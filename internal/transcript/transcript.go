package transcript

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Block is one command of a transcript and its expected output, or a run
// of comment lines (Cmd is then "").
type Block struct {
	Comments []string
	Cmd      string
	Want     []string
}

// Parse reads the transcript at path.
func Parse(t testing.TB, path string) []Block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Block
	var cur *Block
	inWant := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			inWant = false
		case cur == nil && strings.HasPrefix(line, "#"):
			if len(out) > 0 && out[len(out)-1].Cmd == "" {
				out[len(out)-1].Comments = append(out[len(out)-1].Comments, line)
			} else {
				out = append(out, Block{Comments: []string{line}})
			}
		case cur == nil:
			cur = &Block{Cmd: line}
		case line == "----" && !inWant:
			inWant = true
		case inWant:
			cur.Want = append(cur.Want, line)
		default:
			t.Fatalf("%s: unexpected line %q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// Run replays the transcript at path: run is called with each command in
// order and returns the lines it printed. Each command's output is
// compared with the expected one, or, with update, the file is rewritten
// with the output as it is now.
func Run(t testing.TB, path string, update bool, run func(cmd string) []string) {
	t.Helper()
	blocks := Parse(t, path)
	var b strings.Builder
	for i, bl := range blocks {
		if bl.Cmd == "" {
			b.WriteString(strings.Join(bl.Comments, "\n") + "\n")
			continue
		}
		got := run(bl.Cmd)
		b.WriteString(bl.Cmd + "\n----\n")
		for _, g := range got {
			b.WriteString(g + "\n")
		}
		if i < len(blocks)-1 {
			b.WriteString("\n")
		}
		if !update && strings.Join(got, "\n") != strings.Join(bl.Want, "\n") {
			t.Errorf("%s: %s\n got: %s\nwant: %s", path, bl.Cmd, strings.Join(got, "\n      "), strings.Join(bl.Want, "\n      "))
		}
	}
	if update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
