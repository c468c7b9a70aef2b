package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxErrorBody is how much of an error response is read.
const maxErrorBody = 64 << 10

// transport posts JSON with a per-request timeout and retries.
type transport struct {
	client     *http.Client
	apiKey     string
	timeout    time.Duration
	maxRetries int
	baseDelay  time.Duration
	maxDelay   time.Duration
	clock      Clock
	jitter     func() float64
}

func newTransport(cfg Config) *transport {
	j := cfg.Jitter
	if j == nil {
		j = rand.Float64
	}
	return &transport{
		client:     cfg.HTTPClient,
		apiKey:     cfg.APIKey,
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
		baseDelay:  cfg.RetryBaseDelay,
		maxDelay:   cfg.RetryMaxDelay,
		clock:      cfg.Clock,
		jitter:     j,
	}
}

// attemptError is one failed attempt and whether it may be retried.
type attemptError struct {
	err        error
	retry      bool
	retryAfter time.Duration // < 0: the server named no delay
}

// post sends body to url and returns the response body of the first
// successful attempt (2xx), reading at most maxBody bytes of it.
func (t *transport) post(ctx context.Context, url string, body []byte, maxBody int64) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, ae := t.once(ctx, url, body, maxBody)
		if ae == nil {
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w (during request: %w)", err, ae.err)
		}
		if !ae.retry || t.maxRetries == 0 {
			return nil, ae.err
		}
		if attempt >= t.maxRetries {
			return nil, fmt.Errorf("giving up after %d attempts: %w", attempt+1, ae.err)
		}
		delay := t.backoff(attempt)
		if ae.retryAfter >= 0 {
			if ae.retryAfter > t.maxDelay {
				return nil, fmt.Errorf("server asked to retry after %s, longer than the %s limit: %w", ae.retryAfter, t.maxDelay, ae.err)
			}
			delay = ae.retryAfter
		}
		if err := t.clock.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("%w (waiting to retry after: %w)", err, ae.err)
		}
	}
}

// backoff is the delay before retry number attempt+1: base·2^attempt
// capped at maxDelay, with "equal jitter" (between half and all of it).
func (t *transport) backoff(attempt int) time.Duration {
	d := t.maxDelay
	if attempt < 30 {
		if e := t.baseDelay << attempt; e > 0 && e < d {
			d = e
		}
	}
	j := t.jitter()
	if j < 0 || j >= 1 {
		j = 0
	}
	return d/2 + time.Duration(float64(d/2)*j)
}

// once makes one attempt.
func (t *transport) once(ctx context.Context, url string, body []byte, maxBody int64) ([]byte, *attemptError) {
	actx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("building request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "enquire-mcp")
	if t.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, t.networkError(ctx, actx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		herr := &HTTPError{
			StatusCode: resp.StatusCode,
			Message:    serverMessage(raw, redactor{t.apiKey}),
			json:       json.Valid(raw),
		}
		ae := &attemptError{err: herr, retryAfter: -1}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			ae.retry = true
			if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.clock.Now()); ok {
				ae.retryAfter = d
			}
		}
		return nil, ae
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, t.networkError(ctx, actx, fmt.Errorf("reading response: %w", err))
	}
	if int64(len(out)) > maxBody {
		return nil, &attemptError{err: fmt.Errorf("response larger than %d bytes", maxBody)}
	}
	return out, nil
}

// networkError classifies a transport failure: retryable unless the
// caller's context ended. The URL a *url.Error quotes loses its secrets
// (see displayURL).
func (t *transport) networkError(ctx, actx context.Context, err error) *attemptError {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		if u, perr := url.Parse(ue.URL); perr == nil {
			ue.URL = displayURL(u)
		} else {
			ue.URL = "[URL]"
		}
	}
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("request timed out after %s: %w", t.timeout, err)
	}
	return &attemptError{err: err, retry: ctx.Err() == nil, retryAfter: -1}
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date.
func parseRetryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if !(s >= 0) { // negative or NaN
			return 0, false
		}
		s = min(s, 1e6)
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(h); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
