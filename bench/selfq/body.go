package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/selftune"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Body-derived query kinds: known-item queries taken from a note's own
// text, for collections without piped links or headings (docs/benchmarks.md,
// "Issue 12, tenth pass"). Experiments only: selftune.Build does not make
// them.
const (
	// kindTitle is the note's title (frontmatter title, else file name).
	kindTitle = "title"
	// kindSentence is the body's first sentence (at most 30 words).
	kindSentence = "sentence"
	// kindSpan is a run of spanWords words at a random place of the body.
	kindSpan = "span"
	// kindTerms is termsN distinct words (≥ 4 bytes) drawn from the body.
	kindTerms = "terms"
	// kindRandSent is a random sentence of 5–30 words (of a body with at
	// least two such): with -mask, an inverse-cloze query.
	kindRandSent = "rsent"
)

// bodyKinds are the kinds buildBody makes.
var bodyKinds = []string{kindTitle, kindSentence, kindSpan, kindTerms, kindRandSent}

const (
	spanWords    = 8
	termsN       = 4
	minBodyWords = 20
)

// buildBody returns at most limit queries of a body kind, one per note,
// with selftune.Build's rules: a text naming more than one note is
// dropped, and a capped sample is drawn with Build's fixed seed and sorted
// as Build sorts it.
func buildBody(snap *vault.Snapshot, kind string, limit int) []selftune.Query {
	var cands []selftune.Query
	targets := map[string]map[int]bool{}
	for i, n := range snap.Notes {
		text := n.Title
		if kind != kindTitle {
			text = bodyQuery(kind, n.Body, i)
		}
		if text == "" || !selftune.EnoughText(text) {
			continue
		}
		key := strings.ToLower(strings.Join(strings.Fields(text), " "))
		if targets[key] == nil {
			targets[key] = map[int]bool{}
			cands = append(cands, selftune.Query{Kind: kind, Text: text, Target: i, Source: i})
		}
		targets[key][i] = true
	}
	var out []selftune.Query
	for _, q := range cands {
		if len(targets[strings.ToLower(strings.Join(strings.Fields(q.Text), " "))]) == 1 {
			out = append(out, q)
		}
	}
	if len(out) > limit {
		r := rand.New(rand.NewPCG(12, 6))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:limit]
		slices.SortFunc(out, func(a, b selftune.Query) int {
			if a.Source != b.Source {
				return a.Source - b.Source
			}
			return strings.Compare(a.Text, b.Text)
		})
	}
	return out
}

// bodyQuery is note i's query of a body kind ("" when its body has fewer
// than minBodyWords words or no fitting text); the randomness is seeded
// by i, so a note always gives the same query.
func bodyQuery(kind, body string, i int) string {
	words := strings.Fields(body)
	if len(words) < minBodyWords {
		return ""
	}
	r := rand.New(rand.NewPCG(uint64(i), 7))
	switch kind {
	case kindSentence:
		var out []string
		for _, w := range words {
			out = append(out, w)
			if strings.HasSuffix(w, ".") && len(out) >= 4 {
				break
			}
		}
		return strings.Join(out[:min(len(out), 30)], " ")
	case kindRandSent:
		var sents []string
		var cur []string
		for _, w := range words {
			cur = append(cur, w)
			if strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!") {
				if len(cur) >= 5 && len(cur) <= 30 {
					sents = append(sents, strings.Join(cur, " "))
				}
				cur = nil
			}
		}
		if len(sents) < 2 {
			return ""
		}
		return sents[r.IntN(len(sents))]
	case kindSpan:
		s := r.IntN(len(words) - spanWords + 1)
		return strings.Join(words[s:s+spanWords], " ")
	case kindTerms:
		var cands []string
		seen := map[string]bool{}
		for _, w := range words {
			w = strings.ToLower(strings.Trim(w, ".,;:()[]\"'"))
			if len(w) >= 4 && !seen[w] {
				seen[w] = true
				cands = append(cands, w)
			}
		}
		if len(cands) < termsN {
			return ""
		}
		r.Shuffle(len(cands), func(a, b int) { cands[a], cands[b] = cands[b], cands[a] })
		return strings.Join(cands[:termsN], " ")
	}
	return ""
}

// writeMasked copies the vault's notes from root to dir, each query's text
// cut out of its target note (a held-out span: the note must be found by
// the rest of its text). A text not found verbatim in the file (the body
// differs from the file's bytes) is reported on stderr and left in place.
func writeMasked(snap *vault.Snapshot, root, dir string, qs []selftune.Query) error {
	masked := map[int]string{}
	for _, q := range qs {
		masked[q.Target] = q.Text
	}
	for i, n := range snap.Notes {
		raw, err := os.ReadFile(filepath.Join(root, n.Path))
		if err != nil {
			return fmt.Errorf("mask: %w", err)
		}
		if t, ok := masked[i]; ok {
			cut, found := maskText(string(raw), t)
			if !found {
				fmt.Fprintf(os.Stderr, "mask: %q not found in %s; left in place\n", t, n.Path)
			}
			raw = []byte(cut)
		}
		dst := filepath.Join(dir, n.Path)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("mask: %w", err)
		}
		if err := os.WriteFile(dst, raw, 0o644); err != nil {
			return fmt.Errorf("mask: %w", err)
		}
	}
	return nil
}

// maskText cuts the first occurrence of q's words (any whitespace between
// them) out of raw; false when they do not occur.
func maskText(raw, q string) (string, bool) {
	fs := strings.Fields(q)
	for i, f := range fs {
		fs[i] = regexp.QuoteMeta(f)
	}
	loc := regexp.MustCompile(strings.Join(fs, `\s+`)).FindStringIndex(raw)
	if loc == nil {
		return raw, false
	}
	return raw[:loc[0]] + raw[loc[1]:], true
}
