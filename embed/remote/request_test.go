package remote

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

func TestRequestShape(t *testing.T) {
	tests := []struct {
		name     string
		provider Provider
		key      string
		path     string
		wantBody map[string]any
	}{
		{"ollama", ProviderOllama, "", "/api/embed",
			map[string]any{"model": "all-minilm", "input": []any{"a", "b"}}},
		{"ollama with key", ProviderOllama, "sk-ollama", "/api/embed",
			map[string]any{"model": "all-minilm", "input": []any{"a", "b"}}},
		{"openai", ProviderOpenAI, "", "/v1/embeddings",
			map[string]any{"model": "all-minilm", "input": []any{"a", "b"}, "encoding_format": "float"}},
		{"openai with key", ProviderOpenAI, "sk-test-123", "/v1/embeddings",
			map[string]any{"model": "all-minilm", "input": []any{"a", "b"}, "encoding_format": "float"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, okHandler(tt.provider, 4))
			cfg, _ := testConfig(srv, "all-minilm")
			cfg.APIKey = tt.key
			e := newProvider(t, tt.provider, cfg)
			got, err := e.Embed(context.Background(), []string{"a", "b"}, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || !reflect.DeepEqual(got[0], unit(fakeVec("a", 4))) || !reflect.DeepEqual(got[1], unit(fakeVec("b", 4))) {
				t.Errorf("vectors = %v", got)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Path != tt.path {
				t.Errorf("request %s %s, want POST %s", r.Method, r.Path, tt.path)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if a := r.Header.Get("Authorization"); a != wantAuth {
				t.Errorf("Authorization = %q, want %q", a, wantAuth)
			}
			if !reflect.DeepEqual(r.Body, tt.wantBody) {
				t.Errorf("body = %v, want %v", r.Body, tt.wantBody)
			}
		})
	}
}

func TestBatching(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		batch    int
		maxBytes int
		textLen  int
		want     int // requests
	}{
		{"empty", 0, 64, 0, 5, 0},
		{"one", 1, 64, 0, 5, 1},
		{"exactly one batch", 64, 64, 0, 5, 1},
		{"one over", 65, 64, 0, 5, 2},
		{"three batches", 130, 64, 0, 5, 3},
		{"batch of 7", 50, 7, 0, 5, 8},
		{"bytes cap", 10, 64, 100, 40, 5}, // (40+3)·2 ≤ 100 < (40+3)·3
		{"text bigger than cap goes alone", 3, 64, 10, 40, 3},
	}
	for _, p := range allProviders() {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%s", p, tt.name), func(t *testing.T) {
				srv := newServer(t, okHandler(p, 8))
				cfg, _ := testConfig(srv, "m")
				cfg.BatchSize, cfg.MaxBatchBytes = tt.batch, tt.maxBytes
				e := newProvider(t, p, cfg)
				texts := make([]string, tt.n)
				for i := range texts {
					texts[i] = fmt.Sprintf("%0*d", tt.textLen, i)
				}
				got, err := e.Embed(context.Background(), texts, embed.Document)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tt.n {
					t.Fatalf("%d vectors for %d texts", len(got), tt.n)
				}
				for i, s := range texts {
					if !reflect.DeepEqual(got[i], unit(fakeVec(s, 8))) {
						t.Fatalf("vector %d is not the embedding of %q", i, s)
					}
				}
				reqs := srv.requests()
				if len(reqs) != tt.want {
					t.Fatalf("%d requests, want %d", len(reqs), tt.want)
				}
				var sent []string
				for _, r := range reqs {
					if len(r.Inputs) > tt.batch {
						t.Errorf("request with %d inputs > batch size %d", len(r.Inputs), tt.batch)
					}
					sent = append(sent, r.Inputs...)
				}
				if !slices.Equal(sent, texts) && !(len(sent) == 0 && len(texts) == 0) {
					t.Errorf("sent %v, want %v", sent, texts)
				}
			})
		}
	}
}

func TestOpenAIReorderedAnswer(t *testing.T) {
	srv := newServer(t, openaiOK(5, true))
	cfg, _ := testConfig(srv, "m")
	e := newProvider(t, ProviderOpenAI, cfg)
	texts := []string{"alpha", "beta", "gamma", "delta"}
	got, err := e.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if !reflect.DeepEqual(got[i], unit(fakeVec(s, 5))) {
			t.Errorf("vector %d is not the embedding of %q", i, s)
		}
	}
}

func TestOpenAIBadAnswers(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string // in the error; "" means success
		wantVec [][]float32
	}{
		{"no index: positional", `{"data":[{"embedding":[1,0]},{"embedding":[0,2]}]}`, "", [][]float32{{1, 0}, {0, 1}}},
		{"repeated index", `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,2]}]}`, "bad or repeated index 0", nil},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,0]},{"index":2,"embedding":[0,2]}]}`, "bad or repeated index 2", nil},
		{"too few", `{"data":[{"index":0,"embedding":[1,0]}]}`, "returned 1 embeddings for 2 texts", nil},
		{"null embedding", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":null}]}`, "empty vector", nil},
		{"no data", `{"object":"list"}`, "returned 0 embeddings for 2 texts", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, _ request, _ int) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tt.body))
			})
			cfg, _ := testConfig(srv, "m")
			e := newProvider(t, ProviderOpenAI, cfg)
			got, err := e.Embed(context.Background(), []string{"x", "y"}, embed.Document)
			if tt.want == "" {
				if err != nil || !reflect.DeepEqual(got, tt.wantVec) {
					t.Fatalf("got %v, %v; want %v", got, err, tt.wantVec)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("%d requests, want 1 (no retry)", n)
			}
		})
	}
}

