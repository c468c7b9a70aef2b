package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// testDoctorEnv is a fixed machine: Linux, no OCR tools, 8192 watches.
func testDoctorEnv() doctorEnv {
	return doctorEnv{goos: "linux", goarch: "amd64", goVersion: "go1.x", version: "test",
		lookPath: func(string) (string, error) { return "", errors.New("not found") },
		readFile: func(string) ([]byte, error) { return []byte("8192\n"), nil }}
}

// golden compares the doctor's --json output (with the machine's paths
// and the index's size replaced by placeholders) with testdata/name.
func golden(t *testing.T, name string, rep doctorReport, root, cache string) {
	t.Helper()
	b, err := marshalJSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(b), cache, "$CACHE")
	got = strings.ReplaceAll(got, root, "$VAULT")
	got = regexp.MustCompile(`"\d+(\.\d)? (B|KiB|MiB), `).ReplaceAllString(got, `"$$SIZE, `)
	got = regexp.MustCompile(`[0-9a-f]{16}\.db`).ReplaceAllString(got, `$$HASH.db`)
	file := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/enquire-mcp -run Doctor -update)", err)
	}
	if got != string(want) {
		t.Fatalf("doctor --json differs from %s:\n%s", file, got)
	}
}

func TestDoctorGoldenFixtureVault(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	root, err := vault.RealRoot(fixtureVault)
	if err != nil {
		t.Fatal(err)
	}
	vf := &vaultFlags{vault: fixtureVault}
	rep := diagnose(context.Background(), vf, testDoctorEnv())
	if !rep.Ready {
		t.Fatalf("fixture not ready: %+v", rep)
	}
	golden(t, "doctor-vault.json", rep, root, cache)

	// The CLI: exit 0, JSON on stdout.
	code, stdout, stderr := runCLI(t, "doctor", "--vault", fixtureVault, "--json")
	if code != 0 || !strings.Contains(stdout, `"ready": true`) {
		t.Fatalf("doctor --json: %d %q %q", code, stdout, stderr)
	}

}

func TestChangedSince(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	stamps := map[string]index.Stamp{
		"same.md": {Size: 10, ModTime: t0.UnixNano()}, "grown.md": {Size: 10, ModTime: t0.UnixNano()},
		"touched.md": {Size: 10, ModTime: t0.UnixNano()}, "deleted.md": {Size: 1},
	}
	files := map[string]vault.File{
		"same.md": {Size: 10, ModTime: t0}, "grown.md": {Size: 11, ModTime: t0},
		"touched.md": {Size: 10, ModTime: t0.Add(time.Second)}, "new.md": {Size: 3, ModTime: t0},
	}
	if n := changedSince(stamps, files); n != 4 {
		t.Fatalf("changedSince = %d, want 4 (grown, touched, new, deleted)", n)
	}
}

func mustDefaultPath(t *testing.T, root string) string {
	t.Helper()
	p, err := index.DefaultPath(root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDoctorGoldenBrokenVault: malformed notes and an index file that is
// not a database: not ready, exit 1, each failure with a fix.
func TestDoctorGoldenBrokenVault(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := vaulttest.Write(t, map[string]string{
		"Broken.md": "---\ntitle: [unclosed\n---\nbody\n",
		"Fine.md":   "# Fine\n",
		"scan.pdf":  "%PDF-1.4 not really",
	})
	root, err := vault.RealRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := mustDefaultPath(t, root)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Repeat("garbage ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := diagnose(context.Background(), &vaultFlags{vault: dir}, testDoctorEnv())
	if rep.Ready {
		t.Fatalf("broken vault reported ready: %+v", rep)
	}
	golden(t, "doctor-broken.json", rep, root, cache)
	code, stdout, stderr := runCLI(t, "doctor", "--vault", dir)
	if code != 1 || !strings.Contains(stdout, "[fail]") || !strings.Contains(stdout, "fix: enquire-mcp index") {
		t.Fatalf("doctor on a broken vault: %d %q %q", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "garbage") {
		t.Fatal("doctor changed the index file")
	}
}

func TestDoctorMissingVaultAndLimits(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, stdout, _ := runCLI(t, "doctor", "--vault", filepath.Join(t.TempDir(), "nope"), "--json")
	if code != 1 || !strings.Contains(stdout, `"ready": false`) || !strings.Contains(stdout, "no such file or directory") {
		t.Fatalf("missing vault: %d %q", code, stdout)
	}
	env := testDoctorEnv()
	env.readFile = func(string) ([]byte, error) { return []byte("3\n"), nil }
	snap, err := vault.Load(context.Background(), fixtureVault, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := watchCheck(env, snap); c.Status != statusWarn || !strings.Contains(c.Fix, "max_user_watches") {
		t.Fatalf("low inotify limit: %+v", c)
	}
	env.goos = "darwin"
	if c := ocrCheck(env, &index.Info{PDFsWithoutText: 2}); c.Status != statusWarn || c.Fix != "brew install poppler tesseract" {
		t.Fatalf("darwin OCR advice: %+v", c)
	}
}
