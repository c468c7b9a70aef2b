package vault

import (
	"reflect"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/wire"
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
		Links: []Link{{Raw: "![[T#H|al]]", Target: "T", Heading: "H", Block: "bl", Alias: "al", Embed: true, Markdown: true, Line: 5,
			Kind: LinkNote, Resolved: "T.md"}},
		Body: "body", BodyLine: 6, Pages: []Page{{Number: 1, Line: 1, OCR: true}},
		Size: 99, ModTime: time.Unix(1700000000, 5), Hash: "h", OCRKey: "eng/50",
	}
}

func TestStateCoversEveryField(t *testing.T) {
	n := fullNote()
	checkSet(t, reflect.ValueOf(*n), "Note")
	w := &wire.Writer{}
	if err := encodeNote(w, n); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(w.Buf)
	got := decodeNote(r)
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	// Resolution is redone on decode (NewSnapshot), not stored.
	want := *n
	want.Links = []Link{n.Links[0]}
	want.Links[0].Kind, want.Links[0].Resolved = "", ""
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *got, want)
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
