package statefile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestOpen(t *testing.T) {
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
			m, err := Open(filepath.Join(dir, tt.name))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(m.Data, tt.want) {
				t.Fatalf("got %d bytes, want %d", len(m.Data), len(tt.want))
			}
			m.Evict() // the pages are read again when touched
			if !bytes.Equal(m.Data, tt.want) {
				t.Fatalf("after evict: got %d bytes, want %d", len(m.Data), len(tt.want))
			}
		})
	}
}

// TestOpenSurvivesReplace: a mapped file replaced by a rename (how state
// files are written) leaves the bytes read before unchanged, through the
// mapping and through Copy.
func TestOpenSurvivesReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state")
	old := bytes.Repeat([]byte("old "), 4096)
	if err := os.WriteFile(p, old, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
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
	if !bytes.Equal(m.Data, old) {
		t.Fatal("bytes changed after the file was replaced")
	}
	m.Evict() // dropped pages come back from the replaced (old) file
	if !bytes.Equal(m.Data, old) {
		t.Fatal("bytes changed after the file was replaced and the pages evicted")
	}
	s := unsafe.String(&m.Data[100], 200)
	if got := m.Copy(s); got != string(old[100:300]) {
		t.Fatalf("Copy after the replace = %q", got)
	}
}

// TestCopy: a string of the mapping comes back equal but in other memory
// (read with pread); any other string comes back as it is.
func TestCopy(t *testing.T) {
	data := []byte(strings.Repeat("0123456789abcdef", 1000))
	m := openMapped(t, data)
	inside := func(off, n int) string { return unsafe.String(&m.Data[off], n) }
	heap := strings.Repeat("x", 64)
	tests := []struct {
		name   string
		s      string
		copied bool
	}{
		{"start", inside(0, 10), true},
		{"middle", inside(5000, 300), true},
		{"to the end", inside(len(data)-7, 7), true},
		{"whole file", inside(0, len(data)), true},
		{"empty", "", false},
		{"heap string", heap, false},
		{"literal", "0123456789", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Copy(tt.s)
			if got != tt.s {
				t.Fatalf("Copy = %q, want %q", got, tt.s)
			}
			same := len(got) == 0 || unsafe.StringData(got) == unsafe.StringData(tt.s)
			if same == tt.copied {
				t.Fatalf("copied = %v, want %v", !same, tt.copied)
			}
		})
	}
	var none *File
	if got := none.Copy("abc"); got != "abc" {
		t.Fatalf("nil File: Copy = %q", got)
	}
	whole := &File{Data: data} // read whole: nothing to copy from
	if s := unsafe.String(&data[3], 5); unsafe.StringData(whole.Copy(s)) != unsafe.StringData(s) {
		t.Fatal("a file read whole copied its string")
	}
}

// TestReadInto: bytes of the mapping are read into dst; anything else,
// or a dst too short, reads nothing.
func TestReadInto(t *testing.T) {
	data := []byte(strings.Repeat("abcdefgh", 600))
	m := openMapped(t, data)
	tests := []struct {
		name string
		src  []byte
		dst  int
		ok   bool
	}{
		{"inside", m.Data[8:24], 16, true},
		{"to the end", m.Data[len(data)-3:], 3, true},
		{"dst longer", m.Data[0:4], 10, true},
		{"dst too short", m.Data[0:4], 3, false},
		{"empty", m.Data[5:5], 4, false},
		{"heap", []byte("abcdefgh"), 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, tt.dst)
			if got := m.ReadInto(dst, tt.src); got != tt.ok {
				t.Fatalf("ReadInto = %v, want %v", got, tt.ok)
			}
			if tt.ok && !bytes.Equal(dst[:len(tt.src)], tt.src) {
				t.Fatalf("read %q, want %q", dst[:len(tt.src)], tt.src)
			}
			if !tt.ok && !bytes.Equal(dst, make([]byte, tt.dst)) {
				t.Fatal("read something on failure")
			}
		})
	}
}

// TestWritePrefix: the first n bytes of a mapped file, read with pread;
// nothing for a file read whole or an n out of range.
func TestWritePrefix(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300000) // over one 1 MiB block
	m := openMapped(t, data)
	for _, n := range []int{0, 1, 1 << 20, len(data) - 4, len(data)} {
		var b bytes.Buffer
		if !m.WritePrefix(&b, n) || !bytes.Equal(b.Bytes(), data[:n]) {
			t.Fatalf("n=%d: wrote %d bytes, want the file's first %d", n, b.Len(), n)
		}
	}
	for _, n := range []int{-1, len(data) + 1} {
		if m.WritePrefix(io.Discard, n) {
			t.Fatalf("n=%d: reported success", n)
		}
	}
	if (&File{Data: data}).WritePrefix(io.Discard, 3) {
		t.Fatal("a file read whole reported success")
	}
}

// openMapped writes data to a file and opens it with Open, requiring a
// mapping (requireMapping).
func openMapped(t *testing.T, data []byte) *File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	requireMapping(t, m)
	return m
}

// requireMapping skips the test where Open cannot map files, and fails it
// where it can but m was read whole.
func requireMapping(t *testing.T, m *File) {
	t.Helper()
	if !CanMap {
		t.Skip("no mapping on this system")
	}
	if m.f == nil {
		t.Fatal("Open read the file whole on a system that maps files")
	}
}
