package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

var update = flag.Bool("update", false, "rewrite the schema snapshots in testdata/schemas")

var (
	engineOnce sync.Once
	engine     *search.Engine
	engineErr  error

	indexedOnce sync.Once
	indexed     *search.Engine
	indexedErr  error
	indexedDir  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if indexedDir != "" {
		os.RemoveAll(indexedDir)
	}
	os.Exit(code)
}

// indexedEngine searches the fixture with the persistent index and toy
// embeddings (every signal and every tool), built once in a temporary
// folder.
func indexedEngine(t *testing.T) *search.Engine {
	t.Helper()
	indexedOnce.Do(func() {
		indexedDir, indexedErr = os.MkdirTemp("", "tools-index-*")
		if indexedErr != nil {
			return
		}
		var ix *index.Index
		if ix, indexedErr = openIndex(context.Background(), "../testdata/vault", filepath.Join(indexedDir, "ix.db")); indexedErr == nil {
			indexed, indexedErr = indexedAt(context.Background(), "../testdata/vault", ix)
		}
	})
	if indexedErr != nil {
		t.Fatal(indexedErr)
	}
	return indexed
}

// openIndex opens (creating) the index file of the vault at root.
func openIndex(ctx context.Context, root, file string) (*index.Index, error) {
	real, err := vault.RealRoot(root)
	if err != nil {
		return nil, err
	}
	return index.Open(ctx, file, index.NewSettings(real, false, chunk.DefaultOptions), false)
}

// indexedAt loads the vault at root, brings ix and its toy embeddings up
// to date, and builds an engine with every signal, as the CLI's serve
// does on start and on reload.
func indexedAt(ctx context.Context, root string, ix *index.Index) (*search.Engine, error) {
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		return nil, err
	}
	src := index.SnapshotSource(snap)
	if _, err := ix.Sync(ctx, src, nil); err != nil {
		return nil, err
	}
	model := &embedtest.Model{Name: "toy"}
	if _, err := ix.Vectors().Build(ctx, src, model, "toy", 0, nil); err != nil {
		return nil, err
	}
	return search.New(ctx, snap, analysis.New(), search.Options{Index: ix, Embedder: model, EmbedderAlias: "toy"})
}

func testEngine(t *testing.T) *search.Engine {
	t.Helper()
	engineOnce.Do(func() {
		snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
		if err != nil {
			engineErr = err
			return
		}
		engine, engineErr = search.New(context.Background(), snap, analysis.New(), search.Options{})
	})
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engine
}

// connect starts the server on an in-memory transport and returns a
// client session.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connectTo(t, New(testEngine(t), Options{Version: "test"}))
}

func connectTo(t *testing.T, srv *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v (bad input must be a tool error)", tool, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decode reads the structured content and checks the text content carries
// the same JSON.
func decode[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	var fromText T
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Fatalf("text content is not the JSON result: %v", err)
	}
	a, _ := json.Marshal(out)
	b, _ := json.Marshal(fromText)
	if !bytes.Equal(a, b) {
		t.Fatalf("text content and structured content differ:\n%s\n%s", a, b)
	}
	return out
}

// TestToolSchemasSnapshot fails when a tool's contract changes; run
// `go test ./tools -run Snapshot -update` to accept a deliberate change.
func TestToolSchemasSnapshot(t *testing.T) {
	cs := connectTo(t, New(indexedEngine(t), Options{Version: "test", EnableWrite: true}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("no tools")
	}
	snapshots, err := filepath.Glob(filepath.Join("testdata", "schemas", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range res.Tools {
		listed[tool.Name] = true
	}
	for _, p := range snapshots {
		if name := strings.TrimSuffix(filepath.Base(p), ".json"); !listed[name] && !*update {
			t.Errorf("snapshot %s has no tool: a tool was removed or renamed (delete the file if deliberate)", p)
		}
	}
	for _, tool := range res.Tools {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		assertNoTuples(t, tool.Name, tool.InputSchema)
		assertNoTuples(t, tool.Name, tool.OutputSchema)
		path := filepath.Join("testdata", "schemas", tool.Name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: no snapshot (%v); run go test ./tools -run Snapshot -update", tool.Name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: schema changed; if deliberate, run go test ./tools -run Snapshot -update\ngot:\n%s", tool.Name, got)
		}
	}
}

// assertNoTuples rejects array-form "items" and "prefixItems": several MCP
// clients refuse a whole server over one tuple schema.
func assertNoTuples(t *testing.T, tool string, schema any) {
	t.Helper()
	raw, _ := json.Marshal(schema)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "prefixItems" {
					t.Errorf("%s: tuple schema at %s", tool, path)
				}
				if _, isList := e.([]any); isList && k == "items" {
					t.Errorf("%s: tuple schema at %s.items", tool, path)
				}
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path, e)
			}
		}
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	walk(tool, v)
}

