package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ErrNonFinite is returned (wrapped) when a server answers with a NaN or
// infinite component, or one too large for float32.
var ErrNonFinite = errors.New("embedding has non-finite values")

// maxErrorMessage caps the server message quoted in an HTTPError.
const maxErrorMessage = 512

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is the server's error message (or the start of its body)
	// with the API key removed, cut to 512 bytes (plus "…" when cut).
	Message string

	json bool // the body was JSON (an API error, not a missing route)
}

// Error reports the status and the server's message.
func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// serverMessage extracts the error message from an error body in the
// shapes the supported servers use: Ollama {"error": "..."}, OpenAI and
// llama.cpp {"error": {"message": "..."}}, vLLM {"message": "..."} and
// FastAPI {"detail": ...}; anything else is quoted as text. The API key is
// removed before the message is cut to maxErrorMessage bytes, so a cut
// cannot split it past recognition, and a start of the key (8 bytes or
// more) left at the end of the cut message is removed too.
func serverMessage(body []byte, red redactor) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(v.Error, &o) == nil && o.Message != "":
			msg = o.Message
		case v.Message != "":
			msg = v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = red.string(strings.Join(strings.Fields(red.string(msg)), " "))
	if len(msg) <= maxErrorMessage {
		return msg
	}
	return red.cutTail(truncateBytes(msg, maxErrorMessage), maxErrorMessage) + "…"
}

// truncateBytes cuts s to at most n bytes on a rune boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// minKeyPrefix is the shortest start of the API key that cutTail removes.
const minKeyPrefix = 8

// redacted replaces the API key in messages.
const redacted = "[redacted]"

// redactor removes the API key from error text.
type redactor struct{ secret string }

func (r redactor) string(s string) string {
	if r.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, r.secret, redacted)
}

// cutTail replaces a start of the key (at least minKeyPrefix bytes long)
// that ends s, as left by cutting a message in the middle of the key, and
// keeps the result within n bytes.
func (r redactor) cutTail(s string, n int) string {
	for k := min(len(r.secret)-1, len(s)); k >= minKeyPrefix; k-- {
		if strings.HasSuffix(s, r.secret[:k]) {
			return truncateBytes(s[:len(s)-k], n-len(redacted)) + redacted
		}
	}
	return s
}

// err wraps err so its message never shows the key; errors.Is and As still
// see the original.
func (r redactor) err(err error) error {
	if err == nil || r.secret == "" {
		return err
	}
	return &redactedError{err: err, msg: r.string(err.Error())}
}

type redactedError struct {
	err error
	msg string
}

// Error is the redacted message.
func (e *redactedError) Error() string { return e.msg }

// Unwrap returns the original error.
func (e *redactedError) Unwrap() error { return e.err }
