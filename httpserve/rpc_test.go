package httpserve

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startWith serves cfg in front of srv on a fresh 127.0.0.1 port.
func startWith(t *testing.T, cfg Config, srv *mcp.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	s.Attach(srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, TLS{}) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// TestCancelledCallGetsNoAnswer: in a session, a call the client cancels
// (notifications/cancelled in another POST) is stopped, and its POST ends
// without any response to it (MCP); the session goes on.
func TestCancelledCallGetsNoAnswer(t *testing.T) {
	srv := newMCP()
	started := make(chan struct{})
	var once sync.Once
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		once.Do(func() { close(started) })
		<-ctx.Done()
		return nil, echoOut{}, ctx.Err()
	})
	base := startWith(t, Config{Token: testToken, Stateful: true}, srv)
	session, r := initSession(t, base)
	if session == "" {
		t.Fatalf("no session: %d %s", r.status, r.body)
	}
	h := map[string]string{"Authorization": "Bearer " + testToken, "Mcp-Session-Id": session}
	answered := make(chan resp, 1)
	begin := time.Now()
	go func() {
		answered <- do(t, base, req{body: `{"jsonrpc":"2.0","id":"b 1","method":"tools/call","params":{"name":"block","arguments":{}}}`, header: h})
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never started")
	}
	if r := do(t, base, req{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": "b 1","reason":"user"}}`, header: h}); r.status != 202 {
		t.Fatalf("cancellation: %d %s", r.status, r.body)
	}
	select {
	case r := <-answered:
		if strings.Contains(r.body, `"id"`) {
			t.Errorf("the cancelled call was answered: %d %q", r.status, r.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's POST never ended")
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the cancelled call ran %v", d)
	}
	if r := do(t, base, req{body: echoBody, header: h}); !strings.Contains(r.body, "hello") {
		t.Errorf("the session stopped after the cancellation: %d %s", r.status, r.body)
	}
}

// TestEarlyErrorsHaveCodes: the calls the SDK would answer with an error
// without a code get the JSON-RPC one: with sessions, a call without a
// session id is a 400 with -32600 (streamable HTTP, JSON-RPC); initialize
// with null params is -32602 in either mode.
func TestEarlyErrorsHaveCodes(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		base := startWith(t, Config{Token: testToken, Stateful: stateful}, newMCP())
		type answer struct {
			body   string
			status int
			want   string
		}
		cases := []answer{{`{"jsonrpc":"2.0","id":9,"method":"initialize","params":null}`, 200, `"id":9,"error":{"code":-32602`}}
		if stateful {
			cases = append(cases, answer{echoBody, 400, `"id":2,"error":{"code":-32600`},
				answer{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, 400, `"id":"p","error":{"code":-32600`})
		} else {
			cases = append(cases, answer{echoBody, 200, `hello`}) // no sessions: nothing to initialize
		}
		for _, c := range cases {
			r := do(t, base, req{body: c.body, header: authz(testToken)})
			if r.status != c.status || !strings.Contains(r.body, c.want) {
				t.Errorf("stateful %v: %s: %d %q, want %d with %s", stateful, c.body, r.status, r.body, c.status, c.want)
			}
		}
	}
}