func TestToolsAreReadOnly(t *testing.T) {
	res, err := connectTo(t, New(indexedEngine(t), Options{Version: "test"})).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations = %+v, want read-only, idempotent, closed-world", tool.Name, a)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
}

func TestSearchTool(t *testing.T) {
	cs := connect(t)
	out := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "levain hydration"}))
	if out.Method != "rrf" || out.K != 60 || out.Query != "levain hydration" {
		t.Fatalf("header = %+v", out)
	}
	if !slices.Equal(out.SignalsUsed, []string{"tfidf", "feedback"}) {
		t.Fatalf("signals_used = %q", out.SignalsUsed)
	}
	if len(out.Matches) == 0 || out.Matches[0].Path != "Cooking/Sourdough Bread.md" {
		t.Fatalf("matches = %+v", out.Matches)
	}
	m := out.Matches[0]
	if m.Kind != "md" || m.PerSignal.TFIDF == nil || m.PerSignal.TFIDF.Rank != 1 || m.PerSignal.BM25 != nil ||
		m.LineStart == 0 || !strings.Contains(m.Snippet, "**") || m.AgeDays < 0 || m.Title != "Sourdough Bread" {
		t.Fatalf("match = %+v", m)
	}
}

func TestSearchToolArguments(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string // "" = success
		check   func(t *testing.T, out SearchOutput)
	}{
		{name: "limit", args: map[string]any{"query": "the bread starter goroutines", "limit": 2},
			check: func(t *testing.T, out SearchOutput) {
				if len(out.Matches) != 2 || out.TotalCandidates <= 2 {
					t.Fatalf("%d matches of %d", len(out.Matches), out.TotalCandidates)
				}
			}},
		{name: "folder and frontmatter", args: map[string]any{"query": "bread pasta knife", "folder": "Cooking", "filter_frontmatter": map[string]any{"tags": []any{"recipe"}, "rating": 5}},
			check: func(t *testing.T, out SearchOutput) {
				if len(out.Matches) != 1 || out.Matches[0].Path != "Cooking/Sourdough Bread.md" {
					t.Fatalf("matches = %+v", out.Matches)
				}
			}},
		{name: "block granularity", args: map[string]any{"query": "fan-in", "granularity": "block", "graph_boost": false},
			check: func(t *testing.T, out SearchOutput) {
				if len(out.Matches) == 0 || out.Matches[0].LineStart == 0 || out.Matches[0].LineEnd < out.Matches[0].LineStart {
					t.Fatalf("matches = %+v", out.Matches)
				}
			}},
		{name: "unknown arguments are ignored", args: map[string]any{"query": "bread", "explain": true, "queries": []any{"x"}},
			check: func(t *testing.T, out SearchOutput) {
				if len(out.Matches) == 0 {
					t.Fatal("no matches")
				}
			}},
		{name: "no matches is not an error", args: map[string]any{"query": "xylophonezzz"},
			check: func(t *testing.T, out SearchOutput) {
				if out.Matches == nil || len(out.Matches) != 0 {
					t.Fatalf("matches = %#v, want []", out.Matches)
				}
			}},
		{name: "missing query", args: map[string]any{}, wantErr: "query"},
		{name: "empty query", args: map[string]any{"query": ""}, wantErr: "query"},
		{name: "blank query", args: map[string]any{"query": "   "}, wantErr: "query is empty"},
		{name: "limit too big", args: map[string]any{"query": "x", "limit": 500}, wantErr: "limit"},
		{name: "limit zero", args: map[string]any{"query": "x", "limit": 0}, wantErr: "limit"},
		{name: "min_signals too big", args: map[string]any{"query": "x", "min_signals": 9}, wantErr: "min_signals"},
		{name: "bad granularity", args: map[string]any{"query": "x", "granularity": "page"}, wantErr: "granularity"},
		{name: "object filter value", args: map[string]any{"query": "x", "filter_frontmatter": map[string]any{"a": map[string]any{"b": 1}}}, wantErr: "filter_frontmatter"},
		{name: "query too long", args: map[string]any{"query": strings.Repeat("q", 4097)}, wantErr: "query"},
		{name: "wrong type", args: map[string]any{"query": 42}, wantErr: "query"},
		{name: "folder escaping the vault", args: map[string]any{"query": "x", "folder": "../.."}, wantErr: "folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_search", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(text(res), tt.wantErr) {
					t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.wantErr)
				}
				return
			}
			tt.check(t, decode[SearchOutput](t, res))
		})
	}
}

