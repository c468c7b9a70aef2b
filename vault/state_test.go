package vault

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// fullNote sets every field of Note and of the structs it holds: a field
// added to them later fails TestStateCoversEveryField until the state
// encoding carries it.
func fullNote() *Note {
	return &Note{
		Path: "a/b.md", Kind: KindPDF, Title: "T", Aliases: []string{"x"},
		FrontmatterTags: []string{"f"}, InlineTags: []string{"i"}, Tags: []string{"f", "i"},
		Frontmatter: map[string]any{"s": "v", "n": 3, "u": uint64(1 << 63), "f": 1.5, "g": float32(2.5), "b": true, "z": nil,
			"l": []any{"a", 1}, "m": map[string]any{"k": "v"}},
		Headings: []Heading{{Level: 2, Text: "H", Line: 3}},
		Blocks:   []Block{{ID: "id", Line: 4}},
		Links: []Link{{Raw: "![[T#H|al]]", Target: "T", Heading: "H", Block: "bl", Alias: "al", Embed: true, Markdown: true, Line: 5, Property: "up",
			Kind: LinkNote, Resolved: "T.md"}},
		Body: "body", BodyLine: 6, Pages: []Page{{Number: 1, Line: 1, OCR: true}},
		Size: 99, ModTime: time.Unix(1700000000, 5), Hash: "h", OCRKey: "eng/50",
	}
}

func TestStateCoversEveryField(t *testing.T) {
	n := fullNote()
	checkSet(t, reflect.ValueOf(*n), "Note")
	// Every way a link is stored: resolved to a note and to an attachment
	// (by index), unresolved, and a path the snapshot does not hold (as
	// text).
	n.Links = append(n.Links,
		Link{Raw: "[[f.pdf]]", Target: "f.pdf", Kind: LinkAttachment, Resolved: "f.pdf"},
		Link{Raw: "[[gone]]", Target: "gone", Kind: LinkUnresolved},
		Link{Raw: "[[elsewhere]]", Target: "elsewhere", Kind: LinkNote, Resolved: "x/elsewhere.md"},
		Link{Raw: "[[never resolved]]"})
	target := &Note{Path: "T.md", Body: "t", ModTime: time.Unix(1, 0)}
	s := indexed("/vault", []*Note{target, n}, []Attachment{{Path: "f.pdf", Size: 1}}, nil)
	w := &statefile.Writer{}
	if err := s.EncodeState(w); err != nil {
		t.Fatal(err)
	}
	r := statefile.NewReader(w.Buf)
	got, err := DecodeState(r, "/vault", nil)
	if err == nil {
		err = r.Done()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Notes, s.Notes) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *got.Notes[1], *n)
	}
	if got.Notes[1].Links[0].Resolved != got.Notes[0].Path {
		t.Fatal("a resolved note path is not the target's path")
	}
}

// TestStateRejectsBadLinkTargets: a link resolved to a note or
// attachment index beyond the snapshot is damage, not a panic.
func TestStateRejectsBadLinkTargets(t *testing.T) {
	for _, kind := range []LinkKind{LinkNote, LinkAttachment} {
		n := &Note{Path: "a.md", Links: []Link{{Raw: "[[a]]", Target: "a", Kind: kind, Resolved: "a.md"}}}
		atts := []Attachment{{Path: "a.md"}}
		w := &statefile.Writer{}
		if err := indexed("/vault", []*Note{n}, atts, nil).EncodeState(w); err != nil {
			t.Fatal(err)
		}
		// The index (0) is the byte after the link's tag; make it 5.
		i := bytes.LastIndex(w.Buf, []byte{0, 0, 0, resNote, 0})
		if kind == LinkAttachment {
			i = bytes.LastIndex(w.Buf, []byte{0, 0, 0, resAttachment, 0})
		}
		if i < 0 {
			t.Fatalf("%s: encoded link not found", kind)
		}
		w.Buf[i+4] = 5
		if _, err := DecodeState(statefile.NewReader(w.Buf), "/vault", nil); !errors.Is(err, statefile.ErrCorrupt) {
			t.Fatalf("%s: got %v, want statefile.ErrCorrupt", kind, err)
		}
	}
}

// checkSet fails for every zero field of v, down into slices of structs.
func checkSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		if f.IsZero() {
			t.Errorf("%s is not set in fullNote: set it, and carry it in encodeNote/decodeNote", name)
			continue
		}
		if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			checkSet(t, f.Index(0), name+"[0]")
		}
	}
}
