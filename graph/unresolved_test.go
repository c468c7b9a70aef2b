package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestMissingTargets: targets differing in case are one, counted and
// ordered by count, then alphabetically whatever the spelling.
func TestMissingTargets(t *testing.T) {
	dir := vaulttest.Write(t, map[string]string{
		"a.md": "[[Zeta]] [[beta]] [[Alpha]]\n",
		"b.md": "[[zeta]] [[Beta]]\n",
		"c.md": "[[ZETA]] [[a]]\n",
	})
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMissingTargets(New(snap))
	links := m.Links()
	if len(links) != 6 {
		t.Fatalf("%d unresolved links, want 6", len(links))
	}
	for _, tt := range []struct {
		limit int
		want  []TargetCount
	}{
		{10, []TargetCount{{"Zeta", 3}, {"beta", 2}, {"Alpha", 1}}},
		{2, []TargetCount{{"Zeta", 3}, {"beta", 2}}},
	} {
		top, total := m.Top(links, tt.limit)
		if !slices.Equal(top, tt.want) || total != 3 {
			t.Errorf("Top(limit %d) = %v of %d, want %v of 3", tt.limit, top, total, tt.want)
		}
	}
	var fromB []MissingLink
	for _, l := range links {
		if snap.Notes[l.From].Path == "b.md" {
			fromB = append(fromB, l)
		}
	}
	if top, total := m.Top(fromB, 10); !slices.Equal(top, []TargetCount{{"beta", 1}, {"Zeta", 1}}) || total != 2 {
		t.Errorf("Top(b.md's links) = %v of %d", top, total)
	}
}
