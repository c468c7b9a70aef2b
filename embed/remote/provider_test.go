package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

func TestOllamaBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", DefaultOllamaURL + "/api/embed"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434/api/embed"},
		{"http://127.0.0.1:11434/", "http://127.0.0.1:11434/api/embed"},
		{"localhost", "http://localhost:11434/api/embed"},
		{"gpu-box:8080", "http://gpu-box:8080/api/embed"},
		{"0.0.0.0", "http://127.0.0.1:11434/api/embed"},
		{"0.0.0.0:9999", "http://127.0.0.1:9999/api/embed"},
		{":11435", "http://127.0.0.1:11435/api/embed"},
		{"::", "http://[::1]:11434/api/embed"},
		{"[::1]", "http://[::1]:11434/api/embed"},
		{"http://0.0.0.0", "http://127.0.0.1/api/embed"},
		{"http://[::]:1234", "http://[::1]:1234/api/embed"},
		{"https://ollama.example.com/proxy", "https://ollama.example.com/proxy/api/embed"},
		{"example.com/proxy", "http://example.com:11434/proxy/api/embed"},
	}
	for _, tt := range tests {
		o, err := NewOllama(Config{BaseURL: tt.in, Model: "m"})
		if err != nil {
			t.Errorf("NewOllama(%q): %v", tt.in, err)
			continue
		}
		if o.embedURL != tt.want {
			t.Errorf("NewOllama(%q) posts to %q, want %q", tt.in, o.embedURL, tt.want)
		}
	}
}

