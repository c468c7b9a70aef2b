package linksuggest

import (
	"context"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func loadVault(t *testing.T) *vault.Snapshot {
	t.Helper()
	snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestSuggest: a misspelt name finds its note; the suggester
// agrees with the snapshot's (slower) Suggest on its first choice.
func TestSuggest(t *testing.T) {
	snap := loadVault(t)
	s := New(snap)
	for _, n := range snap.Notes {
		name := []rune(n.Name())
		if len(name) < 4 {
			continue
		}
		typo := string(name[:1]) + string(name[2:]) // drop the second letter
		var got []string
		for _, id := range s.Suggest(typo, 5) {
			got = append(got, snap.Notes[id].Path)
		}
		if !slices.ContainsFunc(got, func(p string) bool { return snap.Note(p).Name() == n.Name() }) { // duplicate names: either note
			t.Errorf("%q (typo of %s) suggests %q", typo, n.Path, got)
		}
		if want := snap.Suggest(typo, 1); len(got) == 0 || len(want) == 0 || snap.Note(got[0]).Name() != snap.Note(want[0]).Name() {
			t.Errorf("%q: first suggestion %q, snapshot's %q", typo, got, want)
		}
	}
	for ref, want := range map[string]string{
		"Kubernets": "Software/Kubernetes.md", "k8": "Software/Kubernetes.md", "levain": "Cooking/Sourdough Bread.md",
		"Folder/Photosynthesis process.md": "Science/Photosynthesis.md", "日本語": "Languages/日本語メモ.md",
	} {
		if got := s.Suggest(ref, 3); len(got) == 0 || snap.Notes[got[0]].Path != want {
			t.Errorf("Suggest(%q) = %v, want %s first", ref, got, want)
		}
	}
	if got := s.Suggest("  ", 3); got != nil {
		t.Errorf("blank ref suggests %v", got)
	}
	if got := s.Suggest("zzzzqqqqxxxx", 3); len(got) != 0 {
		t.Errorf("nonsense suggests %v", got)
	}
}

// TestTitles: at most 3 distinct titles, the closest first, cached per
// target whatever its case and spacing.
func TestTitles(t *testing.T) {
	s := New(loadVault(t))
	got := s.Titles("Kubernets")
	if len(got) == 0 || len(got) > 3 || got[0] != "Kubernetes" {
		t.Fatalf("Titles(Kubernets) = %q", got)
	}
	if again := s.Titles("  KUBERNETS "); len(again) != len(got) || &again[0] != &got[0] {
		t.Errorf("the same target, spelt otherwise, was not cached: %q", again)
	}
	if got := s.Titles("zzzzqqqqxxxx"); got == nil || len(got) != 0 {
		t.Errorf("nonsense suggests %#v, want an empty list", got)
	}
}
