package httpserve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK's HTTP transport answers a few requests in ways MCP and
// JSON-RPC do not: a cancelled call still gets a response ("context
// canceled", code 0), and its checks of the session's state send errors
// without a code. These happen inside the SDK before any handler runs, so
// they are handled here, in front of it.

// rpcMessage is what the front reads of a POSTed JSON-RPC message.
type rpcMessage struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
}

// readRPC reads one JSON-RPC message (not a batch) from a POST body.
func readRPC(body []byte) (rpcMessage, bool) {
	var m rpcMessage
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return rpcMessage{}, false
	}
	m.ID = compactJSON(m.ID)
	return m, true
}

// isCall reports whether m is a request that expects a response.
func (m rpcMessage) isCall() bool {
	return m.Method != "" && len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
}

// early answers, before the SDK sees it, a call the SDK would answer
// with an uncoded error, and reports whether it did: with sessions, a call
// other than initialize without a session id (streamable HTTP: 400 Bad
// Request), and initialize with null params (-32602 invalid params).
func (s *Server) early(w http.ResponseWriter, r *http.Request, m rpcMessage) bool {
	switch {
	case !m.isCall():
		return false
	case m.Method == "initialize" && bytes.Equal(bytes.TrimSpace(m.Params), []byte("null")):
		writeRPCError(w, r, http.StatusOK, m.ID, jsonrpc.CodeInvalidParams, `invalid params: initialize needs "params"`)
		return true
	case s.cfg.Stateful && m.Method != "initialize" && r.Header.Get("Mcp-Session-Id") == "":
		writeRPCError(w, r, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest,
			"invalid request: "+m.Method+" without an Mcp-Session-Id header; start a session with initialize")
		return true
	}
	return false
}

// writeRPCError answers a call with a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, r *http.Request, status int, id json.RawMessage, code int64, msg string) {
	logInfo(r).reason = msg
	type rpcErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	writeJSON(w, status, struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", id, rpcErr{code, msg}})
}

// calls are the calls of stateful sessions being answered, by session
// and id, so that a notifications/cancelled naming one silences its
// answer: MCP says a cancelled request gets no response, and the SDK
// would send one.
type calls struct {
	mu sync.Mutex
	m  map[string]*callWriter
}

func callKey(session string, id json.RawMessage) string { return session + "\x00" + string(id) }

// track wraps w for the call id of session and returns the writer to
// answer through and the function that stops tracking it.
func (c *calls) track(w http.ResponseWriter, session string, id json.RawMessage) (*callWriter, func()) {
	cw := &callWriter{ResponseWriter: w}
	key := callKey(session, id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*callWriter{}
	}
	c.m[key] = cw
	return cw, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.m[key] == cw {
			delete(c.m, key)
		}
	}
}

// cancel silences the answer to the call a notifications/cancelled of
// session names (params.requestId); an unknown or finished call is
// ignored, as MCP asks.
func (c *calls) cancel(session string, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	c.mu.Lock()
	cw := c.m[callKey(session, compactJSON(p.RequestID))]
	c.mu.Unlock()
	if cw != nil {
		cw.silence()
	}
}

// callWriter is the response writer of one call. Once silenced, what the
// SDK writes for the call (its "context canceled" answer) is dropped; a
// write in progress completes first, so an event is never cut. The SDK
// writes each event whole, in one Write.
type callWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	silent bool
}

func (c *callWriter) silence() {
	c.mu.Lock()
	c.silent = true
	c.mu.Unlock()
}

func (c *callWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.silent {
		return len(p), nil
	}
	return c.ResponseWriter.Write(p)
}

func (c *callWriter) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.ResponseWriter.(http.Flusher); ok && !c.silent {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *callWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// compactJSON returns v without insignificant white space, so that ids
// compare as values.
func compactJSON(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if len(v) == 0 || json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}
