package search

import (
	"errors"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestFrontmatterEquals(t *testing.T) {
	for _, tt := range []struct {
		name string
		key  string
		want any
		v    any
		ok   bool
	}{
		{"string, case and space", "status", "Done ", "done", true},
		{"number equals numeric string", "year", 2024.0, "2024", true},
		{"numeric string equals int", "year", "2024.0", 2024, true},
		{"bool", "draft", true, true, true},
		{"bool is not its string in another case", "draft", false, true, false},
		{"list membership", "tags", "recipe", []any{"cooking", "recipe"}, true},
		{"tag key ignores #", "tags", "#recipe", []any{"recipe"}, true},
		{"other keys keep #", "topic", "#recipe", "recipe", false},
		{"map never matches", "x", "a", map[string]any{"a": 1}, false},
		{"nfc", "name", "cafe\u0301", "café", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewFrontmatterEquals(tt.key, tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Match(tt.v); got != tt.ok {
				t.Fatalf("Match(%v) = %v", tt.v, got)
			}
		})
	}
	for _, bad := range []any{nil, []any{"a"}, map[string]any{}} {
		if _, err := NewFrontmatterEquals("k", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewFrontmatterEquals(%v) err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestFrontmatterComparedAndFoldKey(t *testing.T) {
	n := &vault.Note{Frontmatter: map[string]any{"Status": "a", "status": "b", "TAGS": "x, y"}, FrontmatterTags: []string{"x", "y"}}
	if v, _, _ := FrontmatterCompared(n, "status"); v != "b" {
		t.Errorf("exact key first: %v", v)
	}
	if v, _, _ := FrontmatterCompared(n, "STATUS"); v != "a" {
		t.Errorf("then the first case-insensitive key in sorted order: %v", v)
	}
	if raw, cmp, ok := FrontmatterCompared(n, "tags"); !ok || raw != "x, y" || len(cmp.([]any)) != 2 {
		t.Errorf("tags: raw %v compared %v", raw, cmp)
	}
	if _, _, ok := FrontmatterCompared(n, "missing"); ok {
		t.Error("missing key found")
	}
	if FoldKey("Café") != FoldKey("CAFE\u0301") {
		t.Error("FoldKey must ignore case and normalisation")
	}
	if c, ok := CanonicalValue(2024.0); !ok || c != "2024" {
		t.Errorf("CanonicalValue = %q %v", c, ok)
	}
}

func TestInfo(t *testing.T) {
	info := testEngine(t).Info()
	if info.PersistentIndex || info.Chunks == 0 || info.EmbeddingModel != "" || info.Vectors != 0 || info.SignalErrors != nil {
		t.Fatalf("TF-IDF only: %+v", info)
	}
	dir := t.TempDir()
	write(t, dir, "a.md", "car\n")
	e := withEmbeddings(t, dir, &embedtest.Model{Name: "a"}, &embedtest.Model{Name: "a"})
	info = e.Info()
	if !info.PersistentIndex || info.EmbeddingAlias != "toy" || info.EmbeddingModel == "" || info.Vectors == 0 {
		t.Fatalf("with index and embeddings: %+v", info)
	}
	broken := withEmbeddings(t, dir, &embedtest.Model{Name: "a"}, &embedtest.Model{Name: "b"})
	if msg := broken.Info().SignalErrors[rankers.SignalEmbeddings]; msg == "" {
		t.Fatalf("an unusable signal must be reported: %+v", broken.Info())
	}
	if !slices.Contains(e.Signals(), rankers.SignalBM25) {
		t.Fatal("bm25 missing")
	}
}

// TestMatchFormsAgreesWithMatch: the precomputed path answers exactly like
// filter_frontmatter's own comparison.
func TestMatchFormsAgreesWithMatch(t *testing.T) {
	values := []any{"Done", " done ", "2024", 2024, 2024.5, true, false, nil, "#Recipe", "recipe",
		[]any{"a", "#b", 3}, []any{[]any{"nested"}, "x"}, map[string]any{"a": "done"}, []any{}, "café", "cafe\u0301"}
	wants := []any{"done", "2024", 2024.0, true, "false", "#recipe", "b", "3", "nested", "a", "café", "x"}
	for _, key := range []string{"status", "tags"} {
		for _, w := range wants {
			m, err := NewFrontmatterEquals(key, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				if a, b := m.Match(v), m.MatchForms(CanonicalForms(v)); a != b {
					t.Errorf("key %s want %v value %#v: Match %v, MatchForms %v", key, w, v, a, b)
				}
			}
		}
	}
}

// TestFrontmatterComparedAgreesWithFilter: over every fixture note, the
// precomputable path (FrontmatterCompared → CanonicalForms → MatchForms)
// answers exactly like filter_frontmatter.
func TestFrontmatterComparedAgreesWithFilter(t *testing.T) {
	snap := testEngine(t).Snapshot()
	wants := map[string][]any{
		"tags":    {"recipe", "#recipe", "devops", "cooking", "programming", "syntax-test", "none"},
		"TAG":     {"daily"},
		"aliases": {"sourdough", "levain bread", "k8s", "index"},
		"alias":   {"k8s"},
		"status":  {"done", "DONE", "active"},
		"rating":  {5.0, "4", "4.0"},
		"date":    {"2026-01-15"},
	}
	checked := 0
	for key, ws := range wants {
		for _, w := range ws {
			f, err := ParseFrontmatterFilter(map[string]any{key: w})
			if err != nil {
				t.Fatal(err)
			}
			eq, err := NewFrontmatterEquals(key, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range snap.Notes {
				_, cmp, ok := FrontmatterCompared(n, key)
				got := ok && eq.MatchForms(CanonicalForms(cmp))
				if want := f.Match(n); got != want {
					t.Errorf("%s %s=%v: forms %v, filter %v", n.Path, key, w, got, want)
				}
				if got {
					checked++
				}
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d matches checked", checked)
	}
}

// TestFrontmatterFilterPropertyLinks: a value holding [[links]] matches
// the linked note's name and path as well as its own text.
func TestFrontmatterFilterPropertyLinks(t *testing.T) {
	note, _ := vault.Parse("Albums/Kind of Blue.md", []byte("---\ngenre: \"[[Jazz]]\"\npeople: [\"[[Miles|the trumpet]]\", Evans]\n---\nbody\n"))
	jazz, _ := vault.Parse("Genres/Jazz.md", []byte("# Jazz\n"))
	miles, _ := vault.Parse("People/Miles Davis.md", []byte("---\naliases: [Miles]\n---\n"))
	vault.NewSnapshot(t.TempDir(), []*vault.Note{note, jazz, miles}, nil, nil)
	for _, tt := range []struct {
		filter map[string]any
		ok     bool
	}{
		{map[string]any{"genre": "Jazz"}, true},
		{map[string]any{"genre": "genres/jazz"}, true},
		{map[string]any{"genre": "Genres/Jazz.md"}, true},
		{map[string]any{"genre": "[[Jazz]]"}, true},
		{map[string]any{"GENRE": "jazz"}, true},
		{map[string]any{"genre": "Blues"}, false},
		{map[string]any{"people": "Miles Davis"}, true}, // resolved through the alias
		{map[string]any{"people": "Miles"}, true},
		{map[string]any{"people": "Evans"}, true},
		{map[string]any{"people": "the trumpet"}, false},
	} {
		f, err := ParseFrontmatterFilter(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(note); got != tt.ok {
			t.Errorf("%v matches = %v, want %v", tt.filter, got, tt.ok)
		}
	}
}
