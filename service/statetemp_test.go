package service

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestCleanStateTemps(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	old, fresh := now.Add(-2*staleStateTempAge), now.Add(-staleStateTempAge/2)
	dir := t.TempDir()
	state := filepath.Join(dir, "a.db.engine")
	for _, f := range []struct {
		name   string
		mtime  time.Time
		dir    bool
		remove bool
	}{
		{"a.db.engine.123.tmp", old, false, true},       // a save killed long ago
		{"a.db.engine.456.tmp", fresh, false, false},    // maybe another process saving now
		{"a.db.engine", old, false, false},              // the state itself
		{"b.db.engine.789.tmp", old, false, false},      // another vault's
		{"a.db.engine.dir.tmp", old, true, false},       // not a file
		{"a.db.engine.123.tmp.keep", old, false, false}, // not ours
		{"a.db.engine.x[1].tmp", old, false, true},      // glob characters are literal
	} {
		p := filepath.Join(dir, f.name)
		var err error
		if f.dir {
			err = os.Mkdir(p, 0o700)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o600)
		}
		if err == nil {
			err = os.Chtimes(p, f.mtime, f.mtime)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			_, err := os.Lstat(p)
			if gone := os.IsNotExist(err); gone != f.remove {
				t.Errorf("%s: removed %v, want %v", f.name, gone, f.remove)
			}
		}()
	}
	removed, err := cleanStateTemps(state, now)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{filepath.Join(dir, "a.db.engine.123.tmp"), filepath.Join(dir, "a.db.engine.x[1].tmp")}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if removed, err := cleanStateTemps(filepath.Join(dir, "missing", "a.db.engine"), now); err != nil || removed != nil {
		t.Errorf("missing folder: %v, %v", removed, err)
	}
}
