package main

import (
	"strings"
	"testing"
)

func TestReplyError(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"isError\":true}"}],"structuredContent":{"hits":[]}}}`
	toolErr := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"no such note"}],"isError":true}}`
	rpcErr := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"unknown tool"}}`
	sse := func(msgs ...string) string {
		var b strings.Builder
		for i, m := range msgs {
			b.WriteString("id: " + string(rune('a'+i)) + "\nevent: message\ndata: " + m + "\n\n")
		}
		return b.String()
	}
	note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`
	for _, tc := range []struct {
		name, body string
		bad        bool
		msg        string
		err        bool
	}{
		{"json ok", ok, false, "", false},
		{"json tool error", toolErr, true, "no such note", false},
		{"json rpc error", rpcErr, true, "unknown tool", false},
		{"sse ok", sse(ok), false, "", false},
		{"sse after a notification", sse(note, toolErr), true, "isError", false},
		{"sse crlf", strings.ReplaceAll(sse(rpcErr), "\n", "\r\n"), true, "unknown tool", false},
		{"other id only", strings.Replace(ok, `"id":7`, `"id":8`, 1), false, "", true},
		{"empty", "", false, "", true},
		{"not json", "data: nope\n\n", false, "", true},
		{"no result", `{"jsonrpc":"2.0","id":7}`, true, "without result", false},
	} {
		bad, msg, err := replyError([]byte(tc.body), 7)
		if bad != tc.bad || (err != nil) != tc.err || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: bad %v msg %q err %v; want bad %v msg ~%q err %v", tc.name, bad, msg, err, tc.bad, tc.msg, tc.err)
		}
	}
}
