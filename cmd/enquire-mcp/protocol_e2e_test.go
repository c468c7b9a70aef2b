package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
)

// blockingEmbedder is an Ollama-compatible embedding server whose
// embedding of a text holding "hangq" never returns until its request
// ends: a call to the real binary that runs until cancelled. started is
// closed when the first such request arrives.
func blockingEmbedder(t *testing.T) (url string, started <-chan struct{}) {
	t.Helper()
	release, first := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model string `json:"model"`
			Input any    `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		texts, ok := in.Input.([]any)
		if !ok {
			texts = []any{in.Input}
		}
		if strings.Contains(fmt.Sprint(texts...), "hangq") {
			once.Do(func() { close(first) })
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		vecs := make([][]float32, len(texts))
		for i := range vecs {
			vecs[i] = []float32{1, 0.5, 0.25, float32(i%7) / 7}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"model": in.Model, "embeddings": vecs})
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: no handler left blocking Close
	return srv.URL, first
}

// protocolVault indexes a small vault with vectors from the blocking
// embedder and returns the flags that serve it with them.
func protocolVault(t *testing.T, bin string) (flags []string, started <-chan struct{}) {
	t.Helper()
	root := t.TempDir()
	servicetest.WriteFile(t, filepath.Join(root, "Bread.md"), []byte("# Bread\n\nLevain, flour and water.\n"))
	servicetest.WriteFile(t, filepath.Join(root, "Tea.md"), []byte("# Tea\n\nGreen tea and black tea.\n"))
	url, started := blockingEmbedder(t)
	flags = []string{"--vault", root, "--index-file", filepath.Join(t.TempDir(), "ix.db")}
	runBin(t, bin, append([]string{"index"}, flags...)...)
	flags = append(flags, "--embedding-model", "ollama:m", "--embedding-url", url)
	runBin(t, bin, append([]string{"build-embeddings"}, flags...)...)
	return flags, started
}

const (
	protoInit    = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	protoHang    = `{"jsonrpc":"2.0","id":"hang","method":"tools/call","params":{"name":"obsidian_embeddings_search","arguments":{"query":"hangq"}}}`
	protoCancel  = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang","reason":"user"}}`
	protoPrompt  = `{"jsonrpc":"2.0","id":"prompt","method":"prompts/get","params":{"name":"review_tag","arguments":{}}}`
	protoNull    = `{"jsonrpc":"2.0","id":"null","method":"initialize","params":null}`
	protoEarly   = `{"jsonrpc":"2.0","id":"early","method":"tools/list"}`
	protoInitted = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// protoWant are the JSON-RPC error codes the protocol tests expect, by id.
var protoWant = map[string]int{`"early"`: -32600, `"null"`: -32602, `"again"`: -32600, `"prompt"`: -32602}

// protoReply is one JSON-RPC response as the tests read it.
type protoReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestProtocolOverStdio drives the real binary's stdio transport: the
// errors the SDK would send with code 0 carry the JSON-RPC codes (a call
// before initialize, initialize with null params, a second initialize, a
// prompt without its required argument), and a cancelled call gets no
// response at all while the session goes on.
func TestProtocolOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	flags, started := protocolVault(t, bin)
	cmd := exec.Command(bin, append([]string{"serve"}, flags...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	replies := make(chan protoReply, 64)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r protoReply
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			replies <- r
		}
	}()
	send := func(lines ...string) {
		for _, l := range lines {
			if _, err := io.WriteString(stdin, l+"\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := map[string]protoReply{}
	await := func(id string) {
		t.Helper()
		for {
			select {
			case r, ok := <-replies:
				if !ok {
					t.Fatalf("serve ended before answering %s\n%s", id, stderr.String())
				}
				got[string(r.ID)] = r
				if string(r.ID) == id {
					return
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no answer to %s\n%s", id, stderr.String())
			}
		}
	}
	send(protoEarly, protoNull, fmt.Sprintf(protoInit, "0"))
	await("0")
	send(protoInitted, fmt.Sprintf(protoInit, `"again"`), protoPrompt, protoHang)
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatalf("the call never reached the embedder\n%s", stderr.String())
	}
	send(protoCancel, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	await(`"after"`)
	stdin.Close()
	for r := range replies {
		got[string(r.ID)] = r
	}
	checkProtoReplies(t, got)
}

func checkProtoReplies(t *testing.T, got map[string]protoReply) {
	t.Helper()
	if r, ok := got[`"hang"`]; ok {
		t.Errorf("the cancelled call was answered: %+v", r.Error)
	}
	for id, code := range protoWant {
		if r, ok := got[id]; !ok || r.Error == nil || r.Error.Code != code {
			t.Errorf("id %s: %+v, want an error with code %d", id, r.Error, code)
		}
	}
	for id, r := range got {
		if r.Error != nil && r.Error.Code == 0 {
			t.Errorf("id %s: error without a code: %s", id, r.Error.Message)
		}
	}
}

// TestProtocolOverHTTP is TestProtocolOverStdio over serve-http with
// sessions (a call without a session id is a 400, and the cancellation
// comes in its own POST).
func TestProtocolOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	flags, started := protocolVault(t, bin)
	base, _, log := startHTTP(t, bin, flags[1], append([]string{"--stateful"}, flags[2:]...)...)
	dataLine := regexp.MustCompile(`(?m)^(?:data: )?(\{.*\})\s*$`)
	post := func(session, body string) (int, http.Header, []protoReply) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+e2eToken)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out []protoReply
		for _, m := range dataLine.FindAllSubmatch(raw, -1) {
			var r protoReply
			if json.Unmarshal(m[1], &r) == nil && len(r.ID) > 0 {
				out = append(out, r)
			}
		}
		return res.StatusCode, res.Header, out
	}
	got := map[string]protoReply{}
	keep := func(rs []protoReply) {
		for _, r := range rs {
			got[string(r.ID)] = r
		}
	}
	if status, _, rs := post("", protoEarly); status != http.StatusBadRequest {
		t.Errorf("a call without a session: HTTP %d, want 400", status)
	} else {
		keep(rs)
	}
	_, _, rs := post("", protoNull)
	keep(rs)
	_, h, rs := post("", fmt.Sprintf(protoInit, "0"))
	session := h.Get("Mcp-Session-Id")
	if session == "" || len(rs) != 1 || rs[0].Error != nil {
		t.Fatalf("initialize: session %q, replies %+v\n%s", session, rs, log.String())
	}
	post(session, protoInitted)
	_, _, rs = post(session, fmt.Sprintf(protoInit, `"again"`))
	keep(rs)
	_, _, rs = post(session, protoPrompt)
	keep(rs)
	hung := make(chan []protoReply, 1)
	go func() {
		_, _, rs := post(session, protoHang)
		hung <- rs
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatalf("the call never reached the embedder\n%s", log.String())
	}
	if status, _, _ := post(session, protoCancel); status != http.StatusAccepted {
		t.Errorf("cancellation: HTTP %d, want 202", status)
	}
	select {
	case rs := <-hung:
		keep(rs)
	case <-time.After(30 * time.Second):
		t.Fatalf("the cancelled call's POST never ended\n%s", log.String())
	}
	if _, _, rs := post(session, `{"jsonrpc":"2.0","id":"after","method":"ping"}`); len(rs) != 1 || rs[0].Error != nil {
		t.Errorf("the session stopped after the cancellation: %+v", rs)
	}
	checkProtoReplies(t, got)
}
