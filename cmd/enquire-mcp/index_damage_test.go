package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestDamagedIndexHealsInEveryCommand damages the index at the default
// location the ways a crash or a disk does (cut short, pages overwritten)
// and runs each command on it: `index`, `serve` and, for one damage,
// `serve-http`. Each one succeeds, says in one line that it rebuilt the
// index, and then answers exactly as the undamaged index does, with BM25
// on; the vault is never touched.
func TestDamagedIndexHealsInEveryCommand(t *testing.T) {
	bin := buildBinary(t)
	root := vaulttest.Copy(t, fixtureVault)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the default location, for the commands and the test
	runIndexCmd(t, bin, "--vault", root)
	files, err := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "enquire-mcp", "*.db"))
	if err != nil || len(files) != 1 {
		t.Fatalf("index files %v: %v", files, err)
	}
	ixFile := files[0]
	good, err := os.ReadFile(ixFile)
	if err != nil {
		t.Fatal(err)
	}
	goodState, err := os.ReadFile(ixFile + ".engine")
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.BigEndian.Uint16(good[16:18]))
	if len(good) < 8*pageSize {
		t.Fatalf("index of %d bytes: too small to damage in the middle", len(good))
	}
	vaultSum := treeSum(t, root)
	want, log := damageAnswers(t, bin, root, "serve")
	if strings.Contains(log, "rebuilding") {
		t.Fatalf("the undamaged index was rebuilt:\n%s", log)
	}
	junk := func(b []byte, off, n int) []byte {
		c := slices.Clone(b)
		for i := range n {
			c[off+i] = byte(i*131 + 7)
		}
		return c
	}
	middle := len(good) / pageSize / 2 * pageSize
	damages := []struct {
		name     string
		damage   []byte
		commands []string
	}{
		{"cut to 4096 bytes", good[:4096], []string{"index", "serve"}},
		{"cut to half", good[:len(good)/2], []string{"index", "serve", "serve-http"}},
		{"one page short", good[:len(good)-pageSize], []string{"index", "serve"}},
		{"file header overwritten", junk(good, 0, 100), []string{"index", "serve"}},
		{"page 1 b-tree header overwritten", junk(good, 100, 12), []string{"index", "serve"}},
		{"page 2 overwritten", junk(good, pageSize, pageSize), []string{"index", "serve"}},
		{"middle page overwritten", junk(good, middle, pageSize), []string{"index", "serve"}},
	}
	for _, d := range damages {
		for _, command := range d.commands {
			t.Run(d.name+"/"+command, func(t *testing.T) {
				for _, suffix := range []string{"-wal", "-shm"} {
					if err := os.Remove(ixFile + suffix); err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(ixFile, d.damage, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(ixFile+".engine", goodState, 0o600); err != nil {
					t.Fatal(err)
				}
				var got, log string
				if command == "index" {
					out, err := exec.Command(bin, "index", "--vault", root).CombinedOutput()
					if err != nil {
						t.Fatalf("index on the damaged file: %v\n%s", err, out)
					}
					log = string(out)
					var after string
					if got, after = damageAnswers(t, bin, root, "serve"); strings.Contains(after, "rebuilding") {
						t.Fatalf("the index left by `index` was rebuilt again by serve:\n%s", after)
					}
				} else {
					got, log = damageAnswers(t, bin, root, command)
					if strings.Contains(log, "BM25 is off") {
						t.Fatalf("%s turned BM25 off:\n%s", command, log)
					}
				}
				if n := strings.Count(log, "rebuilding the index"); n != 1 || !strings.Contains(log, "damaged") {
					t.Fatalf("%s said %d times that it rebuilt a damaged index:\n%s", command, n, log)
				}
				if got != want {
					t.Fatalf("%s's answers differ from the undamaged index's:\ngot  %s\nwant %s", command, got, want)
				}
				if treeSum(t, root) != vaultSum {
					t.Fatal("the vault changed")
				}
			})
		}
	}
}

// damageQueries are the fixture's topics: their hits and scores show
// whether the index answers as it should.
var damageQueries = []string{"chlorophyll Calvin cycle", "sourdough hydration", "python graph search", "garden tomato", "levain"}

// damageAnswers starts serve or serve-http on root (the index at the
// default location), runs damageQueries, stops it and returns the answers (BM25 must
// be among their signals) and its log.
func damageAnswers(t *testing.T, bin, root, command string) (answers, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--vault", root, "--watch=false"}
	var cs *mcp.ClientSession
	var logs fmt.Stringer
	var stop func()
	client := mcp.NewClient(&mcp.Implementation{Name: "damage", Version: "1"}, nil)
	if command == "serve" {
		cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
		var buf lockedBuffer
		cmd.Stderr = &buf
		var err error
		if cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err != nil {
			t.Fatalf("serve: %v\n%s", err, buf.String())
		}
		logs, stop = &buf, func() { cs.Close() }
	} else {
		url, cmd, buf := startHTTP(t, bin, root, args[2:]...)
		var err error
		if cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{e2eToken}}}, nil); err != nil {
			t.Fatalf("serve-http: %v\n%s", err, buf.String())
		}
		logs, stop = buf, func() { cs.Close(); stopServeHTTP(t, cmd, syscall.SIGTERM, buf) }
	}
	var b strings.Builder
	for _, q := range damageQueries {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q, "limit": 5}})
		if err != nil || res.IsError {
			t.Fatalf("%s: search %q: %v %+v\n%s", command, q, err, res, logs.String())
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out tools.SearchOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(out.SignalsUsed, "bm25") || len(out.SignalErrors) > 0 {
			t.Fatalf("%s: search %q without BM25: %v %v\n%s", command, q, out.SignalsUsed, out.SignalErrors, logs.String())
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	stop()
	return b.String(), logs.String()
}

// treeSum hashes every file's path and content under root.
func treeSum(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
