package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
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

	"github.com/enquire-mcp/enquire-mcp/httpserve/httpservetest"
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
		{"token as a flag value", "", []string{"--token", e2eToken}, 2, "flag provided but not defined: -token"},
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
	// A fresh machine has no ~/.config/enquire-mcp yet.
	home := t.TempDir()
	nested := filepath.Join(home, ".config", "enquire-mcp", "token")
	if code, _, stderr := runCLI(t, "gen-token", "--out", nested); code != 0 {
		t.Fatalf("--out into missing folders: %d %s", code, stderr)
	}
	for _, dir := range []string{filepath.Join(home, ".config"), filepath.Dir(nested)} {
		if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
			t.Fatalf("folder %s: %v %v (want mode 0700)", dir, info, err)
		}
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

	// The same tools (with their schemas), resources, resource templates
	// and prompts are offered over both transports.
	lists := []struct {
		name string
		list func(*mcp.ClientSession) (any, error)
	}{
		{"tools/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListTools(ctx, nil) }},
		{"resources/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListResources(ctx, nil) }},
		{"resources/templates/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListResourceTemplates(ctx, nil) }},
		{"prompts/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListPrompts(ctx, nil) }},
	}
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			var got [2]string
			for i, cs := range []*mcp.ClientSession{stdio, httpc} {
				res, err := l.list(cs)
				if err != nil {
					t.Fatalf("transport %d: %v", i, err)
				}
				b, _ := json.Marshal(res)
				got[i] = string(b)
			}
			if got[0] != got[1] || len(got[0]) < 40 {
				t.Fatalf("stdio and HTTP differ:\nstdio %s\nhttp  %s", got[0], got[1])
			}
		})
	}

	// SIGTERM stops the server cleanly.
	stopServeHTTP(t, cmd, syscall.SIGTERM, log)
}

