package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Ollama embeds with an Ollama server.
//
// It posts {"model", "input": [...]} to /api/embed (Ollama ≥ 0.3.0; see
// https://docs.ollama.com/api/embed) and reads {"embeddings": [[...]]}.
// If the server does not know that route (a plain-text 404, as from
// Ollama before 0.3.0) it falls back, for good, to the older
// /api/embeddings, one {"model", "prompt"} request per text. Ollama's own
// truncation to the model's context stays on (its default).
type Ollama struct {
	e         *engine
	t         *transport
	embedURL  string
	legacyURL string
	shown     string // embedURL without secrets, see displayURL
	host      string
	legacy    atomic.Bool
}

// NewOllama returns an Ollama embedder. It does no I/O; see Probe.
func NewOllama(cfg Config) (*Ollama, error) {
	if err := validate("ollama", cfg); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.BaseURL) == "" {
		cfg.BaseURL = DefaultOllamaURL
	}
	u, err := ollamaBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("remote: ollama: %w", err)
	}
	cfg = cfg.withDefaults()
	embedURL := u.JoinPath("api", "embed")
	o := &Ollama{
		t:         newTransport(cfg),
		embedURL:  embedURL.String(),
		legacyURL: u.JoinPath("api", "embeddings").String(),
		shown:     displayURL(embedURL),
		host:      strings.ToLower(u.Host),
	}
	o.e = newEngine("ollama", cfg, o)
	return o, nil
}

// ID is "ollama:<host>/<model>/<dim>", e.g.
// "ollama:127.0.0.1:11434/nomic-embed-text/768": the host is part of it
// because two servers may hold different models under one name. When the
// prefixes differ from the model's known ones (see KnownPrefixes; none for
// other models) or MaxChars from DefaultMaxChars, the model is followed by
// "@" and 8 hex digits hashing those settings, since they change the
// vectors: "ollama:host/model@1a2b3c4d/768". While the dimension is
// unknown (Config.Dim was 0 and nothing was embedded yet) the ID ends in
// "/0": call Probe first.
//
// Before this format, IDs were "ollama:<model>/<dim>".
func (o *Ollama) ID() string { return o.e.id(o.host) }

// Dim is the vector dimension: Config.Dim, or what the server answered
// with; 0 until Probe or Embed has succeeded when Config.Dim was 0.
func (o *Ollama) Dim() int { return o.e.getDim() }

// Embed returns one L2-normalised vector per text, in order, with the
// model's prefix for kind. Blank texts get zero vectors without being
// sent. It implements embed.Embedder.
func (o *Ollama) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	return o.e.embed(ctx, texts, kind)
}

// Probe embeds one short text to learn (or, with Config.Dim set, verify)
// the dimension. Call it before ID or Dim.
func (o *Ollama) Probe(ctx context.Context) error { return o.e.probe(ctx) }

// String describes the embedder without secrets: no API key, URL
// password or user, or query string.
func (o *Ollama) String() string { return "remote.Ollama(" + o.shown + ", " + o.e.cfg.Model + ")" }

// embed implements backend.
func (o *Ollama) embed(ctx context.Context, texts []string) ([][]float64, error) {
	if !o.legacy.Load() {
		vecs, err := o.embedBatch(ctx, texts)
		var he *HTTPError
		if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound || he.json {
			return vecs, err // a JSON 404 is Ollama's "model not found"
		}
		o.legacy.Store(true)
	}
	out := make([][]float64, len(texts))
	for i, s := range texts {
		v, err := o.embedLegacy(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("/api/embeddings (the server has no /api/embed): %w", err)
		}
		out[i] = v
	}
	return out, nil
}

func (o *Ollama) embedBatch(ctx context.Context, texts []string) ([][]float64, error) {
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{o.e.cfg.Model, texts})
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	raw, err := o.t.post(ctx, o.embedURL, body, maxResponse(len(texts)))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Embeddings [][]float64 `json:"embeddings"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decoding /api/embed response: %w", err)
	}
	return resp.Embeddings, nil
}

func (o *Ollama) embedLegacy(ctx context.Context, text string) ([]float64, error) {
	body, err := json.Marshal(struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}{o.e.cfg.Model, text})
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	raw, err := o.t.post(ctx, o.legacyURL, body, maxResponse(1))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Embedding []float64 `json:"embedding"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decoding /api/embeddings response: %w", err)
	}
	return resp.Embedding, nil
}

// ollamaBase parses an Ollama address the way OLLAMA_HOST is read:
// without a scheme it is [host][:port][/path] over http with port 11434.
// Unspecified bind addresses (0.0.0.0, ::) become loopback.
func ollamaBase(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		hostport, path, _ := strings.Cut(s, "/")
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			host, port = strings.Trim(hostport, "[]"), ""
		}
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "11434"
		}
		s = "http://" + net.JoinHostPort(host, port)
		if path != "" {
			s += "/" + path
		}
	}
	u, err := parseBase(s)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsUnspecified() {
		lo := "127.0.0.1"
		if ip.To4() == nil {
			lo = "::1"
		}
		if p := u.Port(); p != "" {
			u.Host = net.JoinHostPort(lo, p)
		} else {
			u.Host = lo
			if ip.To4() == nil {
				u.Host = "[::1]"
			}
		}
	}
	return u, nil
}

// parseBase parses an http(s) base URL.
func parseBase(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		// *url.Error quotes the whole URL, secrets included: keep its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("base URL %q: %w", displayBaseURL(s), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", displayURL(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q: no host", displayURL(u))
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}