func TestVectorChecks(t *testing.T) {
	tests := []struct {
		name    string
		dim     int // Config.Dim
		bodies  []string
		texts   int
		batch   int
		wantErr error
		wantMsg string
		want    [][]float32
	}{
		{name: "zero vector as is", bodies: []string{`{"embeddings":[[0,0,0],[3,0,4]]}`}, texts: 2,
			want: [][]float32{{0, 0, 0}, {0.6, 0, 0.8}}},
		{name: "expected dim matches", dim: 2, bodies: []string{`{"embeddings":[[3,4]]}`}, texts: 1,
			want: [][]float32{{0.6, 0.8}}},
		{name: "expected dim differs", dim: 4, bodies: []string{`{"embeddings":[[3,4]]}`}, texts: 1,
			wantErr: embed.ErrDimension, wantMsg: "got 2 values, want 4"},
		{name: "mixed dims in one answer", bodies: []string{`{"embeddings":[[1,2,3],[1,2]]}`}, texts: 2,
			wantErr: embed.ErrDimension, wantMsg: "embedding 1"},
		{name: "dim changes mid-stream", batch: 1, texts: 3,
			bodies:  []string{`{"embeddings":[[1,2,3]]}`, `{"embeddings":[[1,2,3]]}`, `{"embeddings":[[1,2,3,4]]}`},
			wantErr: embed.ErrDimension, wantMsg: "batch 3/3"},
		{name: "empty vector", bodies: []string{`{"embeddings":[[]]}`}, texts: 1,
			wantErr: embed.ErrDimension, wantMsg: "empty vector"},
		{name: "too big for float32", bodies: []string{`{"embeddings":[[1e39,1]]}`}, texts: 1,
			wantErr: ErrNonFinite},
		{name: "NaN literal", bodies: []string{`{"embeddings":[[NaN,1]]}`}, texts: 1,
			wantMsg: "decoding /api/embed response"},
		{name: "malformed JSON", bodies: []string{`{"embeddings":[[1,2]`}, texts: 1,
			wantMsg: "decoding /api/embed response"},
		{name: "HTML", bodies: []string{`<html>hello</html>`}, texts: 1,
			wantMsg: "decoding /api/embed response"},
		{name: "wrong count", bodies: []string{`{"embeddings":[[1,2]]}`}, texts: 2,
			wantMsg: "returned 1 embeddings for 2 texts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, _ request, n int) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tt.bodies[min(n, len(tt.bodies)-1)]))
			})
			cfg, _ := testConfig(srv, "m")
			cfg.Dim, cfg.BatchSize = tt.dim, tt.batch
			e := newProvider(t, ProviderOllama, cfg)
			texts := make([]string, tt.texts)
			for i := range texts {
				texts[i] = fmt.Sprint("t", i)
			}
			got, err := e.Embed(context.Background(), texts, embed.Document)
			if tt.wantErr == nil && tt.wantMsg == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !approxEqual(got, tt.want) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, got %v", got)
			}
			if tt.wantErr != nil && !errorsIs(err, tt.wantErr) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantMsg)
			}
			if n, want := len(srv.requests()), max(1, len(tt.bodies)); n != want {
				t.Errorf("%d requests, want %d (no retry)", n, want)
			}
		})
	}
}

func approxEqual(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Abs(float64(a[i][j]-b[i][j])) > 1e-6 {
				return false
			}
		}
	}
	return true
}

func TestEmptyAndBlankTexts(t *testing.T) {
	for _, p := range allProviders() {
		t.Run(string(p), func(t *testing.T) {
			srv := newServer(t, okHandler(p, 3))
			cfg, _ := testConfig(srv, "m")
			e := newProvider(t, p, cfg)
			for _, in := range [][]string{nil, {}} {
				got, err := e.Embed(context.Background(), in, embed.Query)
				if err != nil || len(got) != 0 {
					t.Fatalf("Embed(%v) = %v, %v", in, got, err)
				}
			}
			if n := len(srv.requests()); n != 0 {
				t.Fatalf("%d requests for empty input, want 0", n)
			}
			// Blank texts are not sent; with the dimension unknown, one probe
			// learns it.
			got, err := e.Embed(context.Background(), []string{"", "  \n"}, embed.Query)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, [][]float32{{0, 0, 0}, {0, 0, 0}}) {
				t.Errorf("blank texts = %v, want zero vectors", got)
			}
			got, err = e.Embed(context.Background(), []string{"x", "", "y"}, embed.Query)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[1], []float32{0, 0, 0}) || !reflect.DeepEqual(got[2], unit(fakeVec("y", 3))) {
				t.Errorf("mixed = %v", got)
			}
			reqs := srv.requests()
			if len(reqs) != 2 || !slices.Equal(reqs[1].Inputs, []string{"x", "y"}) {
				t.Errorf("requests = %+v, want a probe then [x y]", reqs)
			}
		})
	}
}

func TestTruncation(t *testing.T) {
	srv := newServer(t, ollamaOK(3))
	cfg, _ := testConfig(srv, "nomic-embed-text")
	cfg.MaxChars = 5
	e := newProvider(t, ProviderOllama, cfg)
	if _, err := e.Embed(context.Background(), []string{"héllo wörld", "abc"}, embed.Document); err != nil {
		t.Fatal(err)
	}
	want := []string{"search_document: héllo", "search_document: abc"}
	if got := srv.requests()[0].Inputs; !slices.Equal(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
}