// stopServeHTTP sends sig to a running serve-http and waits (at most
// 20 s) for it to exit cleanly, saying so in its log.
func stopServeHTTP(t *testing.T, cmd *exec.Cmd, sig os.Signal, log fmt.Stringer) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(log.String(), "serve-http stopped") {
			t.Fatalf("exit after %s: %v\n%s", sig, err, log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve-http did not stop on %s", sig)
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

// TestServeHTTPCheckWarnings: the start-up checks warn about plain HTTP on
// a non-loopback address (not when TLS is served directly or the address
// is loopback) and about a token file other users can read. Nothing
// listens: check runs before the port opens.
func TestServeHTTPCheckWarnings(t *testing.T) {
	cert, key, _ := httpservetest.SelfSigned(t)
	dir := t.TempDir()
	private, shared := filepath.Join(dir, "private"), filepath.Join(dir, "shared")
	for file, mode := range map[string]os.FileMode{private: 0o600, shared: 0o644} {
		if err := os.WriteFile(file, []byte(e2eToken+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil { // umask-proof
			t.Fatal(err)
		}
	}
	const plain, readable = "serving plain HTTP on a non-loopback address", "readable by other users"
	tests := []struct {
		name  string
		flags httpFlags
		want  []string // substrings, one per warning, in order
	}{
		{"loopback", httpFlags{addr: "127.0.0.1:8765", tokenFile: private}, nil},
		{"localhost, no auth", httpFlags{addr: "localhost:8765", noAuth: true}, nil},
		{"remote, plain HTTP", httpFlags{addr: "0.0.0.0:8765", allowRemote: true, tokenFile: private}, []string{plain}},
		{"remote, all interfaces", httpFlags{addr: ":8765", allowRemote: true, tokenFile: private}, []string{plain}},
		{"remote with TLS", httpFlags{addr: "0.0.0.0:8765", allowRemote: true, tokenFile: private, tlsCert: cert, tlsKey: key}, nil},
		{"token file readable by others", httpFlags{addr: "127.0.0.1:8765", tokenFile: shared}, []string{readable}},
		{"both", httpFlags{addr: "192.0.2.1:8765", allowRemote: true, tokenFile: shared}, []string{plain, readable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, warnings, err := tt.flags.check()
			if err != nil {
				t.Fatal(err)
			}
			if wantToken := !tt.flags.noAuth; (token == e2eToken) != wantToken {
				t.Fatalf("token %q", token)
			}
			checkWarnings(t, warnings, tt.want)
		})
	}
}

// TestServeHTTPSignalClosesIndex: SIGTERM and SIGINT stop serve-http with
// exit status 0 after a search through the persistent index, and the
// index is closed cleanly: SQLite's -wal and -shm files, present while
// it serves, are gone (a killed process leaves them).
func TestServeHTTPSignalClosesIndex(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			ix := filepath.Join(t.TempDir(), "index.db")
			if out, err := exec.Command(bin, "index", "--vault", fixtureVault, "--index-file", ix).CombinedOutput(); err != nil {
				t.Fatalf("index: %v\n%s", err, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			url, cmd, log := startHTTP(t, bin, fixtureVault, "--persistent-index", "--index-file", ix)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{e2eToken}}}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, log.String())
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": "chlorophyll"}})
			if err != nil || res.IsError {
				t.Fatalf("search: %v %+v", err, res)
			}
			if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"bm25"`) {
				t.Fatalf("the search did not use the persistent index (no bm25 signal): %s", b)
			}
			cs.Close()
			if _, err := os.Stat(ix + "-wal"); err != nil {
				t.Fatalf("while serving, the index has no WAL (the check below would prove nothing): %v", err)
			}
			stopServeHTTP(t, cmd, sig, log)
			for _, suffix := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(ix + suffix); !os.IsNotExist(err) {
					t.Fatalf("index%s still there after %s (index not closed cleanly): %v\n%s", suffix, sig, err, log.String())
				}
			}
			if strings.Contains(log.String(), "not closed cleanly") {
				t.Fatalf("closing the index failed:\n%s", log.String())
			}
		})
	}
}

// TestExposureWarnings: on a non-loopback address serve-http warns that
// only listed Host names are accepted, and that write (or memory) tools
// reach the network, as SECURITY.md says.
func TestExposureWarnings(t *testing.T) {
	const hosts, write, memory = "add --allow-host NAME", "write tools are exposed", "memory tools are exposed"
	tests := []struct {
		name   string
		remote bool
		hf     httpFlags
		sf     serveFlags
		want   []string
	}{
		{"loopback, write on", false, httpFlags{addr: "127.0.0.1:8765"}, serveFlags{enableWrite: true}, nil},
		{"remote, read-only", true, httpFlags{addr: "0.0.0.0:8765"}, serveFlags{}, []string{hosts}},
		{"remote, hosts listed", true, httpFlags{addr: "0.0.0.0:8765", hosts: "notes.lan"}, serveFlags{}, nil},
		{"remote, write", true, httpFlags{addr: "0.0.0.0:8765", hosts: "notes.lan"}, serveFlags{enableWrite: true}, []string{write}},
		{"remote, memory", true, httpFlags{addr: "0.0.0.0:8765"}, serveFlags{enableMemory: true}, []string{hosts, memory}},
		{"remote, write and memory", true, httpFlags{addr: "0.0.0.0:8765", hosts: "notes.lan"}, serveFlags{enableWrite: true, enableMemory: true}, []string{write}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkWarnings(t, exposureWarnings(tt.remote, &tt.hf, &tt.sf), tt.want)
		})
	}
}

// TestSecondSignalExitsAtOnce: the first SIGINT starts a graceful stop
// that waits for a request in flight (here a POST whose body never
// arrives); a second SIGINT ends the process at once with code 130.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	bin := buildBinary(t)
	u, cmd, log := startHTTP(t, bin, fixtureVault)
	host := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", host, e2eToken)
	time.Sleep(300 * time.Millisecond) // the server is now reading the body
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("serve-http exited on the first SIGINT with a request in flight (%v): the test proves nothing\n%s", err, log.String())
	case <-time.After(time.Second):
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(log.String(), "interrupted again") {
			t.Fatalf("after a second SIGINT: %v, want exit code 130 and a message\n%s", err, log.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("serve-http still running 5 s after a second SIGINT\n%s", log.String())
	}
}

// checkWarnings requires one warning per wanted fragment, in order, each
// containing its fragment.
func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Fatalf("warning %d = %q, want %q", i, got[i], w)
		}
	}
}
