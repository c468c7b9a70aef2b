package static

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
)

func sample(weights, comp bool) *Vectors {
	v := &Vectors{Words: []string{"a", "b", "c"}, Table: *tiny()}
	v.Words[2] = "naïve-é" // any UTF-8
	if !weights {
		v.Table.Weights = nil
	}
	if comp {
		v.Component = []float32{0.6, 0, -0.8}
	}
	return v
}

func encode(t *testing.T, v *Vectors) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFormatRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name          string
		weights, comp bool
	}{{"plain", false, false}, {"weights", true, false}, {"component", false, true}, {"both", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			v := sample(c.weights, c.comp)
			data := encode(t, v)
			got, err := Decode(string(data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Errorf("Decode(Encode(v)) = %+v, want %+v", got, v)
			}
			if again := encode(t, got); !bytes.Equal(again, data) {
				t.Error("re-encoding is not byte-identical")
			}
		})
	}
}

func TestFormatHeader(t *testing.T) {
	data := encode(t, sample(true, true))
	le := binary.LittleEndian
	if string(data[:8]) != "ENQSTAT\x00" {
		t.Errorf("magic %q", data[:8])
	}
	for i, want := range []uint32{FormatVersion, 3, 3, flagWeights | flagComp} {
		if got := le.Uint32(data[8+4*i:]); got != want {
			t.Errorf("header word %d = %d, want %d", i, got, want)
		}
	}
	wordsLen := 3 + len("a") + len("b") + len("naïve-é")
	if want := headerSize + wordsLen + 3*4 + 3*4 + 3*4 + 9 + 4; len(data) != want {
		t.Errorf("size %d, want %d", len(data), want)
	}
	body := data[:len(data)-4]
	if le.Uint32(data[len(data)-4:]) != crc32.Checksum(body, castagnoli) {
		t.Error("trailer is not the CRC-32C of the body")
	}
	if !bytes.Equal(body[len(body)-9:], []byte{1, 0, 0, 0, 2, 0, 0, 0, 3}) {
		t.Errorf("vectors section %v", body[len(body)-9:])
	}
}

// reseal fixes the checksum after a deliberate corruption, so that Decode
// reaches the later checks.
func reseal(data []byte) string {
	body := data[:len(data)-4]
	return string(binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32.Checksum(body, castagnoli)))
}

func TestDecodeRejects(t *testing.T) {
	good := encode(t, sample(true, true))
	mutate := func(f func(b []byte) []byte) string {
		return reseal(f(append([]byte(nil), good...)))
	}
	cases := map[string]string{
		"empty":     "",
		"magic":     "NOTSTAT\x00" + string(good[8:]),
		"checksum":  string(good[:len(good)-1]) + "x",
		"truncated": reseal(good[:len(good)-5]),
		"version":   mutate(func(b []byte) []byte { b[8] = 9; return b }),
		"zero dim":  mutate(func(b []byte) []byte { b[12] = 0; return b }),
		"huge rows": mutate(func(b []byte) []byte { b[19] = 0x7f; return b }),
		"flags":     mutate(func(b []byte) []byte { b[20] = 8; return b }),
		"extra":     reseal(append(append([]byte(nil), good[:len(good)-4]...), 0, 0, 0, 0, 0)),
		"nan scale": mutate(func(b []byte) []byte {
			i := headerSize + 3 + 1 + 1 + len("naïve-é")
			copy(b[i:], []byte{0, 0, 0xc0, 0x7f})
			return b
		}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode(data); !errors.Is(err, ErrInvalid) {
				t.Errorf("Decode: %v, want ErrInvalid", err)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	v := sample(true, false)
	v.Words = v.Words[:2]
	if err := Encode(&bytes.Buffer{}, v); !errors.Is(err, ErrInvalid) {
		t.Errorf("2 words for 3 rows: %v", err)
	}
	v = sample(true, false)
	v.Component = []float32{1}
	if err := Encode(&bytes.Buffer{}, v); !errors.Is(err, ErrInvalid) {
		t.Errorf("component of dim 1: %v", err)
	}
	if err := Encode(failWriter{}, sample(true, true)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
