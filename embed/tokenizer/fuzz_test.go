package tokenizer

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// FuzzEncode checks that arbitrary input never panics and that every
// produced id has a row.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "hello, world!", "İ\u0300中文\xff\x00", "[CLS][UNK]", "  x  <pad>y", "a\u0301\u200d\U0001F600"} {
		f.Add(s)
	}
	toks := []*Tokenizer{}
	for _, js := range [][]byte{tokenizertest.WordPieceJSON(), tokenizertest.UnigramJSON(false), tokenizertest.UnigramJSON(true)} {
		t, err := parseTokenizer(js)
		if err != nil {
			f.Fatal(err)
		}
		toks = append(toks, t)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			for _, id := range tok.encode(new(Workspace), s) {
				if id < 0 || id > tok.maxID {
					t.Fatalf("id %d out of range for %q", id, s)
				}
			}
		}
	})
}
