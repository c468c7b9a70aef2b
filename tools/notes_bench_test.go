package tools

import (
	"context"
	"testing"
)

// BenchmarkListNotesHandler times the listing itself, without the MCP
// round trip (JSON encoding, schema validation).
func BenchmarkListNotesHandler(b *testing.B) {
	e := benchEngine(b)
	srv := New(e, Options{})
	orders := &noteOrderCache{}
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		in   ListNotesInput
	}{
		{"default", ListNotesInput{}},
		{"title", ListNotesInput{Sort: "title"}},
		{"since-500", ListNotesInput{ModifiedSince: "2000-01-01", Sort: "path", Limit: 500}},
		{"tag+fm", ListNotesInput{Tag: "type", FilterFrontmatter: map[string]any{"tags": "type/concept"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := srv.listNotes(ctx, orders, bc.in); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := srv.listNotes(ctx, orders, bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
