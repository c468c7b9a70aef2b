package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestTwoIndexRunsAtOnce starts two `index` runs on one index file at the
// same time: both succeed (the second waits for the first, saying so when
// it has to), and the index holds every note once.
func TestTwoIndexRunsAtOnce(t *testing.T) {
	bin := buildBinary(t)
	root := bigVault(t, 600)
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = exec.Command(bin, "index", "--vault", root, "--index-file", ixFile).CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || bytes.Contains(outs[i], []byte("UNIQUE")) {
			t.Fatalf("run %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	t.Logf("run 0:\n%s\nrun 1:\n%s", outs[0], outs[1])
	clean := filepath.Join(t.TempDir(), "clean.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", clean)
	if got, want := checkIndex(t, root, ixFile), checkIndex(t, root, clean); got != want {
		t.Fatalf("index answers %d hits, a clean one %d", got, want)
	}
}

// TestIndexNoticesRandomBytes: random bytes written into the middle of
// the index file are found by the next `index` run, which says so and
// rebuilds, leaving a sound index.
func TestIndexNoticesRandomBytes(t *testing.T) {
	bin := buildBinary(t)
	root := bigVault(t, 300)
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", ixFile)
	info, err := os.Stat(ixFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(ixFile, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef, 0x13, 0x37, 0x00, 0xff}, 512)
	if _, err := f.WriteAt(junk, info.Size()/2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command(bin, "index", "--vault", root, "--index-file", ixFile).CombinedOutput()
	if err != nil {
		t.Fatalf("index after damage: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "rebuilding the index: damaged") || !strings.Contains(string(out), "300 added") {
		t.Fatalf("damage not reported and repaired:\n%s", out)
	}
	clean := filepath.Join(t.TempDir(), "clean.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", clean)
	if got, want := checkIndex(t, root, ixFile), checkIndex(t, root, clean); got != want {
		t.Fatalf("index answers %d hits, a clean one %d", got, want)
	}
}
