package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// OpenAI embeds with a server that speaks the OpenAI embeddings API:
// OpenAI, llama.cpp's llama-server (--embeddings), vLLM, LM Studio, Ollama's
// /v1 and others.
//
// It posts {"model", "input": [...], "encoding_format": "float"} to
// {base}/v1/embeddings and reads {"data": [{"index", "embedding"}]},
// placing each vector by its index since servers may reorder them.
type OpenAI struct {
	e        *engine
	t        *transport
	endpoint string // with the query, if BaseURL had one
	shown    string // endpoint without secrets, see displayURL
	host     string
}

// NewOpenAI returns an OpenAI-compatible embedder; BaseURL defaults to
// https://api.openai.com/v1. It does no I/O; see Probe.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if err := validate("openai", cfg); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.BaseURL) == "" {
		cfg.BaseURL = DefaultOpenAIURL
	}
	u, err := parseBase(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("remote: openai: %w", err)
	}
	path := strings.TrimRight(u.Path, "/")
	last := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case last == "embeddings":
		u.Path = path
	case isVersion(last):
		u.Path = path + "/embeddings"
	default:
		u.Path = path + "/v1/embeddings"
	}
	u.RawPath = ""
	cfg = cfg.withDefaults()
	o := &OpenAI{t: newTransport(cfg), endpoint: u.String(), shown: displayURL(u), host: strings.ToLower(u.Host)}
	o.e = newEngine("openai", cfg, o)
	return o, nil
}

// ID is "openai:<host>/<model>/<dim>", e.g.
// "openai:api.openai.com/text-embedding-3-small/1536". When the prefixes
// differ from the model's known ones (see KnownPrefixes; none for other
// models) or MaxChars from DefaultMaxChars, the model is followed by "@"
// and 8 hex digits hashing those settings, since they change the vectors:
// "openai:host/model@1a2b3c4d/768". While the dimension is unknown
// (Config.Dim was 0 and nothing was embedded yet) the ID ends in "/0":
// call Probe first.
func (o *OpenAI) ID() string { return o.e.id(o.host) }

// Dim is the vector dimension: Config.Dim, or what the server answered
// with; 0 until Probe or Embed has succeeded when Config.Dim was 0.
func (o *OpenAI) Dim() int { return o.e.getDim() }

// Embed returns one L2-normalised vector per text, in order, with the
// model's prefix for kind. Blank texts get zero vectors without being
// sent (OpenAI rejects empty input). It implements embed.Embedder.
func (o *OpenAI) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	return o.e.embed(ctx, texts, kind)
}

// Probe embeds one short text to learn (or, with Config.Dim set, verify)
// the dimension. Call it before ID or Dim.
func (o *OpenAI) Probe(ctx context.Context) error { return o.e.probe(ctx) }

// String describes the embedder without secrets: no API key, URL
// password or user, or query string.
func (o *OpenAI) String() string { return "remote.OpenAI(" + o.shown + ", " + o.e.cfg.Model + ")" }

// embed implements backend.
func (o *OpenAI) embed(ctx context.Context, texts []string) ([][]float64, error) {
	body, err := json.Marshal(struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}{o.e.cfg.Model, texts, "float"})
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	raw, err := o.t.post(ctx, o.endpoint, body, maxResponse(len(texts)))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decoding embeddings response: %w", err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("server returned %d embeddings for %d texts", len(resp.Data), len(texts))
	}
	out := make([][]float64, len(texts))
	for i, d := range resp.Data {
		j := i // no index at all: trust the order
		if d.Index != nil {
			j = *d.Index
		}
		if j < 0 || j >= len(out) || out[j] != nil {
			return nil, fmt.Errorf("embedding %d has bad or repeated index %d", i, j)
		}
		if d.Embedding == nil {
			d.Embedding = []float64{} // reported as an empty vector
		}
		out[j] = d.Embedding
	}
	return out, nil
}

// isVersion reports whether a path segment names an API version: v1, v2,
// v1beta, v1alpha2.
func isVersion(seg string) bool {
	if len(seg) < 2 || seg[0] != 'v' || seg[1] < '0' || seg[1] > '9' {
		return false
	}
	rest := strings.TrimLeft(seg[1:], "0123456789")
	rest = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyz")
	rest = strings.TrimLeft(rest, "0123456789")
	return rest == "" && !strings.ContainsAny(seg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}
