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
		wantErr bool
		file    bool
	}{
		{name: "off", path: ""},
		{name: "to a file", path: filepath.Join(t.TempDir(), "cpu.prof"), file: true},
		{name: "unwritable", path: filepath.Join(t.TempDir(), "missing", "cpu.prof"), wantErr: true},
	} {
		stop, err := startCPUProfile(tc.path)
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
	}
}