func TestReadNoteTool(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name string
		args map[string]any
		want string // path
	}{
		{"path", map[string]any{"path": "Software/Kubernetes.md"}, "Software/Kubernetes.md"},
		{"path without .md", map[string]any{"path": "Software/Kubernetes"}, "Software/Kubernetes.md"},
		{"path case-insensitive", map[string]any{"path": "software/kubernetes.md"}, "Software/Kubernetes.md"},
		{"name", map[string]any{"title": "Kubernetes"}, "Software/Kubernetes.md"},
		{"alias", map[string]any{"title": "K8s"}, "Software/Kubernetes.md"},
		{"frontmatter title", map[string]any{"title": "Unicode Normalisation"}, "Syntax/Unicode NFD.md"},
		{"wikilink with heading", map[string]any{"title": "Sourdough"}, "Cooking/Sourdough Bread.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", tt.args))
			if out.Path != tt.want {
				t.Fatalf("path = %s, want %s", out.Path, tt.want)
			}
		})
	}
	out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Syntax/Wikilinks.md"}))
	statuses := map[string]string{}
	for _, l := range out.Links {
		statuses[l.Target] = l.Status + " " + l.Resolved
	}
	for target, want := range map[string]string{
		"Nonexistent Note": "unresolved ",
		"K8s":              "note Software/Kubernetes.md",
		"diagram.png":      "attachment Attachments/diagram.png",
	} {
		if statuses[target] != want {
			t.Errorf("link %q = %q, want %q", target, statuses[target], want)
		}
	}
	if len(out.Headings) == 0 || out.Headings[0].Line == 0 || !strings.Contains(out.Body, "[[Photosynthesis]]") {
		t.Errorf("headings %+v / body missing", out.Headings)
	}
}

func TestReadNoteMisses(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"suggests close titles", map[string]any{"title": "Kubernets"}, "did you mean: Software/Kubernetes.md"},
		{"escape with dots", map[string]any{"path": "../../../etc/passwd"}, `note not found: "../../../etc/passwd"`},
		{"absolute path", map[string]any{"path": "/etc/passwd"}, `note not found: "/etc/passwd"`},
		{"hidden folder", map[string]any{"path": ".obsidian/workspace.md"}, "note not found"},
		{"node_modules", map[string]any{"path": "node_modules/pkg/readme.md"}, "note not found"},
		{"attachment is not a note", map[string]any{"path": "Attachments/paper.pdf"}, "note not found"},
		{"neither", map[string]any{}, "give path or title"},
		{"both", map[string]any{"path": "Home.md", "title": "Home"}, "not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_read_note", tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want %q", res.IsError, text(res), tt.want)
			}
		})
	}
}

func TestNoteResource(t *testing.T) {
	cs := connect(t)
	ctx := context.Background()
	for _, uri := range []string{
		NoteURI("Cooking/Sourdough Bread.md"),
		"obsidian://note/Cooking%2FSourdough%20Bread.md",
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "levain") || !strings.HasPrefix(res.Contents[0].Text, "---") {
			t.Fatalf("%s: contents = %+v", uri, res.Contents)
		}
	}
	for _, uri := range []string{"obsidian://note/Nope.md", "obsidian://note/..%2F..%2Fetc%2Fpasswd", "obsidian://note/.obsidian/workspace.md"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read succeeded", uri)
		}
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "obsidian://note/{+path}" {
		t.Fatalf("templates = %+v, %v", tmpl, err)
	}
}

