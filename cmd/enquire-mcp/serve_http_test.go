package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

const e2eToken = "Xk3vQ9pL2mN8rT5wY7zA1bC4dE6fG0hJ-sU_qWeRtYu"

func TestServeHTTPRefusesUnsafeStarts(t *testing.T) {
	weak := filepath.Join(t.TempDir(), "weak")
	if err := os.WriteFile(weak, []byte("hunter2hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   string // ENQUIRE_HTTP_TOKEN
		args  []string
		code  int
		error string
	}{
		{"no-auth on a non-loopback address", "", []string{"--no-auth", "--addr", "0.0.0.0:0", "--allow-remote"}, 2, "--no-auth is refused on the non-loopback address"},
		{"no-auth on all interfaces", "", []string{"--no-auth", "--addr", ":0"}, 2, "--no-auth is refused"},
		{"remote without --allow-remote", e2eToken, []string{"--addr", "0.0.0.0:0"}, 2, "add --allow-remote"},
		{"no token", "", nil, 2, "a bearer token is required"},
		{"weak token in env", "abcdefgh12345678", nil, 1, "token too weak"},
		{"weak token file", "", []string{"--token-file", weak}, 1, "token too weak"},
		{"missing token file", "", []string{"--token-file", weak + ".missing"}, 1, "no such file"},
		{"tls cert without key", e2eToken, []string{"--tls-cert", "c.pem"}, 2, "go together"},
		{"unreadable tls files", e2eToken, []string{"--tls-cert", weak + ".crt", "--tls-key", weak + ".key"}, 1, "TLS certificate"},
		{"bad poll interval", e2eToken, []string{"--poll", "10ms"}, 2, "--poll"},
		{"bad addr", e2eToken, []string{"--addr", "8765"}, 2, "--addr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tokenEnv, tt.env)
			code, _, stderr := runCLI(t, append([]string{"serve-http", "--vault", fixtureVault}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.error) {
				t.Fatalf("code %d (want %d), stderr %q (want %q)", code, tt.code, stderr, tt.error)
			}
		})
	}
}

func TestGenToken(t *testing.T) {
	code, out, _ := runCLI(t, "gen-token")
	_, out2, _ := runCLI(t, "gen-token")
	tok := strings.TrimSpace(out)
	if code != 0 || len(tok) != 43 || tok == strings.TrimSpace(out2) {
		t.Fatalf("gen-token: %d %q %q", code, out, out2)
	}
	file := filepath.Join(t.TempDir(), "tok")
	if code, _, stderr := runCLI(t, "gen-token", "--out", file); code != 0 {
		t.Fatalf("--out: %d %s", code, stderr)
	}
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", info, err)
	}
	if code, _, stderr := runCLI(t, "gen-token", "--out", file); code != 1 || !strings.Contains(stderr, "exists") {
		t.Fatalf("overwrite: %d %s", code, stderr)
	}
}

// startHTTP runs the binary's serve-http over vault on a free 127.0.0.1
// port and returns its MCP URL and the process.
func startHTTP(t *testing.T, bin, vault string, extra ...string) (string, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve-http", "--vault", vault, "--addr", "127.0.0.1:0"}, extra...)...)
	cmd.Env = append(os.Environ(), tokenEnv+"="+e2eToken)
	pr, pw := io.Pipe()
	var log lockedBuffer
	cmd.Stderr = io.MultiWriter(pw, &log)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urlc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`url=(http://\S+)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case u := <-urlc:
		return u, cmd, &log
	case <-time.After(60 * time.Second):
		t.Fatalf("serve-http did not start:\n%s", log.String())
	}
	return "", nil, nil
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestSameAnswersOverStdioAndHTTP runs the same tool calls through both
// transports of the real binary and requires identical results.
func TestSameAnswersOverStdioAndHTTP(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	stdio, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "serve", "--vault", fixtureVault)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()

	url, cmd, log := startHTTP(t, bin, fixtureVault)
	httpc, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{e2eToken}}}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v\n%s", err, log.String())
	}
	defer httpc.Close()

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_search", map[string]any{"query": "chlorophyll Calvin cycle", "limit": 3}},
		{"obsidian_read_note", map[string]any{"path": "Science/Photosynthesis.md"}},
		{"obsidian_get_backlinks", map[string]any{"path": "Science/Photosynthesis.md"}},
		{"obsidian_list_tags", map[string]any{}},
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			var got [2]string
			for i, cs := range []*mcp.ClientSession{stdio, httpc} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					t.Fatalf("transport %d: %v %+v", i, err, res)
				}
				b, _ := json.Marshal(res.StructuredContent)
				got[i] = string(b)
			}
			if got[0] != got[1] || len(got[0]) < 20 {
				t.Fatalf("stdio and HTTP differ:\nstdio %s\nhttp  %s", got[0], got[1])
			}
		})
	}

	// SIGTERM stops the server cleanly.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(log.String(), "serve-http stopped") {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve-http did not stop on SIGTERM")
	}
}

// TestLiveChangeSeenByEveryHTTPClient: one engine behind all connections,
// so a note added to the vault while serving is found by every client.
func TestLiveChangeSeenByEveryHTTPClient(t *testing.T) {
	bin := buildBinary(t)
	dir := vaulttest.Copy(t, fixtureVault)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url, _, log := startHTTP(t, bin, dir, "--poll", "200ms")
	var clients []*mcp.ClientSession
	for range 3 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{e2eToken}}}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, log.String())
		}
		defer cs.Close()
		clients = append(clients, cs)
	}
	found := func(cs *mcp.ClientSession) bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": "zyxquuxlive"}})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out tools.SearchOutput
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return len(out.Matches) > 0 && out.Matches[0].Path == "Live Note.md"
	}
	for _, cs := range clients {
		if found(cs) {
			t.Fatal("found before the note exists")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Live Note.md"), []byte("# Live\n\nzyxquuxlive appears while serving.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !found(clients[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("the new note never appeared\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i, cs := range clients[1:] {
		if !found(cs) {
			t.Fatalf("client %d does not see what client 0 sees", i+1)
		}
	}
}
