package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("state\x00"), 5000)
	files := map[string][]byte{"empty": nil, "small": []byte("x"), "big": big}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		want    []byte
		wantErr bool
	}{
		{"empty", nil, false},
		{"small", []byte("x"), false},
		{"big", big, false},
		{"missing", nil, true},
		{".", nil, true}, // a folder
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, evict, err := ReadFile(filepath.Join(dir, tt.name))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(tt.want))
			}
			if err == nil {
				evict() // the pages are read again when touched
				if !bytes.Equal(got, tt.want) {
					t.Fatalf("after evict: got %d bytes, want %d", len(got), len(tt.want))
				}
			}
		})
	}
}

// TestReadFileSurvivesReplace: a mapped file replaced by a rename (how
// state files are written) leaves the bytes read before unchanged.
func TestReadFileSurvivesReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state")
	old := bytes.Repeat([]byte("old "), 4096)
	if err := os.WriteFile(p, old, 0o600); err != nil {
		t.Fatal(err)
	}
	got, evict, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, bytes.Repeat([]byte("new!"), 10), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, old) {
		t.Fatal("bytes changed after the file was replaced")
	}
	evict() // dropped pages come back from the replaced (old) file
	if !bytes.Equal(got, old) {
		t.Fatal("bytes changed after the file was replaced and the pages evicted")
	}
}
