package statefile_test

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

func TestRoundTrip(t *testing.T) {
	w := &statefile.Writer{}
	when := time.Unix(1700000000, 123456789)
	w.Uint(math.MaxUint64)
	w.Int(-42)
	w.Len(3)
	w.Bool(true)
	w.Text("café ✓")
	w.Strings([]string{"a", "", "b"})
	w.Float32(1.5)
	w.Float64(-math.Pi)
	w.Time(when)
	w.Len(2)
	w.Buf = append(w.Buf, 7, 8)
	w.Len(9)
	w.Buf = append(w.Buf, "fixed"...)

	r := statefile.NewReader(w.Buf)
	checks := []struct {
		name      string
		got, want any
	}{
		{"uint", r.Uint(), uint64(math.MaxUint64)},
		{"int", r.Int(), int64(-42)},
		{"nat", r.Nat(), 3},
		{"bool", r.Bool(), true},
		{"string", r.Text(), "café ✓"},
		{"strings", len(r.Strings()), 3},
		{"float32", r.Float32(), float32(1.5)},
		{"float64", r.Float64(), -math.Pi},
		{"time", r.Time().Equal(when), true},
		{"bytes", string(r.Bytes()), "\x07\x08"},
		{"index", r.Index(10), 9},
		{"fixed", r.Fixed(5), "fixed"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
}

// TestDamage: every damaged input is ErrCorrupt, later reads give zero
// values, and no count makes an allocation larger than the input.
func TestDamage(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		read func(r *statefile.Reader)
	}{
		{"empty uint", nil, func(r *statefile.Reader) { r.Uint() }},
		{"truncated varint", []byte{0x80}, func(r *statefile.Reader) { r.Uint() }},
		{"string longer than data", []byte{10, 'a'}, func(r *statefile.Reader) { r.Text() }},
		{"huge count", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, func(r *statefile.Reader) { r.Len(1) }},
		{"count of wide items", []byte{3, 0, 0, 0, 0, 0}, func(r *statefile.Reader) { r.Len(8) }},
		{"bad bool", []byte{2}, func(r *statefile.Reader) { r.Bool() }},
		{"short float32", []byte{1, 2}, func(r *statefile.Reader) { r.Float32() }},
		{"short float64", []byte{1, 2, 3, 4}, func(r *statefile.Reader) { r.Float64() }},
		{"index out of range", []byte{5}, func(r *statefile.Reader) { r.Index(5) }},
		{"nat out of range", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, func(r *statefile.Reader) { r.Nat() }},
		{"left over", []byte{1, 2}, func(r *statefile.Reader) { r.Uint() }},
		{"failed check", []byte{1}, func(r *statefile.Reader) { r.Uint(); r.Check(false, "invariant") }},
		{"padding count too large", []byte{8, 0, 0, 0, 0, 0, 0, 0, 0}, func(r *statefile.Reader) { r.Pad(8) }},
		{"padding not zero", []byte{2, 0, 1}, func(r *statefile.Reader) { r.Pad(8) }},
		{"padding truncated", []byte{3, 0}, func(r *statefile.Reader) { r.Pad(8) }},
		{"raw beyond data", []byte{1, 2}, func(r *statefile.Reader) { r.Raw(3) }},
		{"fixed string beyond data", []byte{1, 2}, func(r *statefile.Reader) { r.Fixed(3) }},
		{"section beyond data", []byte{9, 0, 1}, func(r *statefile.Reader) { r.Section() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := statefile.NewReader(c.data)
			c.read(r)
			if err := r.Done(); !errors.Is(err, statefile.ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
			if r.Uint() != 0 || r.Text() != "" {
				t.Fatal("reads after an error returned data")
			}
		})
	}
}

// TestSectionAligned: a section starts at a multiple of 8 bytes into the
// buffer, whatever came before it, and reads back whole.
func TestSectionAligned(t *testing.T) {
	for before := range 20 {
		w := &statefile.Writer{Buf: make([]byte, before)}
		w.Section([]byte("records"))
		w.Section(nil)
		r := statefile.NewReader(w.Buf)
		r.Raw(before)
		if got := r.Section(); string(got) != "records" {
			t.Fatalf("after %d bytes: got %q", before, got)
		} else if start := bytes.Index(w.Buf, got); &got[0] != &w.Buf[start] || start%8 != 0 {
			t.Fatalf("after %d bytes: section at %d, not aligned or not shared", before, start)
		}
		if got := r.Section(); got != nil {
			t.Fatalf("empty section read as %q", got)
		}
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSectionHeadStreams: a section written as SectionHead's bytes then
// the section itself, after off bytes written elsewhere, is what Section
// writes into one buffer, and reads back aligned.
func TestSectionHeadStreams(t *testing.T) {
	for _, tc := range []struct{ off, size int }{{0, 0}, {1, 5}, {7, 8}, {8, 300}, {13, 1 << 14}} {
		prefix := bytes.Repeat([]byte{'x'}, tc.off)
		sec := bytes.Repeat([]byte{'s'}, tc.size)
		whole := &statefile.Writer{Buf: append([]byte(nil), prefix...)}
		whole.Section(sec)
		head := &statefile.Writer{}
		head.SectionHead(tc.size, tc.off)
		streamed := append(append(append([]byte(nil), prefix...), head.Buf...), sec...)
		if !bytes.Equal(streamed, whole.Buf) {
			t.Fatalf("off %d size %d: streamed %q, Section %q", tc.off, tc.size, streamed, whole.Buf)
		}
		r := statefile.NewReader(streamed)
		r.Raw(tc.off)
		got := r.Section()
		if err := r.Done(); err != nil || !bytes.Equal(got, sec) || tc.size > 0 && (tc.off+len(head.Buf))%8 != 0 {
			t.Fatalf("off %d size %d: read %d bytes, err %v, section at %d", tc.off, tc.size, len(got), err, tc.off+len(head.Buf))
		}
	}
}
