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
	// Message is the server's error message (or the start of its body),
	// at most 512 bytes, with the API key removed.
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
// FastAPI {"detail": ...}; anything else is quoted as text.
func serverMessage(body []byte) string {
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
	return truncateBytes(strings.Join(strings.Fields(msg), " "), maxErrorMessage)
}

// truncateBytes cuts s to at most n bytes on a rune boundary, marking the
// cut with "…".
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// redactor removes the API key from error text.
type redactor struct{ secret string }

func (r redactor) string(s string) string {
	if r.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, r.secret, "[redacted]")
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
