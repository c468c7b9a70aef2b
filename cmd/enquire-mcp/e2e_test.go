package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == pdfCommand {
		// In-process loads extract PDFs in a child: this test binary.
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	// The Go build cache lives in the user cache dir too: buildBinary
	// keeps using the real one, or every run recompiles SQLite.
	if out, err := exec.Command(goTool(), "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	// Serve and search use an index found in the user cache dir: the
	// tests get an empty one of their own, never the developer's.
	cache, err := os.MkdirTemp("", "enquire-cache-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// goCache is the Go build cache from before TestMain moved the user
// cache dir.
var goCache string

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// buildBinary compiles the command once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "enquire-e2e-*"); buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "enquire-mcp")
		build := exec.Command(goTool(), "build", "-o", binPath, ".")
		if goCache != "" {
			build.Env = append(os.Environ(), "GOCACHE="+goCache)
		}
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// lockedBuffer collects a subprocess's stderr safely.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeStdioEndToEnd starts the real binary and talks MCP to it over
// stdin/stdout with the go-sdk client, as Claude Code or Cursor would.
func TestServeStdioEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--vault", fixtureVault)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
	}
	if !names["obsidian_search"] || !names["obsidian_read_note"] {
		t.Fatalf("tools = %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": "chlorophyll Calvin cycle", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out tools.SearchOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Matches) == 0 || out.Matches[0].Path != "Science/Photosynthesis.md" || out.Matches[0].PerSignal.TFIDF == nil {
		t.Fatalf("matches = %+v", out.Matches)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	real, _ := filepath.EvalSymlinks(fixtureVault)
	abs, _ := filepath.Abs(real)
	log := stderr.String()
	if !strings.Contains(log, "enquire-mcp "+version+" ready") || !strings.Contains(log, abs) {
		t.Fatalf("stderr lacks a ready line naming version and vault:\n%s", log)
	}
}

func TestServeMissingVaultExitsNonZero(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve", "--vault", filepath.Join(t.TempDir(), "missing"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "no such file or directory") {
		t.Fatalf("stderr = %q, want one clear line", stderr.String())
	}
}
