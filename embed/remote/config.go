package remote

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Defaults applied by NewOllama and NewOpenAI to zero Config fields.
const (
	DefaultOllamaURL      = "http://127.0.0.1:11434"
	DefaultOpenAIURL      = "https://api.openai.com/v1"
	DefaultBatchSize      = 64
	DefaultMaxBatchBytes  = 1 << 20 // 1 MiB of input text per request
	DefaultMaxChars       = 8000
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRetries     = 4
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 60 * time.Second
)

// Config configures an Ollama or OpenAI-compatible embedder. Zero fields
// take the defaults above; only Model is required.
type Config struct {
	// BaseURL is the server's address. For Ollama, "host", "host:port" and
	// a bare IP are accepted like OLLAMA_HOST (http, port 11434), and a
	// bind-all address (0.0.0.0, ::) means the loopback address. For
	// OpenAI-compatible servers the path may or may not end in /v1; a URL
	// whose path already ends in /embeddings is used as is.
	BaseURL string
	// Model is the server's model name, e.g. "nomic-embed-text" or
	// "text-embedding-3-small".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>". It is
	// never included in errors, IDs or the formatted Config. (A password,
	// user name or query in BaseURL is sent, but not shown either.)
	APIKey string
	// Dim is the expected vector dimension; 0 learns it from the first
	// response and enforces it afterwards.
	Dim int
	// BatchSize is the most texts per request (default 64).
	BatchSize int
	// MaxBatchBytes caps the input text in one request (default 1 MiB); a
	// batch is cut early when the next text would exceed it.
	MaxBatchBytes int
	// MaxChars truncates each text to this many characters (runes) before
	// the prefix is added (default 8000). Negative disables truncation.
	MaxChars int
	// Timeout bounds each HTTP request, retries excluded (default 60s).
	Timeout time.Duration
	// MaxRetries is how often a failed request is retried (default 4);
	// negative means never.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay, doubled per retry with
	// jitter (default 500ms).
	RetryBaseDelay time.Duration
	// RetryMaxDelay caps the backoff delay (default 60s). A Retry-After
	// longer than this ends the retries instead of stalling.
	RetryMaxDelay time.Duration
	// QueryPrefix and DocumentPrefix are prepended to query and document
	// texts. Left empty, the model's known prefixes are used (see
	// KnownPrefixes) unless NoAutoPrefix is set.
	QueryPrefix, DocumentPrefix string
	// NoAutoPrefix disables the known-model prefixes, so empty prefix
	// fields mean no prefix.
	NoAutoPrefix bool
	// HTTPClient sends the requests; nil uses a new http.Client. Its own
	// Timeout, if any, applies on top of Timeout.
	HTTPClient *http.Client
	// Clock sleeps between retries and tells the time for Retry-After
	// dates; nil uses the real clock. Tests inject a fake.
	Clock Clock
	// Jitter returns a number in [0, 1) that spreads backoff delays; nil
	// uses math/rand/v2.
	Jitter func() float64
}

// Clock is the time source for retries.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

// String formats the Config with the API key masked, and BaseURL without
// password, user or query.
func (c Config) String() string {
	return fmt.Sprintf("remote.Config{BaseURL:%q Model:%q APIKey:%s Dim:%d BatchSize:%d MaxBatchBytes:%d MaxChars:%d Timeout:%s MaxRetries:%d QueryPrefix:%q DocumentPrefix:%q NoAutoPrefix:%t}",
		displayBaseURL(c.BaseURL), c.Model, maskKey(c.APIKey), c.Dim, c.BatchSize, c.MaxBatchBytes, c.MaxChars, c.Timeout, c.MaxRetries, c.QueryPrefix, c.DocumentPrefix, c.NoAutoPrefix)
}

// GoString is String, so %#v does not print the API key either.
func (c Config) GoString() string { return c.String() }

// LogValue implements slog.LogValuer with the API key masked, and BaseURL
// as String shows it.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", displayBaseURL(c.BaseURL)),
		slog.String("model", c.Model),
		slog.String("api_key", maskKey(c.APIKey)),
		slog.Int("dim", c.Dim),
	)
}

func maskKey(k string) string {
	if k == "" {
		return `""`
	}
	return "[redacted]"
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.MaxBatchBytes <= 0 {
		c.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if c.MaxChars == 0 {
		c.MaxChars = DefaultMaxChars
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.RetryMaxDelay <= 0 {
		c.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	return c
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
