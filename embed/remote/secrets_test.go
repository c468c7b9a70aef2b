package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// A server that echoes the bearer token after some padding must not get
// any 8-byte piece of the key into the error, wherever the 512-byte cut
// falls: the key is removed before the message is cut.
func TestAPIKeyCutByTruncation(t *testing.T) {
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqR" // 60 bytes
	for pad := 400; pad <= maxErrorMessage+8; pad++ {
		srv := newServer(t, func(w http.ResponseWriter, r request, _ int) {
			w.WriteHeader(401)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"%s%s"}}`, strings.Repeat("x", pad), r.Header.Get("Authorization"))
		})
		cfg, _ := testConfig(srv, "m")
		cfg.APIKey, cfg.MaxRetries = key, -1
		e := newProvider(t, ProviderOpenAI, cfg)
		_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
		var he *HTTPError
		if !errors.As(err, &he) {
			t.Fatalf("pad %d: err = %v", pad, err)
		}
		if len(he.Message) > maxErrorMessage+len("…") {
			t.Errorf("pad %d: message of %d bytes", pad, len(he.Message))
		}
		for i := 0; i+minKeyPrefix <= len(key); i++ {
			if piece := key[i : i+minKeyPrefix]; strings.Contains(err.Error(), piece) || strings.Contains(he.Message, piece) {
				t.Fatalf("pad %d: key piece %q in %q", pad, piece, he.Message[max(0, len(he.Message)-80):])
			}
		}
		srv.Close()
	}
}

func TestServerMessageRedaction(t *testing.T) {
	red := redactor{"0123456789abcdef"}
	pad := strings.Repeat("p", maxErrorMessage-10)
	tests := []struct{ name, body, want string }{
		{"whole key", `{"error":"bad key 0123456789abcdef"}`, "bad key [redacted]"},
		{"key split by whitespace collapse is not a key", "a\n\n0123456789abcdef", "a [redacted]"},
		{"whole key before the cut", pad + "0123456789abcdef tail", pad + "[redacted]…"},
		// A start of the key (the server cut it, say) that the cut leaves
		// at the end: 10 bytes are removed, 7 are too short to tell.
		{"cut after 10 key bytes", pad + "0123456789ab tail", pad + "[redacted]…"},
		{"cut after 11 key bytes", pad[1:] + "0123456789ab tail", pad[1:] + "[redacted]…"},
		{"cut after 7 key bytes is kept", pad + "xxx0123456789ab", pad + "xxx0123456…"},
	}
	for _, tt := range tests {
		got := serverMessage([]byte(tt.body), red)
		if got != tt.want {
			t.Errorf("%s: got …%q, want …%q", tt.name, got[max(0, len(got)-30):], tt.want[max(0, len(tt.want)-30):])
		}
		if len(got) > maxErrorMessage+len("…") {
			t.Errorf("%s: %d bytes", tt.name, len(got))
		}
	}
}

func TestURLSecretsNotShown(t *testing.T) {
	secrets := []string{"hunter2", "tok3n", "s3cr3tq"}
	tests := []struct {
		p    Provider
		base string
		want string // String() shows
	}{
		{ProviderOpenAI, "https://alice:hunter2@host.example/v1?key=s3cr3tq", "remote.OpenAI(https://alice:xxxxx@host.example/v1/embeddings, m)"},
		{ProviderOpenAI, "https://tok3n@host.example", "remote.OpenAI(https://xxxxx@host.example/v1/embeddings, m)"},
		{ProviderOllama, "http://alice:hunter2@gpu:11434/?token=s3cr3tq", "remote.Ollama(http://alice:xxxxx@gpu:11434/api/embed, m)"},
		{ProviderOllama, "tok3n@gpu:8080", "remote.Ollama(http://xxxxx@gpu:8080/api/embed, m)"},
	}
	for _, tt := range tests {
		cfg := Config{BaseURL: tt.base, Model: "m"}
		e := newProvider(t, tt.p, cfg)
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("config", "cfg", cfg)
		if got := fmt.Sprint(e); got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.base, got, tt.want)
		}
		for what, s := range map[string]string{
			"String":    fmt.Sprintf("%v %+v", e, e),
			"ID":        e.ID(),
			"config %v": fmt.Sprintf("%v %#v", cfg, cfg),
			"slog":      buf.String(),
		} {
			for _, secret := range secrets {
				if strings.Contains(s, secret) {
					t.Errorf("%s: %s shows %q: %s", tt.base, what, secret, s)
				}
			}
		}
	}
	// Nor in the errors of a request that fails, or of a bad URL.
	srv := newServer(t, ollamaOK(3))
	srv.Close()
	for _, p := range allProviders() {
		base := strings.Replace(srv.URL, "http://", "http://alice:hunter2@", 1) + "/?key=s3cr3tq"
		e := newProvider(t, p, Config{BaseURL: base, Model: "m", MaxRetries: -1})
		_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
		if err == nil {
			t.Fatalf("%s: no error from a closed server", p)
		}
		for _, secret := range secrets {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: error shows %q: %v", p, secret, err)
			}
		}
	}
	for _, base := range []string{"http://alice:hunter2@host:port?key=s3cr3tq", "ftp://tok3n@host/?key=s3cr3tq"} {
		_, err := New(ProviderOpenAI, Config{BaseURL: base, Model: "m"})
		if err == nil {
			t.Fatalf("%s accepted", base)
		}
		for _, secret := range secrets {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: error shows %q: %v", base, secret, err)
			}
		}
	}
}

func TestIDVariants(t *testing.T) {
	id := func(p Provider, cfg Config) string {
		cfg.Dim = 4
		if cfg.BaseURL == "" {
			cfg.BaseURL = "http://Gpu-Box:1234"
		}
		return newProvider(t, p, cfg).ID()
	}
	nomic := Config{Model: "nomic-embed-text"}
	plain := id(ProviderOllama, nomic)
	if plain != "ollama:gpu-box:1234/nomic-embed-text/4" {
		t.Errorf("default ID = %q", plain)
	}
	if got := id(ProviderOpenAI, nomic); got != "openai:gpu-box:1234/nomic-embed-text/4" {
		t.Errorf("default OpenAI ID = %q", got)
	}
	same := []Config{
		{Model: "nomic-embed-text", QueryPrefix: nomicQuery, DocumentPrefix: nomicDocument},
		{Model: "nomic-embed-text", MaxChars: DefaultMaxChars},
		{Model: "nomic-embed-text", BatchSize: 3, Timeout: 7, MaxRetries: 2},
	}
	for _, cfg := range same {
		if got := id(ProviderOllama, cfg); got != plain {
			t.Errorf("%v: ID %q, want %q (same vectors)", cfg, got, plain)
		}
	}
	if got := id(ProviderOllama, Config{Model: "nomic-embed-text", BaseURL: "http://other:1234"}); got == plain {
		t.Errorf("another host has the same ID %q", got)
	}
	seen := map[string]Config{plain: nomic}
	for _, cfg := range []Config{
		{Model: "nomic-embed-text", NoAutoPrefix: true},
		{Model: "nomic-embed-text", QueryPrefix: "search: "},
		{Model: "nomic-embed-text", DocumentPrefix: "doc: "},
		{Model: "nomic-embed-text", MaxChars: 100},
		{Model: "nomic-embed-text", MaxChars: -1},
		{Model: "nomic-embed-text", QueryPrefix: "a", DocumentPrefix: "b"},
		{Model: "nomic-embed-text", QueryPrefix: "ab", DocumentPrefix: ""},
	} {
		got := id(ProviderOllama, cfg)
		if prev, dup := seen[got]; dup {
			t.Errorf("%v and %v share ID %q", cfg, prev, got)
		}
		seen[got] = cfg
		if !strings.HasPrefix(got, "ollama:gpu-box:1234/nomic-embed-text@") || len(got) != len(plain)+9 {
			t.Errorf("%v: ID %q, want the model followed by @ and 8 hex digits", cfg, got)
		}
	}
	if a, b := id(ProviderOllama, Config{Model: "m", MaxChars: -1}), id(ProviderOllama, Config{Model: "m", MaxChars: -7}); a != b {
		t.Errorf("MaxChars -1 and -7 both mean no limit, IDs %q, %q", a, b)
	}
	if got := id(ProviderOllama, Config{Model: "all-minilm"}); got != "ollama:gpu-box:1234/all-minilm/4" {
		t.Errorf("unknown model without prefixes: %q", got)
	}
	if got := id(ProviderOllama, Config{Model: "all-minilm", QueryPrefix: "q: "}); !strings.Contains(got, "all-minilm@") {
		t.Errorf("unknown model with a prefix: %q", got)
	}
}
