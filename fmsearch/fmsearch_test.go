package fmsearch

import (
	"context"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestSearchPages: a key matched whatever its case, the three conditions,
// and pages that follow one another by cursor.
func TestSearchPages(t *testing.T) {
	dir := vaulttest.Write(t, map[string]string{
		"a.md": "---\nStatus: Done\n---\n",
		"b.md": "---\nstatus: [doing, done]\n---\n",
		"c.md": "---\nstatus: todo\n---\n",
		"d.md": "no frontmatter\n",
	})
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := New(snap)
	yes := true
	for _, tt := range []struct {
		name string
		q    Query
		want []string
	}{
		{"exists", Query{Key: "STATUS", Exists: &yes}, []string{"a.md", "b.md", "c.md"}},
		{"equals", Query{Key: "status", Equals: "done"}, []string{"a.md", "b.md"}},
		{"contains", Query{Key: "status", Contains: "do"}, []string{"a.md", "b.md", "c.md"}},
		{"contains in a list", Query{Key: "status", Contains: "doing"}, []string{"b.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			q := tt.q
			q.Limit = 1
			for page := 0; ; page++ {
				r, err := x.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if r.Total != len(tt.want) {
					t.Fatalf("total %d, want %d", r.Total, len(tt.want))
				}
				for _, m := range r.Matches {
					got = append(got, m.Note.Path)
				}
				if r.NextCursor == "" || page > len(tt.want) {
					break
				}
				q.Cursor = r.NextCursor
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("pages hold %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := x.Search(context.Background(), Query{Key: "status"}); err == nil {
		t.Error("a query without a condition was accepted")
	}
}
