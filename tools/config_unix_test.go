//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// .obsidian/daily-notes.json is read with a size cap and never blocks on
// a FIFO (issue 10): either way the defaults apply.
func TestDailyNotesConfigIsBounded(t *testing.T) {
	now := time.Date(2026, 3, 10, 18, 30, 0, 0, time.UTC)
	fifo := vaulttest.Copy(t, "../testdata/vault")
	if err := os.MkdirAll(filepath.Join(fifo, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, ".obsidian", "daily-notes.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	huge := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, huge, ".obsidian/daily-notes.json", `{"folder": "Journal", "pad": "`+strings.Repeat("x", 1<<20)+`"}`)
	for name, dir := range map[string]string{"fifo": fifo, "over the cap": huge} {
		cs := connectTo(t, New(engineAt(t, dir, now, vault.Options{}), Options{Version: "test"}))
		done := make(chan ReadNoteOutput, 1)
		go func() {
			done <- decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"title": "today"}))
		}()
		select {
		case out := <-done:
			if out.Path != "Daily/2026-03-10.md" {
				t.Errorf("%s: today = %q, want the default lookup", name, out.Path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: read_note blocked on the daily-notes config", name)
		}
	}
}
