// Package queries makes benchmark queries from a vault itself, so that
// every benchmark program times the same realistic mix.
package queries

import (
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// FromVault returns up to n queries, deterministically: one to three
// words of every k-th note's title, or of the first line of its body
// that says something.
func FromVault(s *vault.Snapshot, n int) []string {
	var out []string
	step := max(1, len(s.Notes)/n)
	for i := 0; i < len(s.Notes) && len(out) < n; i += step {
		note := s.Notes[i]
		words := strings.Fields(note.Title)
		if i%2 == 1 {
			words = strings.Fields(firstLine(note.Body))
		}
		if len(words) == 0 {
			continue
		}
		out = append(out, strings.Join(words[:min(len(words), 1+i%3)], " "))
	}
	return out
}

func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.Trim(l, "#-*>")); len(l) > 10 {
			return l
		}
	}
	return ""
}
