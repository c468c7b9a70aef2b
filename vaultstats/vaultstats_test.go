package vaultstats

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func TestCountWords(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"one two  three\nfour", 4},
		{"  leading and trailing  ", 3},
		{"déjà vu", 2},
		{"机器学习 is 4+1", 6},
		{"日本語メモ", 5},
	} {
		if got := CountWords(tt.in); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestCompute: orphans, dead ends, broken links and tags of a small vault.
func TestCompute(t *testing.T) {
	dir := vaulttest.Write(t, map[string]string{
		"hub.md":    "#a #a/b\n[[leaf]] [[Missing]] [[missing]]\n",
		"leaf.md":   "#a\nno links\n",
		"alone.md":  "---\ntitle: Alone\n---\nnothing\n",
		"image.png": "not an image",
	})
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := Compute(snap, graph.New(snap), vault.NewTags(snap))
	got := []int{st.Notes, st.Attachments, st.NotesWithFrontmatter, st.Orphans, st.DeadEnds, st.BrokenLinks, st.UnresolvedTargets, len(st.Tags)}
	if want := []int{3, 1, 1, 1, 1, 2, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("notes, attachments, frontmatter, orphans, dead ends, broken links, targets, tags = %v, want %v", got, want)
	}
	if st.Tags[0].Tag != "a" || st.Tags[0].Count != 2 {
		t.Errorf("top tag %+v, want a on 2 notes", st.Tags[0])
	}
	if n := st.ModifiedSince(time.Now().Add(-time.Hour)); n != 3 {
		t.Errorf("ModifiedSince(an hour ago) = %d, want 3", n)
	}
	if n := st.ModifiedSince(time.Now().Add(time.Hour)); n != 0 {
		t.Errorf("ModifiedSince(in an hour) = %d, want 0", n)
	}
}
