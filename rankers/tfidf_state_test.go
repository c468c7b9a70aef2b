package rankers

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// TestPostingLayout: a posting in memory is its record in the state file
// (slot at byte 0, tf at byte 4), which postingsOf relies on.
func TestPostingLayout(t *testing.T) {
	var p posting
	if unsafe.Sizeof(p) != postingSize || unsafe.Offsetof(p.doc) != 0 || unsafe.Offsetof(p.tf) != 4 {
		t.Fatalf("posting is %d bytes, doc at %d, tf at %d", unsafe.Sizeof(p), unsafe.Offsetof(p.doc), unsafe.Offsetof(p.tf))
	}
}

// TestDecodeLists: posting lists read back equal, in place when aligned
// and copied when not, and damaged records are errors.
func TestDecodeLists(t *testing.T) {
	want := [][]posting{{{0, 1.5}, {3, 0.25}}, nil, {{7, 2}}, {{1, 1}, {2, 1}, {9, 3.5}}}
	encode := func() []byte {
		var p postingLists
		w := &listWriter{p: &p}
		for id, ps := range want {
			w.set(uint32(id), ps)
		}
		out := &statefile.Writer{}
		encodeLists(out, p, uint32(len(want)))
		return out.Buf
	}
	// recordAt is the offset of posting i's record (the records end the
	// encoding).
	recordAt := func(b []byte, i int) int { return len(b) - 6*postingSize + i*postingSize }
	tests := []struct {
		name    string
		shift   int // bytes before the encoding: 1 misaligns the records
		damage  func(b []byte)
		inPlace bool
		wantErr bool
	}{
		{name: "aligned", inPlace: littleEndian()},
		{name: "misaligned", shift: 1},
		{name: "slots not increasing", damage: func(b []byte) { binary.LittleEndian.PutUint32(b[recordAt(b, 1):], 0) }, wantErr: true},
		{name: "misaligned, slots not increasing", shift: 3, damage: func(b []byte) { binary.LittleEndian.PutUint32(b[recordAt(b, 4):], 0) }, wantErr: true},
		{name: "counts disagree", damage: func(b []byte) { b[1] = 1 }, wantErr: true},
		{name: "bad padding", damage: func(b []byte) { b[5] = 9 }, wantErr: true},
		{name: "truncated", damage: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := encode()
			if tt.damage != nil {
				tt.damage(enc)
			}
			if tt.name == "truncated" {
				enc = enc[:len(enc)-3]
			}
			// A buffer from make is 8-aligned: shift moves the records off it.
			buf := make([]byte, tt.shift+len(enc))[tt.shift:]
			copy(buf, enc)
			r := statefile.NewReader(buf)
			got := decodeLists(r, len(want))
			err := r.Done()
			if tt.wantErr {
				if !errors.Is(err, statefile.ErrCorrupt) {
					t.Fatalf("got %v, want statefile.ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			shared := uintptr(unsafe.Pointer(&got[0][0])) >= uintptr(unsafe.Pointer(&buf[0])) &&
				uintptr(unsafe.Pointer(&got[0][0])) < uintptr(unsafe.Pointer(&buf[0]))+uintptr(len(buf))
			if shared != tt.inPlace {
				t.Fatalf("postings in the buffer: %v, want %v", shared, tt.inPlace)
			}
			for id, ps := range got {
				if cap(ps) != len(ps) {
					t.Fatalf("list %d: capacity %d beyond its length %d", id, cap(ps), len(ps))
				}
			}
		})
	}
}
