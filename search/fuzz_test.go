package search

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRequestNormalize: any obsidian_search arguments are either refused
// with ErrInvalid or normalised into a request the engine can run: a
// trimmed, valid, bounded query, limits in range, a known granularity and
// a folder inside the vault. Error messages stay short whatever the input.
func FuzzRequestNormalize(f *testing.F) {
	f.Add("photosynthesis", "Science", 10, 1, "note", "status", "done", "tfidf")
	f.Add("  ", "", 0, 0, "", "", "", "")
	f.Add("q", "../etc", 101, 4, "block", "k", "", "bm25")
	f.Add("q", "a/../../b", -1, -1, "chunk", "", "x", "vectors")
	f.Add("\xff", "/", 5, 2, "note", "tags", "a", "embeddings")
	f.Add(strings.Repeat("é", MaxQueryRunes+1), "./a//b/", 100, 3, "block", "n", "1", "")
	f.Add("q", `a\b\..\c`, 1, 1, "", "Ω", "ω", "tfidf")
	f.Fuzz(func(t *testing.T, query, folder string, limit, minSignals int, gran, fmKey, fmVal, signal string) {
		r := Request{Query: query, Folder: folder, Limit: limit, MinSignals: minSignals, Granularity: gran}
		if fmKey != "" {
			r.Frontmatter = map[string]any{fmKey: fmVal}
		}
		if signal != "" {
			r.Signals = []string{signal}
		}
		_, err := r.normalize()
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			if max := 300 + len(fmKey) + len(fmVal) + len(folder) + len(gran) + len(signal); len(err.Error()) > max {
				t.Fatalf("error message of %d bytes: %.200s", len(err.Error()), err)
			}
			return
		}
		if r.Query == "" || r.Query != strings.TrimSpace(r.Query) || !utf8.ValidString(r.Query) || utf8.RuneCountInString(r.Query) > MaxQueryRunes {
			t.Fatalf("query %q accepted", r.Query)
		}
		if r.Limit < 1 || r.Limit > MaxLimit || r.MinSignals < 1 || r.MinSignals > MaxMinSignals {
			t.Fatalf("limit %d, min_signals %d accepted", r.Limit, r.MinSignals)
		}
		if r.Granularity != GranularityNote && r.Granularity != GranularityBlock {
			t.Fatalf("granularity %q accepted", r.Granularity)
		}
		if strings.HasPrefix(r.Folder, "/") || r.Folder == ".." || strings.HasPrefix(r.Folder, "../") || strings.Contains(r.Folder, "/../") || strings.HasSuffix(r.Folder, "/..") {
			t.Fatalf("folder %q (from %q) escapes the vault", r.Folder, folder)
		}
	})
}
