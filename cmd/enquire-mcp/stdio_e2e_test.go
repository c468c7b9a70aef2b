package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestServeSurvivesBadLines drives the real binary with raw lines: each
// malformed one gets a JSON-RPC error, the requests around them are
// answered with their ids as sent, and at end of input the server answers
// what it received and exits 0.
func TestServeSurvivesBadLines(t *testing.T) {
	bin := buildBinary(t)
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`, `null`, `[]`, `123`, `{}`, `{"jsonrpc":"1.0","id":2,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `{"jsonrpc":"2.0","id":{"o":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","id":5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"pad":"` + strings.Repeat("x", 9<<20) + `"}}`, // over the 8 MiB cap
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":123456789012345678901,"method":"tools/call","params":{"name":"obsidian_search","arguments":{"query":"chlorophyll","limit":2}}}`,
	}
	cmd := exec.Command(bin, "serve", "--vault", fixtureVault)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stdout bytes.Buffer
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("serve exited with %v\nstderr: %s", err, stderr.String())
	}
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	var errs []int
	ok := map[string]bool{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		if r.Error != nil {
			errs = append(errs, r.Error.Code)
		} else {
			ok[string(r.ID)] = true
		}
	}
	want := []int{-32700, -32600, -32600, -32600, -32600, -32600, -32600, -32600, -32700, -32600}
	if len(errs) != len(want) {
		t.Fatalf("error codes %v, want %v\nstderr: %s", errs, want, stderr.String())
	}
	for i := range want {
		if errs[i] != want[i] {
			t.Errorf("error %d: code %d, want %d", i, errs[i], want[i])
		}
	}
	for _, id := range []string{"0", "1.5", "123456789012345678901"} {
		if !ok[id] {
			t.Errorf("no answer with id %s (answered: %v)", id, ok)
		}
	}
}
