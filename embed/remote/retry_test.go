package remote

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// step is one scripted server answer: a status (200 = success), a
// Retry-After header and a body.
type step struct {
	status     int
	retryAfter string
	body       string
}

func TestRetries(t *testing.T) {
	// Jitter 0: the backoff is half of 500ms·2^n.
	date := newFakeClock().Now().Add(7 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		name       string
		maxRetries int
		steps      []step
		wantCalls  int
		wantSleeps []time.Duration
		wantStatus int    // HTTPError status in the error; 0 = success
		wantMsg    string // in the error
	}{
		{name: "500 then ok", steps: []step{{status: 500}, {status: 200}},
			wantCalls: 2, wantSleeps: []time.Duration{250 * time.Millisecond}},
		{name: "500, 503, 502 then ok", steps: []step{{status: 500}, {status: 503}, {status: 502}, {status: 200}},
			wantCalls: 4, wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{name: "429 with Retry-After seconds", steps: []step{{status: 429, retryAfter: "3"}, {status: 200}},
			wantCalls: 2, wantSleeps: []time.Duration{3 * time.Second}},
		{name: "503 with Retry-After date", steps: []step{{status: 503, retryAfter: date}, {status: 200}},
			wantCalls: 2, wantSleeps: []time.Duration{7 * time.Second}},
		{name: "429 without Retry-After backs off", steps: []step{{status: 429}, {status: 429}, {status: 200}},
			wantCalls: 3, wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "429 with bad Retry-After backs off", steps: []step{{status: 429, retryAfter: "soon"}, {status: 200}},
			wantCalls: 2, wantSleeps: []time.Duration{250 * time.Millisecond}},
		{name: "Retry-After beyond the limit gives up", steps: []step{{status: 429, retryAfter: "3600"}},
			wantCalls: 1, wantStatus: 429, wantMsg: "server asked to retry after 1h0m0s"},
		{name: "400 is not retried", steps: []step{{status: 400, body: `{"error":"bad input"}`}},
			wantCalls: 1, wantStatus: 400, wantMsg: "HTTP 400 Bad Request: bad input"},
		{name: "401 is not retried", steps: []step{{status: 401, body: `{"error":{"message":"Incorrect API key"}}`}},
			wantCalls: 1, wantStatus: 401, wantMsg: "HTTP 401 Unauthorized: Incorrect API key"},
		{name: "404 JSON is not retried", steps: []step{{status: 404, body: `{"error":"model \"m\" not found, try pulling it first"}`}},
			wantCalls: 1, wantStatus: 404, wantMsg: `model "m" not found`},
		{name: "gives up after MaxRetries", steps: []step{{status: 503, body: "overloaded"}},
			wantCalls: 5, wantStatus: 503,
			wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second},
			wantMsg:    "giving up after 5 attempts: HTTP 503 Service Unavailable: overloaded"},
		{name: "MaxRetries 1", maxRetries: 1, steps: []step{{status: 500}},
			wantCalls: 2, wantStatus: 500, wantSleeps: []time.Duration{250 * time.Millisecond},
			wantMsg: "giving up after 2 attempts"},
		{name: "no retries", maxRetries: -1, steps: []step{{status: 500}},
			wantCalls: 1, wantStatus: 500, wantMsg: "HTTP 500 Internal Server Error"},
	}
	for _, p := range allProviders() {
		for _, tt := range tests {
			t.Run(string(p)+"/"+tt.name, func(t *testing.T) {
				ok := okHandler(p, 3)
				srv := newServer(t, func(w http.ResponseWriter, r request, n int) {
					s := tt.steps[min(n, len(tt.steps)-1)]
					if s.status == 200 {
						ok(w, r, n)
						return
					}
					if s.retryAfter != "" {
						w.Header().Set("Retry-After", s.retryAfter)
					}
					w.WriteHeader(s.status)
					_, _ = w.Write([]byte(s.body))
				})
				cfg, clk := testConfig(srv, "m")
				cfg.MaxRetries = tt.maxRetries
				e := newProvider(t, p, cfg)
				got, err := e.Embed(context.Background(), []string{"a"}, embed.Query)
				if n := len(srv.requests()); n != tt.wantCalls {
					t.Errorf("%d requests, want %d", n, tt.wantCalls)
				}
				if s := clk.Sleeps(); !reflect.DeepEqual(s, tt.wantSleeps) {
					t.Errorf("sleeps = %v, want %v", s, tt.wantSleeps)
				}
				if tt.wantStatus == 0 {
					if err != nil || len(got) != 1 {
						t.Fatalf("got %v, %v", got, err)
					}
					return
				}
				var he *HTTPError
				if !errors.As(err, &he) || he.StatusCode != tt.wantStatus {
					t.Fatalf("err = %v, want an HTTPError %d", err, tt.wantStatus)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("err = %q, want it to contain %q", err, tt.wantMsg)
				}
			})
		}
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		name    string
		jitter  float64
		attempt int
		want    time.Duration
	}{
		{"first, no jitter", 0, 0, 250 * time.Millisecond},
		{"first, full jitter", 0.999999, 0, 499999750 * time.Nanosecond},
		{"third, half jitter", 0.5, 2, 1500 * time.Millisecond},
		{"capped", 0, 20, 5 * time.Second},
		{"huge attempt capped", 0, 100, 5 * time.Second},
		{"bad jitter ignored", 7, 0, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTransport(Config{RetryBaseDelay: 500 * time.Millisecond, RetryMaxDelay: 10 * time.Second,
				Jitter: func() float64 { return tt.jitter }}.withDefaults())
			if got := tr.backoff(tt.attempt); got != tt.want {
				t.Errorf("backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"12", 12 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"-3", 0, false},
		{"NaN", 0, false},
		{"99999999999", 1e6 * time.Second, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %t; want %v, %t", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestTimeout(t *testing.T) {
	for _, p := range allProviders() {
		t.Run(string(p), func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r request, n int) {
				hang(r) // far beyond the timeout; the client gives up
			})
			cfg, clk := testConfig(srv, "m")
			cfg.Timeout, cfg.MaxRetries = 50*time.Millisecond, 1
			e := newProvider(t, p, cfg)
			start := time.Now()
			_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 50ms") {
				t.Fatalf("err = %v, want a timeout", err)
			}
			if !strings.Contains(err.Error(), "giving up after 2 attempts") {
				t.Errorf("err = %v, want 2 attempts", err)
			}
			if len(clk.Sleeps()) != 1 {
				t.Errorf("sleeps = %v, want one backoff", clk.Sleeps())
			}
			if d := time.Since(start); d > 1500*time.Millisecond {
				t.Errorf("took %v; the timeout did not apply", d)
			}
		})
	}
}

func TestContextCancellation(t *testing.T) {
	t.Run("cancelled during the request", func(t *testing.T) {
		started := make(chan struct{}, 10)
		srv := newServer(t, func(w http.ResponseWriter, r request, n int) {
			started <- struct{}{}
			hang(r)
		})
		cfg, clk := testConfig(srv, "m")
		e := newProvider(t, ProviderOllama, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, err := e.Embed(ctx, []string{"a"}, embed.Document)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if n := len(srv.requests()); n != 1 || len(clk.Sleeps()) != 0 {
			t.Errorf("%d requests, sleeps %v: cancellation must not retry", n, clk.Sleeps())
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		srv := newServer(t, ollamaOK(3))
		cfg, _ := testConfig(srv, "m")
		e := newProvider(t, ProviderOpenAI, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Embed(ctx, []string{"a"}, embed.Document); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if err := e.Probe(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Probe err = %v, want context.Canceled", err)
		}
		if n := len(srv.requests()); n != 0 {
			t.Errorf("%d requests with a cancelled context", n)
		}
	})
	t.Run("cancelled while waiting to retry", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, _ request, _ int) { w.WriteHeader(503) })
		cfg, _ := testConfig(srv, "m")
		ctx, cancel := context.WithCancel(context.Background())
		cfg.Clock = cancelClock{cancel}
		e := newProvider(t, ProviderOllama, cfg)
		_, err := e.Embed(ctx, []string{"a"}, embed.Document)
		var he *HTTPError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &he) {
			t.Fatalf("err = %v, want context.Canceled and the last HTTP error", err)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

// cancelClock cancels the context when asked to sleep.
type cancelClock struct{ cancel context.CancelFunc }

func (cancelClock) Now() time.Time { return time.Time{} }

func (c cancelClock) Sleep(ctx context.Context, _ time.Duration) error {
	c.cancel()
	return ctx.Err()
}

func TestNetworkErrorIsRetried(t *testing.T) {
	srv := newServer(t, ollamaOK(3))
	cfg, clk := testConfig(srv, "m")
	srv.Close() // nothing listens any more
	cfg.MaxRetries = 2
	e := newProvider(t, ProviderOllama, cfg)
	_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
	if err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("err = %v, want 3 attempts", err)
	}
	if len(clk.Sleeps()) != 2 {
		t.Errorf("sleeps = %v, want 2", clk.Sleeps())
	}
}

func TestErrorBodyIsLimited(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ request, _ int) {
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"error":"` + strings.Repeat("é", 5000) + `"}`))
	})
	cfg, _ := testConfig(srv, "m")
	e := newProvider(t, ProviderOllama, cfg)
	_, err := e.Embed(context.Background(), []string{"a"}, embed.Document)
	var he *HTTPError
	if !errors.As(err, &he) || len(he.Message) > maxErrorMessage+len("…") || !strings.HasSuffix(he.Message, "é…") {
		t.Fatalf("err = %.100v (message %d bytes)", err, len(he.Message))
	}
}

func TestServerMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":"model not found"}`, "model not found"},
		{`{"error":{"message":"Invalid key","type":"invalid_request_error"}}`, "Invalid key"},
		{`{"object":"error","message":"vllm says no","code":400}`, "vllm says no"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{`{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`},
		{"404 page not found\n", "404 page not found"},
		{"  multi\n\nline  ", "multi line"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := serverMessage([]byte(tt.body), redactor{}); got != tt.want {
			t.Errorf("serverMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
