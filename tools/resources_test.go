package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestVaultInfoResource(t *testing.T) {
	for _, tt := range []struct {
		name    string
		srv     func() *Server
		signals []string
		model   string
		write   bool
	}{
		{"tf-idf only", func() *Server { return New(testEngine(t), Options{Version: "test"}) }, []string{"tfidf"}, "", false},
		{"every signal, writes", func() *Server { return New(indexedEngine(t), Options{Version: "test", EnableWrite: true}) }, []string{"tfidf", "bm25", "embeddings"}, "toy (test:toy/12)", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.srv()
			cs := connectTo(t, srv)
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: VaultInfoURI})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
				t.Fatalf("contents %+v", res.Contents)
			}
			var info VaultInfo
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &info); err != nil {
				t.Fatal(err)
			}
			slices.Sort(info.Signals)
			slices.Sort(tt.signals)
			if info.Vault != "vault" || info.NoteCount != len(fixtureNotes(t)) || info.AttachmentCount != 2 || info.PDFCount != 1 ||
				info.PDFsIndexed != 0 || !slices.Equal(info.Signals, tt.signals) || info.EmbeddingModel != tt.model ||
				info.WriteEnabled != tt.write || info.Version != "test" || !strings.Contains(info.NoteResources, "every markdown note") {
				t.Fatalf("info %+v", info)
			}
			// Every available signal has its weight, and so has feedback
			// (the second TF-IDF pass); the toy model is
			// local, so no query text leaves the machine.
			if len(info.SignalWeights) != len(tt.signals)+1 || info.SignalWeights["tfidf"] != 1 || info.SignalWeights["feedback"] != 0.5 || info.QueryTextSentTo != "" {
				t.Fatalf("signal_weights %v, query_text_sent_to %q", info.SignalWeights, info.QueryTextSentTo)
			}
			// BM25's parameters are reported exactly when BM25 runs.
			wantBM25 := slices.Contains(tt.signals, "bm25")
			if (info.BM25 != nil) != wantBM25 || (wantBM25 && (info.BM25.K1 != 1.2 || info.BM25.B != 0.75)) {
				t.Fatalf("bm25 %+v, want parameters %v", info.BM25, wantBM25)
			}
			if !slices.Equal(info.Tools, srv.Registered()) || !slices.Contains(info.Tools, "obsidian_list_notes") || !slices.Contains(info.Tools, "obsidian_read_note") {
				t.Fatalf("tools %q, registered %q", info.Tools, srv.Registered())
			}
		})
	}
}

// TestVaultInfoProximity checks that vault/info says whether term
// proximity votes, and with which weight, next to BM25's parameters.
func TestVaultInfoProximity(t *testing.T) {
	ctx := context.Background()
	ix, err := openIndex(ctx, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, index.SnapshotSource(snap), nil); err != nil {
		t.Fatal(err)
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{Index: ix,
		Weights: map[string]float64{rankers.SignalProximity: 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectTo(t, New(eng, Options{})).ReadResource(ctx, &mcp.ReadResourceParams{URI: VaultInfoURI})
	if err != nil {
		t.Fatal(err)
	}
	var info VaultInfo
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &info); err != nil {
		t.Fatal(err)
	}
	if info.SignalWeights[rankers.SignalProximity] != 0.25 || info.BM25 == nil || info.BM25.B != rankers.BM25B {
		t.Fatalf("signal_weights %v, bm25 %+v: want proximity 0.25 and the default bm25", info.SignalWeights, info.BM25)
	}
}

func TestNoteResourcesList(t *testing.T) {
	cs := connect(t)
	ctx := context.Background()
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := fixtureNotes(t)
	if res.NextCursor != "" || len(res.Resources) != 1+len(all) || res.Resources[0].URI != VaultInfoURI {
		t.Fatalf("%d resources, next %q, first %+v", len(res.Resources), res.NextCursor, res.Resources[0])
	}
	for i, r := range res.Resources[1:] {
		if r.URI != NoteURI(all[i]) || r.MIMEType != "text/markdown" || r.Description != all[i] || r.Name == "" || r.Size == 0 ||
			r.Annotations == nil || r.Annotations.LastModified == "" {
			t.Fatalf("resource %d = %+v, want %s", i, r, all[i])
		}
	}
	byPath := map[string]*mcp.Resource{}
	for _, r := range res.Resources {
		byPath[r.Description] = r
	}
	if r := byPath["Syntax/Unicode NFD.md"]; r.Name != "Unicode Normalisation" {
		t.Fatalf("name is not the title: %+v", r)
	}
	// Every listed URI reads.
	for _, r := range res.Resources {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil || len(got.Contents) != 1 || got.Contents[0].Text == "" && r.URI != VaultInfoURI && r.Description != "Misc/Frontmatter Only.md" {
			t.Fatalf("%s: %v %+v", r.URI, err, got)
		}
	}
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "bm90IG1pbmU"}); err == nil {
		t.Fatal("a foreign cursor was accepted")
	}
}

func TestNoteResourcesPaging(t *testing.T) {
	dir := t.TempDir()
	const total = 1203
	for i := range total {
		writeFile(t, dir, fmt.Sprintf("n/%04d.md", i), fmt.Sprintf("# Note %d\n", i))
	}
	writeFile(t, dir, "n/0500.pdf", "%PDF-1.4 not really") // PDFs are not listed
	srv := New(engineAt(t, dir, time.Now(), vault.Options{PDFs: true}), Options{})
	cs := connectTo(t, srv)
	ctx := context.Background()
	var pages []int
	var uris []string
	cursor := ""
	for {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(res.Resources))
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(pages, []int{1 + noteResourcePage, noteResourcePage, total - 2*noteResourcePage}) {
		t.Fatalf("pages %v", pages)
	}
	if uris[0] != VaultInfoURI || uris[1] != NoteURI("n/0000.md") || uris[len(uris)-1] != NoteURI(fmt.Sprintf("n/%04d.md", total-1)) {
		t.Fatalf("uris %q … %q", uris[:2], uris[len(uris)-1])
	}
	seen := map[string]bool{}
	for _, u := range uris {
		if seen[u] {
			t.Fatalf("%s listed twice", u)
		}
		seen[u] = true
	}
	// The SDK's iterator follows the cursors too.
	n := 0
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(r.URI, ".pdf") {
			t.Fatalf("PDF listed: %s", r.URI)
		}
		n++
	}
	if n != 1+total {
		t.Fatalf("iterator saw %d resources", n)
	}
}

func TestResourceTemplateStays(t *testing.T) {
	tmpl, err := connect(t).ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != NoteURIPrefix+"{+path}" ||
		!strings.Contains(tmpl.ResourceTemplates[0].Description, "resources/list") {
		t.Fatalf("templates %+v, %v", tmpl, err)
	}
}
