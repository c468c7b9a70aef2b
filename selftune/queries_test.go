package selftune_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/selftune"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fixture is a small vault whose links, headings and aliases exercise
// every filter of Build.
var fixture = map[string]string{
	"Hub.md": "[[Target|quantum entanglement basics]] and [[Target|x]] and [[Target|all about Target]]\n" +
		"![[Target|embedded text here]] [[Missing|two words]] [[Hub|myself again here]]\n" +
		"[[Other|same words twice]]\n",
	"Target.md": "# Target\n\n## Spin states of electrons\n\n## Summary\n\nBody.\n",
	"Other.md":  "---\naliases: [Photon polarisation, Other]\n---\n[[Target|same words twice]]\n\n## Summary\n\n## 光子的偏振态\n",
}

func loadFixture(t *testing.T) *vault.Snapshot {
	t.Helper()
	dir := t.TempDir()
	for name, text := range fixture {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestBuild(t *testing.T) {
	snap := loadFixture(t)
	for _, tc := range []struct {
		kind string
		want []string // "text → target ← source"
	}{
		// "x" is one word, "all about Target" holds the title, the embed,
		// the unresolved and the self link are not queries, and "same
		// words twice" names two notes.
		{selftune.KindLink, []string{"quantum entanglement basics → Target.md ← Hub.md"}},
		// "Summary" is one word (and names two notes), "Target" the title;
		// CJK text of ≥ 3 characters counts.
		{selftune.KindHeading, []string{"Spin states of electrons → Target.md ← Target.md", "光子的偏振态 → Other.md ← Other.md"}},
		{selftune.KindAlias, []string{"Photon polarisation → Other.md ← Other.md"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			var got []string
			for _, q := range selftune.Build(snap, tc.kind, 300) {
				if q.Kind != tc.kind {
					t.Errorf("kind %q, want %q", q.Kind, tc.kind)
				}
				got = append(got, q.Text+" → "+snap.Notes[q.Target].Path+" ← "+snap.Notes[q.Source].Path)
			}
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBuildCapIsDeterministic: a capped sample is the same on every call.
func TestBuildCapIsDeterministic(t *testing.T) {
	snap := loadFixture(t)
	all := selftune.Build(snap, selftune.KindHeading, 300)
	if len(all) != 2 {
		t.Fatalf("%d heading queries, want 2", len(all))
	}
	first := selftune.Build(snap, selftune.KindHeading, 1)
	for range 5 {
		again := selftune.Build(snap, selftune.KindHeading, 1)
		if len(again) != 1 || again[0] != first[0] {
			t.Fatalf("capped sample changed: %v then %v", first, again)
		}
	}
}