func TestOpenAIEndpoint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1/embeddings"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/embeddings"},    // llama-server
		{"http://localhost:1234/v1", "http://localhost:1234/v1/embeddings"}, // LM Studio
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/embeddings"},
		{"https://host/v1beta", "https://host/v1beta/embeddings"},
		{"https://host/custom/embeddings", "https://host/custom/embeddings"},
		{"https://host/v1?api-version=2", "https://host/v1/embeddings?api-version=2"},
		{"https://host/vllm", "https://host/vllm/v1/embeddings"},
	}
	for _, tt := range tests {
		o, err := NewOpenAI(Config{BaseURL: tt.in, Model: "m"})
		if err != nil {
			t.Errorf("NewOpenAI(%q): %v", tt.in, err)
			continue
		}
		if o.endpoint != tt.want {
			t.Errorf("NewOpenAI(%q) posts to %q, want %q", tt.in, o.endpoint, tt.want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		p    Provider
		cfg  Config
		want string
	}{
		{"no model", ProviderOllama, Config{}, "Model is required"},
		{"blank model", ProviderOpenAI, Config{Model: " "}, "Model is required"},
		{"negative dim", ProviderOllama, Config{Model: "m", Dim: -1}, "negative"},
		{"bad scheme", ProviderOpenAI, Config{Model: "m", BaseURL: "ftp://x"}, "scheme must be http or https"},
		{"no host", ProviderOpenAI, Config{Model: "m", BaseURL: "http://"}, "no host"},
		{"unknown provider", "cohere", Config{Model: "m"}, "unknown provider"},
	}
	for _, tt := range tests {
		if _, err := New(tt.p, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if e, err := New(ProviderOllama, Config{}); e != nil || err == nil {
		t.Errorf("New on error = %v (non-nil interface?), %v", e, err)
	}
}

func TestProbeAndID(t *testing.T) {
	tests := []struct {
		p            Provider
		dim          int
		before       string
		after        string
		wantProbeErr error
	}{
		{ProviderOllama, 0, "ollama:HOST/nomic-embed-text/0", "ollama:HOST/nomic-embed-text/6", nil},
		{ProviderOllama, 6, "ollama:HOST/nomic-embed-text/6", "ollama:HOST/nomic-embed-text/6", nil},
		{ProviderOllama, 5, "ollama:HOST/nomic-embed-text/5", "ollama:HOST/nomic-embed-text/5", embed.ErrDimension},
		{ProviderOpenAI, 0, "openai:HOST/nomic-embed-text/0", "openai:HOST/nomic-embed-text/6", nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.p, tt.dim), func(t *testing.T) {
			srv := newServer(t, okHandler(tt.p, 6))
			host := strings.TrimPrefix(srv.URL, "http://")
			cfg, _ := testConfig(srv, "nomic-embed-text")
			cfg.Dim = tt.dim
			e := newProvider(t, tt.p, cfg)
			if got, want := e.ID(), strings.Replace(tt.before, "HOST", host, 1); got != want || e.Dim() != tt.dim {
				t.Errorf("before Probe: ID %q Dim %d; want %q, %d", got, e.Dim(), want, tt.dim)
			}
			err := e.Probe(context.Background())
			if !errors.Is(err, tt.wantProbeErr) || (err != nil) != (tt.wantProbeErr != nil) {
				t.Fatalf("Probe = %v, want %v", err, tt.wantProbeErr)
			}
			if got, want := e.ID(), strings.Replace(tt.after, "HOST", host, 1); got != want {
				t.Errorf("after Probe: ID %q, want %q", got, want)
			}
			if r := srv.requests(); len(r) != 1 || !slices.Equal(r[0].Inputs, []string{"search_document: " + probeText}) {
				t.Errorf("probe requests = %+v", r)
			}
		})
	}
}

func TestOllamaLegacyFallback(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r request, _ int) {
		if r.Path == "/api/embed" { // Ollama < 0.3.0: no such route
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(404)
			_, _ = w.Write([]byte("404 page not found"))
			return
		}
		writeJSON(w, 200, map[string]any{"embedding": fakeVec(r.Inputs[0], 4)})
	})
	cfg, _ := testConfig(srv, "m")
	e := newProvider(t, ProviderOllama, cfg)
	for range 2 {
		got, err := e.Embed(context.Background(), []string{"a", "b"}, embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[0], unit(fakeVec("a", 4))) || !slices.Equal(got[1], unit(fakeVec("b", 4))) {
			t.Fatalf("vectors = %v", got)
		}
	}
	var paths []string
	for _, r := range srv.requests() {
		paths = append(paths, r.Path+fmt.Sprint(r.Inputs))
		if r.Path == "/api/embeddings" && (r.Body["prompt"] == nil || r.Body["model"] != "m") {
			t.Errorf("legacy body = %v", r.Body)
		}
	}
	want := []string{"/api/embed[a b]", "/api/embeddings[a]", "/api/embeddings[b]", "/api/embeddings[a]", "/api/embeddings[b]"}
	if !slices.Equal(paths, want) {
		t.Errorf("requests %q, want %q (fallback remembered)", paths, want)
	}
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	const key = "sk-secret-0123456789"
	// A careless server that echoes the Authorization header back.
	srv := newServer(t, func(w http.ResponseWriter, r request, _ int) {
		w.WriteHeader(401)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"bad credentials %s"}}`, r.Header.Get("Authorization"))
	})
	for _, p := range allProviders() {
		cfg, _ := testConfig(srv, "m")
		cfg.APIKey = key
		e := newProvider(t, p, cfg)
		_, err := e.Embed(context.Background(), []string{"a"}, embed.Query)
		var he *HTTPError
		if err == nil || !errors.As(err, &he) || he.StatusCode != 401 {
			t.Fatalf("%s: err = %v, want an HTTP 401", p, err)
		}
		perr := e.Probe(context.Background())
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("config", "cfg", cfg)
		for what, s := range map[string]string{
			"error":       err.Error(),
			"probe error": fmt.Sprint(perr),
			"HTTPError":   he.Message,
			"ID":          e.ID(),
			"embedder %v": fmt.Sprintf("%v %+v", e, e),
			"config %v":   fmt.Sprintf("%v %+v %s", cfg, cfg, cfg),
			"config %#v":  fmt.Sprintf("%#v", cfg),
			"slog":        buf.String(),
			"env config %v": func() string {
				c, _ := FromEnv(p, cfg, func(string) string { return "" })
				return fmt.Sprint(c)
			}(),
		} {
			if strings.Contains(s, key) {
				t.Errorf("%s: %s shows the API key: %s", p, what, s)
			}
		}
		if !strings.Contains(err.Error(), "bad credentials Bearer [redacted]") {
			t.Errorf("%s: err = %q, want the redacted server message", p, err)
		}
	}
}

func TestRedactedNetworkError(t *testing.T) {
	const key = "127.0.0.1" // a "key" that does appear in the dial error
	srv := newServer(t, ollamaOK(3))
	cfg, _ := testConfig(srv, "m")
	srv.Close()
	cfg.APIKey, cfg.MaxRetries = key, -1
	e := newProvider(t, ProviderOpenAI, cfg)
	_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	srv := newServer(t, okHandler(ProviderOpenAI, 4))
	cfg, _ := testConfig(srv, "m")
	cfg.BatchSize = 2
	e := newProvider(t, ProviderOpenAI, cfg)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			texts := []string{fmt.Sprint(g, "a"), fmt.Sprint(g, "b"), fmt.Sprint(g, "c")}
			got, err := e.Embed(context.Background(), texts, embed.Document)
			if err == nil && !slices.Equal(got[2], unit(fakeVec(texts[2], 4))) {
				err = fmt.Errorf("goroutine %d: wrong vector", g)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if e.Dim() != 4 {
		t.Errorf("Dim = %d", e.Dim())
	}
}

func TestOllamaLegacyErrors(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r request, _ int) {
		w.WriteHeader(404)
		_, _ = w.Write([]byte("<html>nginx: not found</html>"))
	})
	cfg, _ := testConfig(srv, "m")
	e := newProvider(t, ProviderOllama, cfg)
	_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
	if err == nil || !strings.Contains(err.Error(), "/api/embeddings (the server has no /api/embed): HTTP 404 Not Found: <html>nginx") {
		t.Fatalf("err = %v", err)
	}
}

func TestResponseTooLarge(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ request, _ int) {
		_, _ = w.Write([]byte(`{"embeddings":[[` + strings.Repeat("0.1,", int(maxResponse(1))/4) + `1]]}`))
	})
	cfg, _ := testConfig(srv, "m")
	e := newProvider(t, ProviderOllama, cfg)
	_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
	if err == nil || !strings.Contains(err.Error(), "response larger than") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRealClock(t *testing.T) {
	var c realClock
	if c.Now().IsZero() {
		t.Error("Now is zero")
	}
	if err := c.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Error(err)
	}
	if err := c.Sleep(context.Background(), 0); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
}
