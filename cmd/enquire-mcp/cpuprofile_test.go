package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStartCPUProfile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		path    string
		mem     string
		wantErr bool
		file    bool
	}{
		{name: "off", path: ""},
		{name: "to a file", path: filepath.Join(t.TempDir(), "cpu.prof"), file: true},
		{name: "unwritable", path: filepath.Join(t.TempDir(), "missing", "cpu.prof"), wantErr: true},
		{name: "allocations too", path: filepath.Join(t.TempDir(), "cpu.prof"), mem: filepath.Join(t.TempDir(), "mem.prof"), file: true},
		{name: "allocations only", mem: filepath.Join(t.TempDir(), "mem.prof")},
		{name: "allocations unwritable", path: filepath.Join(t.TempDir(), "cpu.prof"), mem: filepath.Join(t.TempDir(), "missing", "mem.prof"), wantErr: true},
	} {
		stop, err := startCPUProfile(tc.path, tc.mem)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err = %v", tc.name, err)
		}
		if err != nil {
			continue
		}
		if err := stop(); err != nil {
			t.Fatalf("%s: stop: %v", tc.name, err)
		}
		if tc.file {
			if info, err := os.Stat(tc.path); err != nil || info.Size() == 0 {
				t.Fatalf("%s: profile %v, %v", tc.name, info, err)
			}
		}
		for _, p := range []string{tc.mem + ".ready", tc.mem} {
			if tc.mem == "" {
				break
			}
			if info, err := os.Stat(p); err != nil || info.Size() == 0 {
				t.Fatalf("%s: allocation profile %s: %v, %v", tc.name, p, info, err)
			}
		}
	}
}
