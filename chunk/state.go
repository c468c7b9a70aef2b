package chunk

import (
	"slices"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// EncodeState appends a note's chunks to w, for the engine state (read
// back by DecodeState).
func EncodeState(w *statefile.Writer, cs []Chunk) {
	w.Len(len(cs))
	for _, c := range cs {
		w.Len(c.Start)
		w.Len(c.End - c.Start)
		w.Len(c.LineStart)
		w.Len(c.LineEnd - c.LineStart)
		w.Strings(c.Headings)
		w.Len(c.Tokens)
		w.Len(c.Page)
	}
}

// DecodeState reads a note's chunks EncodeState wrote, checking that they
// lie within its body of size bodyLen (r's error says where not).
func DecodeState(r *statefile.Reader, bodyLen int) []Chunk {
	cs := make([]Chunk, r.Len(7))
	for i := range cs {
		c := Chunk{Index: i, Start: r.Nat()}
		c.End = c.Start + r.Nat()
		c.LineStart = r.Nat()
		c.LineEnd = c.LineStart + r.Nat()
		c.Headings = r.Strings()
		c.Tokens, c.Page = r.Nat(), r.Nat()
		r.Check(c.End <= bodyLen, "chunk beyond its note")
		cs[i] = c
	}
	return slices.Clip(cs)
}
