package gate

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGatedActsComplete: every gated act has a Human Intent Protocol tool,
// a title of its own and a row in docs/node.md's act table, and that
// table names no gated act GatedActs lacks.
func TestGatedActsComplete(t *testing.T) {
	b, err := os.ReadFile("../../docs/node.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "### Acts (the node's API)")
	if start < 0 {
		t.Fatal(`docs/node.md has no section "Acts (the node's API)"`)
	}
	doc = doc[start:]
	if end := strings.Index(doc[1:], "\n### "); end >= 0 {
		doc = doc[:end+1]
	}
	documented := map[Act]bool{}
	gatedCol := regexp.MustCompile("`([a-z_]+)`")
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "method" {
			continue
		}
		for _, m := range gatedCol.FindAllStringSubmatch(cells[3], -1) {
			documented[Act(m[1])] = true
		}
	}
	for _, a := range GatedActs {
		if _, ok := actTool[a]; !ok {
			t.Errorf("gated act %s has no tool (actTool)", a)
		}
		if _, err := ActAction(a, "n", nil); err != nil {
			t.Errorf("gated act %s: ActAction: %v", a, err)
		}
		if title := actTitle(a, "", map[string]any{}); title == "" || title == string(a) {
			t.Errorf("gated act %s has no title (actTitle)", a)
		}
		if !documented[a] {
			t.Errorf("gated act %s has no row in docs/node.md's act table", a)
		}
	}
	for a := range documented {
		if !slices.Contains(GatedActs, a) {
			t.Errorf("docs/node.md's act table names %s, which is not in GatedActs", a)
		}
	}
}
