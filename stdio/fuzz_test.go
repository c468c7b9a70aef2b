package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFraming feeds arbitrary input to a connection and answers every
// request it passes on, as the SDK would. Whatever the input: nothing
// panics, Read ends with EOF, every line written is one JSON-RPC 2.0
// object with a valid id, every error reply is -32700 or -32600 with a
// short message, and every request passed on is answered with the exact
// id bytes the client sent.
func FuzzFraming(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"a","params":{}}`,
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
		"null\n[]\n123\n{}\n\"s\"\n", `{"jsonrpc":"1.0","id":7,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"} x`, "\r\n\r\n  \n", "\xff\xfe\n",
		`{"jsonrpc":"2.0","id" : -0.0e+1 ,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":"a","id":2,"method":"ping"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out lockedBuffer
		tr := &Transport{In: bytes.NewReader(input), Out: &out, MaxLine: 256, Drain: time.Second}
		c, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var sent []string // the private ids of requests passed on
		for {
			msg, err := c.Read(ctx)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("Read: %v", err)
				}
				break
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				sent = append(sent, string(mustJSON(t, req.ID.Raw())))
				if err := c.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"ok":true}`)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.Close()
		answered := 0
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r struct {
				Version string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("wrote non-JSON line %q: %v", sc.Bytes(), err)
			}
			if r.Version != "2.0" {
				t.Fatalf("reply without version: %s", sc.Bytes())
			}
			if k := idKind(r.ID); k != 's' && k != 'n' && k != '0' {
				t.Fatalf("reply id %s", r.ID)
			}
			if r.Error != nil {
				if r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest || len(r.Error.Message) > 300 {
					t.Fatalf("error reply %+v", *r.Error)
				}
				continue
			}
			answered++
			if !bytes.Contains(input, r.ID) {
				t.Fatalf("answered id %s the client never sent", r.ID)
			}
		}
		if answered != len(sent) {
			t.Fatalf("%d requests passed on, %d answered", len(sent), answered)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
