package httpserve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedLog is a log destination the server's goroutines write to while
// the test reads it.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records are the JSON log lines written so far.
func (l *lockedLog) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAccessLog: one structured line per request; the query text only
// with LogQueries; the token never.
func TestAccessLog(t *testing.T) {
	const secret = "zyxsecretquery"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + secret + `"}}}`
	tests := []struct {
		name       string
		logQueries bool
		wantArgs   bool
	}{
		{"default: no query text", false, false},
		{"--log-queries: query text", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log lockedLog
			_, base, _ := start(t, Config{Token: testToken, LogQueries: tt.logQueries, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
			if r := do(t, base, req{body: call, header: authz(testToken)}); r.status != 200 || !strings.Contains(r.body, secret) {
				t.Fatalf("call: %d %s", r.status, r.body)
			}
			if r := do(t, base, req{body: call, header: authz("wrong" + testToken)}); r.status != 401 {
				t.Fatalf("bad token: %d", r.status)
			}
			// The line is written once the handler returns, just after
			// the client has its reply.
			var ok, denied map[string]any
			waitFor(t, 3*time.Second, func() bool {
				ok, denied = nil, nil
				for _, m := range log.records(t) {
					if m["msg"] != "http" || m["path"] != MCPPath {
						continue
					}
					switch m["status"] {
					case 200.0:
						ok = m
					case 401.0:
						denied = m
					}
				}
				return ok != nil && denied != nil
			})
			if ok["method"] != "POST" || ok["rpc"] != "tools/call" || ok["tool"] != "echo" || ok["ms"] == nil || ok["remote"] != "127.0.0.1" {
				t.Fatalf("access line lacks fields: %v", ok)
			}
			if c, _ := ok["client"].(string); !strings.HasPrefix(c, "tok:") {
				t.Fatalf("client = %v, want a token fingerprint", ok["client"])
			}
			if _, has := ok["args"]; has != tt.wantArgs || strings.Contains(log.String(), secret) != tt.wantArgs {
				t.Fatalf("args logged = %v, want %v:\n%s", has, tt.wantArgs, log.String())
			}
			if denied["reason"] != "bad or missing bearer token" {
				t.Fatalf("401 line: %v", denied)
			}
			if strings.Contains(log.String(), testToken) {
				t.Fatalf("the token is in the log:\n%s", log.String())
			}
		})
	}
}
