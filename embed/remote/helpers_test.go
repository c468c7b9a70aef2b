package remote

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Both providers are embed.Embedders and Embedders.
var (
	_ embed.Embedder = (*Ollama)(nil)
	_ embed.Embedder = (*OpenAI)(nil)
	_ Embedder       = (*Ollama)(nil)
	_ Embedder       = (*OpenAI)(nil)
)

// fakeClock records sleeps and returns at once.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// request is what a test server saw.
type request struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
	Inputs       []string
	Ctx          context.Context // done when the client goes away
}

// server is an httptest server on 127.0.0.1 that records requests and
// answers with handle(w, r, n), n counting requests from 0.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newServer(t *testing.T, handle func(w http.ResponseWriter, r request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Ctx: r.Context()}
		_ = json.Unmarshal(raw, &rec.Body)
		switch in := rec.Body["input"].(type) {
		case []any:
			for _, x := range in {
				s, _ := x.(string)
				rec.Inputs = append(rec.Inputs, s)
			}
		}
		if p, ok := rec.Body["prompt"].(string); ok {
			rec.Inputs = []string{p}
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
		handle(w, rec, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// fakeVec is the deterministic raw embedding of text.
func fakeVec(text string, dim int) []float64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	x := h.Sum64()
	v := make([]float64, dim)
	for i := range v {
		v[i] = float64(int64(x>>(i%8*8))&0xff) - 127.5
	}
	return v
}

// unit is fakeVec normalised as float32.
func unit(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / math.Sqrt(ss))
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ollamaOK answers /api/embed with fakeVec of each input.
func ollamaOK(dim int) func(http.ResponseWriter, request, int) {
	return func(w http.ResponseWriter, r request, _ int) {
		embs := make([][]float64, len(r.Inputs))
		for i, s := range r.Inputs {
			embs[i] = fakeVec(s, dim)
		}
		writeJSON(w, 200, map[string]any{"model": r.Body["model"], "embeddings": embs})
	}
}

// openaiOK answers /v1/embeddings with fakeVec of each input, in reverse
// order when reverse is set.
func openaiOK(dim int, reverse bool) func(http.ResponseWriter, request, int) {
	return func(w http.ResponseWriter, r request, _ int) {
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]item, len(r.Inputs))
		for i, s := range r.Inputs {
			j := i
			if reverse {
				j = len(r.Inputs) - 1 - i
			}
			data[j] = item{"embedding", i, fakeVec(s, dim)}
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": r.Body["model"]})
	}
}

// testConfig is a Config for srv with a fake clock and no jitter.
func testConfig(srv *server, model string) (Config, *fakeClock) {
	clk := newFakeClock()
	return Config{
		BaseURL: srv.URL,
		Model:   model,
		Clock:   clk,
		Jitter:  func() float64 { return 0 },
		Timeout: 5 * time.Second,
	}, clk
}

// newProvider builds p's embedder for cfg or fails the test.
func newProvider(t *testing.T, p Provider, cfg Config) Embedder {
	t.Helper()
	e, err := New(p, cfg)
	if err != nil {
		t.Fatalf("New(%s): %v", p, err)
	}
	return e
}

// okHandler is the success handler for p.
func okHandler(p Provider, dim int) func(http.ResponseWriter, request, int) {
	if p == ProviderOllama {
		return ollamaOK(dim)
	}
	return openaiOK(dim, false)
}

func allProviders() []Provider { return []Provider{ProviderOllama, ProviderOpenAI} }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// hang blocks until the client gives up on r (or 10s pass).
func hang(r request) {
	select {
	case <-r.Ctx.Done():
	case <-time.After(10 * time.Second):
	}
}
