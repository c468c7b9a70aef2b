package contextpack

import (
	"context"
	"errors"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestTokens(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 3},                         // 11 runes → 3; 2 words → 2.6 → 3
		{"a b c d e f g h i j", 13},                // 10 words → 13
		{"Software/Concurrency Patterns.md", 8},    // 32 runes → 8
		{"東京の散歩", 7},                               // 5 CJK words → 6.5 → 7
		{"https://example.com/a/very/long/url", 9}, // 35 runes → 9
	} {
		if got := Tokens(tt.s); got != tt.want {
			t.Errorf("Tokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	// Subadditive: a concatenation never costs more than its parts.
	parts := []string{"", " ", "\n", "word", "two words ", "寿司", "a/b/c.md", "[page: 2] ", "- `x` → [[y]]\n", "…", "x"}
	for _, a := range parts {
		for _, b := range parts {
			if Tokens(a+b) > Tokens(a)+Tokens(b) {
				t.Errorf("Tokens(%q+%q) = %d > %d + %d", a, b, Tokens(a+b), Tokens(a), Tokens(b))
			}
		}
	}
}

func TestBuildArguments(t *testing.T) {
	snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := search.New(context.Background(), snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		req  Request
		want error
	}{
		{"budget too small", Request{Query: "bread", BudgetTokens: MinBudget - 1}, ErrInvalid},
		{"too many notes", Request{Query: "bread", MaxNotes: MaxNotes + 1}, ErrInvalid},
		{"empty query", Request{Query: " "}, search.ErrInvalid},
		{"fine", Request{Query: "sourdough bread", BudgetTokens: MinBudget}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Build(context.Background(), e, tt.req)
			if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			if p.EstimatedTokens > MinBudget || p.EstimatedTokens != Tokens(p.Bundle) || len(p.Included) == 0 {
				t.Errorf("%d tokens (bundle %d) over %d notes", p.EstimatedTokens, Tokens(p.Bundle), len(p.Included))
			}
		})
	}
}
