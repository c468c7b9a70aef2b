package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The raw client: each client's session is opened by the go-sdk (the
// initialize handshake, and one tools/call through the SDK, whose request
// headers are recorded); after that its calls are plain POSTs with those
// headers and a hand-built tools/call body, and the reply is only checked
// for a JSON-RPC error or isError. It sends the server the same requests
// the SDK client does, at a fraction of the SDK client's CPU (decoding
// every reply into typed content): on a 2-core machine the load generator
// shares the cores with the server it measures, so its own cost lowers the
// throughput it can show.

// headerRecorder keeps the headers and body of the last tools/call POST
// that went through it (the SDK's Mcp-Protocol-Version, Mcp-Session-Id,
// Accept…, and the request's params._meta).
type headerRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	last http.Header
	body []byte
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "tools/call" && r.GetBody != nil {
		b, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(b)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.last, h.body = r.Header.Clone(), body
		h.mu.Unlock()
	}
	return h.next.RoundTrip(r)
}

// take returns the recorded headers and the request's params._meta.
func (h *headerRecorder) take() (http.Header, json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		return nil, nil, errors.New("no tools/call request seen (does the SDK still send Mcp-Method?)")
	}
	var req struct {
		Params struct {
			Meta json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(h.body, &req); err != nil {
		return nil, nil, fmt.Errorf("recorded tools/call: %w", err)
	}
	return h.last, req.Params.Meta, nil
}

// rawCaller sends tools/call requests of one session without the SDK.
type rawCaller struct {
	hc     *http.Client
	url    string
	header http.Header     // as the SDK sent them; Mcp-Name set per call
	meta   json.RawMessage // params._meta as the SDK sent it
	id     int
	buf    bytes.Buffer
}

// call sends one tools/call and reports whether the reply is an error
// (a JSON-RPC error, or a tool result with isError), with its text.
func (c *rawCaller) call(ctx context.Context, name string, args map[string]any) (bad bool, msg string, err error) {
	c.id++
	c.buf.Reset()
	enc := json.NewEncoder(&c.buf)
	if err := enc.Encode(rawRequest{JSONRPC: "2.0", ID: c.id, Method: "tools/call", Params: rawParams{Meta: c.meta, Name: name, Arguments: args}}); err != nil {
		return false, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.buf.Bytes()))
	if err != nil {
		return false, "", err
	}
	req.Header = c.header.Clone()
	req.Header.Set("Mcp-Name", name)
	resp, err := c.hc.Do(req)
	if err != nil {
		return false, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return true, fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, body), nil
	}
	return replyError(body, c.id)
}

type rawRequest struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      int       `json:"id"`
	Method  string    `json:"method"`
	Params  rawParams `json:"params"`
}

type rawParams struct {
	Meta      json.RawMessage `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments map[string]any  `json:"arguments"`
}

// replyError finds the JSON-RPC response to id in body (plain JSON, or
// the data lines of a text/event-stream) and reports whether it is an
// error. It reads the response's members up to "result" or "error" and
// never decodes a result: a tool error is the member "isError":true,
// which can only appear unescaped in the result as a key (inside strings
// quotes are escaped).
func replyError(body []byte, id int) (bad bool, msg string, err error) {
	want := strconv.Itoa(id)
	for _, m := range replyMessages(body) {
		gotID, errMsg, isResult, err := scanResponse(m)
		if err != nil {
			return false, "", fmt.Errorf("reply: %w", err)
		}
		if gotID != want {
			continue // a notification or another message on the stream
		}
		switch {
		case errMsg != "":
			return true, errMsg, nil
		case !isResult:
			return true, "reply without result", nil
		case bytes.Contains(m, []byte(`"isError":true`)):
			return true, fmt.Sprintf("%.300s", m), nil
		}
		return false, "", nil
	}
	return false, "", errors.New("no reply to the call")
}

// scanResponse reads a JSON-RPC message's members in order until its
// "result" (isResult) or "error" (errMsg, never empty for an error).
func scanResponse(m []byte) (id, errMsg string, isResult bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(m))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", false, fmt.Errorf("not a JSON object: %.100s", m)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", "", false, err
		}
		var v json.RawMessage
		if t == "result" {
			return id, "", true, nil
		}
		if err := dec.Decode(&v); err != nil {
			return "", "", false, err
		}
		switch t {
		case "id":
			id = string(v)
		case "error":
			var e struct{ Message string }
			_ = json.Unmarshal(v, &e)
			return id, "JSON-RPC error: " + cmp.Or(e.Message, string(v)), false, nil
		}
	}
	return id, "", false, nil
}

// replyMessages splits body into JSON messages: the whole body when it
// is JSON, else the data of each server-sent event.
func replyMessages(body []byte) [][]byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return [][]byte{trimmed}
	}
	var msgs [][]byte
	var cur []byte
	for line := range bytes.Lines(body) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(cur) > 0 {
				msgs = append(msgs, cur)
				cur = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(cur) > 0 {
				cur = append(cur, '\n')
			}
			cur = append(cur, d...)
		}
	}
	if len(cur) > 0 {
		msgs = append(msgs, cur)
	}
	return msgs
}

// newRawCaller makes one call through the SDK session (not measured) to
// record the headers the SDK sends with a tools/call, and returns a raw
// caller that sends the session's later calls with them through hc
// (which does not record).
func newRawCaller(ctx context.Context, cs *mcp.ClientSession, rec *headerRecorder, hc *http.Client, url string, rng *rand.Rand, notes []string) (*rawCaller, error) {
	_, name, args := pick(rng, notes)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("first call: %w", err)
	}
	if res.IsError {
		return nil, fmt.Errorf("first call %s: %s", name, errText(res))
	}
	h, meta, err := rec.take()
	if err != nil {
		return nil, fmt.Errorf("first call: %w", err)
	}
	return &rawCaller{hc: hc, url: url, header: h, meta: meta, id: 1 << 20}, nil
}