func TestSwapEngine(t *testing.T) {
	srv := New(testEngine(t), Options{})
	cs := connectTo(t, srv)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "only.md"), []byte("zebra crossing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := search.New(context.Background(), snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "zebra"}))
	srv.Swap(e2)
	after := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "zebra"}))
	if len(before.Matches) != 0 || len(after.Matches) != 1 || after.Matches[0].Path != "only.md" {
		t.Fatalf("before swap %+v, after %+v", before.Matches, after.Matches)
	}
}

func TestFullTextToolOnlyWithIndex(t *testing.T) {
	has := func(cs *mcp.ClientSession) bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "obsidian_full_text_search" {
				return true
			}
		}
		return false
	}
	if has(connect(t)) {
		t.Fatal("obsidian_full_text_search listed without an index")
	}
	cs := connectTo(t, New(indexedEngine(t), Options{}))
	if !has(cs) {
		t.Fatal("obsidian_full_text_search missing with an index")
	}
	out := decode[FullTextOutput](t, call(t, cs, "obsidian_full_text_search", map[string]any{"query": `"worker pool" goroutines`}))
	if out.Expression != `"worker pool" OR "goroutines"` || len(out.Hits) == 0 || out.Hits[0].Path != "Software/Concurrency Patterns.md" ||
		out.Hits[0].LineStart == 0 || out.Hits[0].Score <= 0 || !strings.Contains(out.Hits[0].Snippet, "**") {
		t.Fatalf("output %+v", out)
	}
	tagged := decode[FullTextOutput](t, call(t, cs, "obsidian_full_text_search", map[string]any{"query": "bread pasta", "tag": "recipe", "limit": 5}))
	for _, h := range tagged.Hits {
		if !strings.HasPrefix(h.Path, "Cooking/") {
			t.Errorf("tag filter let %s through", h.Path)
		}
	}
	if res := call(t, cs, "obsidian_full_text_search", map[string]any{"query": ""}); !res.IsError {
		t.Error("empty query accepted")
	}
}

func TestSearchToolWithEverySignal(t *testing.T) {
	cs := connectTo(t, New(indexedEngine(t), Options{}))
	out := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "levain hydration", "min_signals": 3}))
	if len(out.SignalsUsed) != 4 || len(out.Matches) == 0 || out.Matches[0].Path != "Cooking/Sourdough Bread.md" {
		t.Fatalf("output %+v", out)
	}
	m := out.Matches[0].PerSignal
	if m.BM25 == nil || m.TFIDF == nil || m.Embeddings == nil || m.Feedback == nil {
		t.Fatalf("per_signal %+v", m)
	}
	res := call(t, cs, "obsidian_search", map[string]any{"query": "bread", "embedding_model": "multilingual"})
	if !res.IsError || !strings.Contains(text(res), "embedding_model") {
		t.Fatalf("a mismatched embedding_model must be a clear tool error: %s", text(res))
	}
}

func TestEmbeddingsTool(t *testing.T) {
	cs := connectTo(t, New(indexedEngine(t), Options{}))
	out := decode[EmbeddingsOutput](t, call(t, cs, "obsidian_embeddings_search", map[string]any{"query": "earthquake", "limit": 3}))
	if out.Model != "toy" || out.ModelID != "test:toy/12" || len(out.Hits) == 0 || out.Hits[0].Path != "Science/Plate Tectonics.md" || out.Hits[0].Cosine <= 0 || out.Hits[0].Chunk != nil {
		t.Fatalf("output %+v", out)
	}
	blocks := decode[EmbeddingsOutput](t, call(t, cs, "obsidian_embeddings_search", map[string]any{"query": "earthquake", "granularity": "block"}))
	if len(blocks.Hits) == 0 || blocks.Hits[0].Chunk == nil || blocks.Hits[0].LineStart == 0 {
		t.Fatalf("blocks %+v", blocks)
	}
}
