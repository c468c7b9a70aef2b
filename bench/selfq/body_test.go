package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// body has 3 sentences of 5–30 words and 30 words in all.
const body = "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda mu nu. " +
	"Xi omicron pi rho sigma tau upsilon phi chi psi omega end. Tail words here"

func TestBodyQuery(t *testing.T) {
	words := strings.Fields(body)
	for _, tc := range []struct {
		kind, body string
		check      func(q string) bool
	}{
		{kindSentence, body, func(q string) bool { return q == "Alpha beta gamma delta epsilon zeta." }},
		{kindRandSent, body, func(q string) bool {
			return strings.Contains(body, q) && strings.HasSuffix(q, ".") && len(strings.Fields(q)) >= 5
		}},
		{kindSpan, body, func(q string) bool {
			return len(strings.Fields(q)) == spanWords && strings.Contains(strings.Join(words, " "), q)
		}},
		{kindTerms, body, func(q string) bool {
			ts := strings.Fields(q)
			for _, w := range ts {
				if len(w) < 4 || !strings.Contains(strings.ToLower(body), w) {
					return false
				}
			}
			return len(ts) == termsN
		}},
		{kindSpan, "too short a body", func(q string) bool { return q == "" }},
		{kindRandSent, strings.Repeat("word ", 25) + "one sentence only here.", func(q string) bool { return q == "" }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			q := bodyQuery(tc.kind, tc.body, 3)
			if !tc.check(q) {
				t.Errorf("bodyQuery(%s) = %q", tc.kind, q)
			}
			if again := bodyQuery(tc.kind, tc.body, 3); again != q {
				t.Errorf("not deterministic: %q then %q", q, again)
			}
		})
	}
}

func TestMaskText(t *testing.T) {
	for _, tc := range []struct {
		raw, q, want string
		found        bool
	}{
		{"a b c d", "b c", "a  d", true},
		{"one\ntwo  three four", "two three", "one\n four", true},
		{"x (y) z", "(y)", "x  z", true},
		{"a b c", "c d", "a b c", false},
	} {
		got, found := maskText(tc.raw, tc.q)
		if got != tc.want || found != tc.found {
			t.Errorf("maskText(%q, %q) = %q, %v; want %q, %v", tc.raw, tc.q, got, found, tc.want, tc.found)
		}
	}
}

// TestBuildBody: one query per note, a text two notes share dropped,
// titles of one word dropped; the masked copy lacks each query's text.
func TestBuildBody(t *testing.T) {
	root := t.TempDir()
	notes := map[string]string{
		"A.md":      "---\ntitle: \"First note title\"\n---\n" + body + "\n",
		"B.md":      "---\ntitle: \"Second note title\"\n---\n" + body + "\n",
		"Single.md": strings.Replace(body, "Alpha", "Omega", 1) + "\n",
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind string
		want []string // answer paths
	}{
		{kindTitle, []string{"A.md", "B.md"}}, // "Single" is one word
		{kindSentence, []string{"Single.md"}}, // A and B share their first sentence
	} {
		t.Run(tc.kind, func(t *testing.T) {
			qs := buildBody(snap, tc.kind, 300)
			var got []string
			for _, q := range qs {
				got = append(got, snap.Notes[q.Target].Path)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("answers %v, want %v", got, tc.want)
			}
			dir := filepath.Join(t.TempDir(), "copy")
			if err := writeMasked(snap, root, dir, qs); err != nil {
				t.Fatal(err)
			}
			for _, q := range qs {
				raw, err := os.ReadFile(filepath.Join(dir, snap.Notes[q.Target].Path))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(raw), q.Text) {
					t.Errorf("%s still holds %q", snap.Notes[q.Target].Path, q.Text)
				}
			}
		})
	}
}
