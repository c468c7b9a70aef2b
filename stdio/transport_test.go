package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reply is one line the server wrote.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serve runs an MCP server with a "slow" tool over the transport fed with
// input, until end of input, and returns every line written.
func serve(t *testing.T, input string, maxLine int) []reply {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	var out lockedBuffer
	tr := &Transport{In: strings.NewReader(input), Out: &out, MaxLine: maxLine, Drain: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Run(ctx, tr); err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("Run: %v", err)
	}
	var replies []reply
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("server wrote a line that is not JSON: %q: %v", sc.Text(), err)
		}
		replies = append(replies, r)
	}
	return replies
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// TestBadLinesAnswered sends each malformed line between valid pings: the
// server answers it with the JSON-RPC error the spec names and keeps
// serving (the ping after it is answered).
func TestBadLinesAnswered(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`
	cases := []struct {
		name, line string
		code       int64
		id         string // expected id of the error reply
	}{
		{"invalid JSON", `{"jsonrpc":`, -32700, "null"},
		{"null", `null`, -32600, "null"},
		{"empty array", `[]`, -32600, "null"},
		{"number", `123`, -32600, "null"},
		{"string", `"ping"`, -32600, "null"},
		{"empty object", `{}`, -32600, "null"},
		{"version 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"no version", `{"id":"v","method":"ping"}`, -32600, `"v"`},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"method not string", `{"jsonrpc":"2.0","id":3,"method":5}`, -32600, "3"},
		{"params scalar", `{"jsonrpc":"2.0","id":4,"method":"ping","params":1}`, -32600, "4"},
		{"id only", `{"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{"two messages", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, "null"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":8,"method":"ping"} x`, -32700, "null"},
		{"invalid UTF-8 outside strings", "\xff\xfe", -32700, "null"},
		{"over the cap", long, -32600, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input := initLine + c.line + "\n" + `{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n"
			replies := serve(t, input, 1024)
			var got *reply
			var pinged bool
			for i, r := range replies {
				switch string(r.ID) {
				case "0":
				case `"after"`:
					pinged = r.Error == nil
				default:
					if got != nil {
						t.Fatalf("two replies for one bad line: %+v", replies)
					}
					got = &replies[i]
				}
			}
			if got == nil || got.Error == nil {
				t.Fatalf("no error reply; replies %+v", replies)
			}
			if got.Error.Code != c.code || string(got.ID) != c.id {
				t.Errorf("reply id %s code %d (%s), want id %s code %d", got.ID, got.Error.Code, got.Error.Message, c.id, c.code)
			}
			if len(got.Error.Message) > 300 {
				t.Errorf("error message is %d bytes", len(got.Error.Message))
			}
			if !pinged {
				t.Errorf("server stopped serving after the bad line: %+v", replies)
			}
		})
	}
}

// TestIDsEchoedExactly: ids the SDK would round through float64 or
// reject come back byte for byte.
func TestIDsEchoedExactly(t *testing.T) {
	ids := []string{`1.5`, `12345678901234567890123`, `9007199254740993`, `-7`, `1e3`, `0`, `"abc"`, `"\u00e9\"x"`, `""`}
	var b strings.Builder
	b.WriteString(initLine)
	for _, id := range ids {
		b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
	}
	replies := serve(t, b.String(), 0)
	seen := map[string]bool{}
	for _, r := range replies {
		if r.Error != nil {
			t.Errorf("id %s: error %+v", r.ID, *r.Error)
		}
		seen[string(r.ID)] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("id %s not echoed exactly; replies %+v", id, replies)
		}
	}
}

// TestAnsweredAtEOF: requests received before the end of input are
// answered before the server exits, even when they are still running.
func TestAnsweredAtEOF(t *testing.T) {
	input := initLine +
		`{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{"ms":300}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"s2","method":"tools/call","params":{"name":"slow","arguments":{"ms":100}}}` // no newline at EOF
	replies := serve(t, input, 0)
	done := map[string]bool{}
	for _, r := range replies {
		if r.Error == nil && bytes.Contains(r.Result, []byte("done")) {
			done[string(r.ID)] = true
		}
	}
	if !done[`"s1"`] || !done[`"s2"`] {
		t.Fatalf("requests not answered at EOF: %+v", replies)
	}
}

// TestCancelUsesClientID: a notifications/cancelled naming the client's id
// reaches the running request.
func TestCancelUsesClientID(t *testing.T) {
	input := initLine +
		`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"slow","arguments":{"ms":10000}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2.5}}` + "\n"
	start := time.Now()
	serve(t, input, 0)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancelled request kept running %v", d)
	}
}

// TestCancelledGetsNoAnswer: a request the client cancels is stopped and
// gets no response at all (MCP), whether the cancellation finds it
// running or still queued; the session goes on.
func TestCancelledGetsNoAnswer(t *testing.T) {
	input := initLine +
		`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slow","arguments":{"ms":10000}}}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"ms":10000}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"unknown"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n"
	start := time.Now()
	replies := serve(t, input, 0)
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("cancelled requests kept running %v", d)
	}
	pinged := false
	for _, r := range replies {
		switch string(r.ID) {
		case `"c1"`, "7":
			t.Errorf("a cancelled request was answered: %s %+v", r.ID, r.Error)
		case `"after"`:
			pinged = r.Error == nil
		}
	}
	if !pinged {
		t.Errorf("the session stopped after the cancellations: %+v", replies)
	}
}

// TestErrorsHaveCodes: the errors the SDK itself would send with code 0
// get the JSON-RPC code of their kind: a call before initialize and a
// second initialize are invalid requests, initialize with null params has
// invalid params.
func TestErrorsHaveCodes(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":"early","method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":"null","method":"initialize","params":null}` + "\n" +
		initLine +
		`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}` + "\n"
	want := map[string]int64{`"early"`: -32600, `"null"`: -32602, `"again"`: -32600, `"list"`: 0, "0": 0}
	got := map[string]int64{}
	for _, r := range serve(t, input, 0) {
		got[string(r.ID)] = 0
		if r.Error != nil {
			got[string(r.ID)] = r.Error.Code
			if r.Error.Code == 0 {
				t.Errorf("id %s: error without a code: %s", r.ID, r.Error.Message)
			}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("error codes by id %v, want %v (0: answered)", got, want)
	}
}

// TestLongLineNotBuffered: a line far over the cap is skipped while the
// reader holds at most the cap.
func TestLongLineNotBuffered(t *testing.T) {
	const limit = 1 << 10
	src := io.MultiReader(strings.NewReader(`{"x":"`), io.LimitReader(repeatReader('a'), 64<<20), strings.NewReader("\"}\nok\n"))
	br := bufio.NewReaderSize(src, 4096)
	line, tooLong, err := readLine(br, limit)
	if !tooLong || line != nil || err != nil {
		t.Fatalf("first line: %d bytes, tooLong %v, err %v", len(line), tooLong, err)
	}
	line, tooLong, err = readLine(br, limit)
	if string(line) != "ok" || tooLong || err != nil {
		t.Fatalf("second line %q %v %v", line, tooLong, err)
	}
	if _, _, err = readLine(br, limit); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

// TestLineAtCap: a line of exactly the cap is accepted, one byte more is not.
func TestLineAtCap(t *testing.T) {
	for _, c := range []struct {
		n    int
		long bool
	}{{10, false}, {11, true}} {
		br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", c.n)+"\n"), 16)
		line, tooLong, _ := readLine(br, 10)
		if tooLong != c.long || (!c.long && len(line) != c.n) {
			t.Errorf("n=%d: tooLong %v len %d", c.n, tooLong, len(line))
		}
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a conn
// and the final read.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
