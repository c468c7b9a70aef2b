package search

import (
	"context"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestPDFHits: with PDFs included, the fixture's two-page paper is a
// searchable document whose hits carry kind "pdf" and the page.
func TestPDFHits(t *testing.T) {
	snap, err := vault.Load(context.Background(), fixtureVault, vault.Options{PDFs: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), snap, analysis.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, gran := range []string{GranularityNote, GranularityBlock} {
		res := mustSearch(t, e, Request{Query: "placeholder paper page two", Granularity: gran})
		if len(res.Hits) == 0 {
			t.Fatalf("%s: no hits", gran)
		}
		h := res.Hits[0]
		if h.Path != "Attachments/paper.pdf" || h.Kind != "pdf" || h.Page != 2 || h.LineStart != 0 ||
			!strings.HasPrefix(h.Snippet, "[page: 2] ") || !strings.Contains(h.Snippet, "**two**") {
			t.Fatalf("%s: top hit %+v", gran, h)
		}
	}
	// A markdown note linking the PDF links a document now.
	p, _ := snap.NoteID("Attachments/paper.pdf")
	if e.Graph().InDegree(p) != 2 {
		t.Fatalf("paper.pdf in-degree %d, want 2 (Wikilinks and Embeds)", e.Graph().InDegree(p))
	}
	// Without the option, PDFs are attachments only.
	plain := mustSearch(t, testEngine(t), Request{Query: "placeholder paper page two"})
	for _, h := range plain.Hits {
		if h.Kind != "md" {
			t.Fatalf("PDF hit without PDFs enabled: %+v", h)
		}
	}
}
