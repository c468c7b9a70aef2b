package rankers_test

import (
	"math"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

func TestNoteVectorsCosines(t *testing.T) {
	c := build(t,
		"goroutines channels select worker pool",      // 0
		"goroutines channels select worker pool",      // 1: identical to 0
		"worker pool bounds goroutines in flight",     // 2: overlaps
		"sourdough levain hydration crumb",            // 3: unrelated
		"",                                            // 4: nothing indexed
		"channels pipelines fan-out goroutines queue", // 5: overlaps
	)
	v := c.idx.NoteVectors()
	if v.Len() != 6 || v.Terms(4) != 0 || v.Terms(0) == 0 {
		t.Fatalf("Len %d, Terms(4) %d, Terms(0) %d", v.Len(), v.Terms(4), v.Terms(0))
	}
	dst := make([]float32, v.Len())
	for a := range v.Len() {
		v.Cosines(a, dst)
		for b := range v.Len() {
			// Two independent computations: the inverted-index walk and
			// the merge of the sorted vectors.
			if got, want := float64(dst[b]), v.Cosine(a, b); math.Abs(got-want) > eps {
				t.Errorf("Cosines(%d)[%d] = %v, Cosine = %v", a, b, got, want)
			}
			if math.Abs(v.Cosine(a, b)-v.Cosine(b, a)) > eps {
				t.Errorf("Cosine(%d,%d) is not symmetric", a, b)
			}
		}
	}
	for _, tt := range []struct {
		a, b int
		want float64
	}{{0, 0, 1}, {0, 1, 1}, {0, 3, 0}, {4, 4, 0}, {4, 0, 0}} {
		if got := v.Cosine(tt.a, tt.b); math.Abs(got-tt.want) > eps {
			t.Errorf("Cosine(%d,%d) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if c02, c05 := v.Cosine(0, 2), v.Cosine(0, 5); c02 <= 0 || c05 <= 0 || c02 >= 1 || c05 >= 1 {
		t.Errorf("partial overlaps: %v, %v", c02, c05)
	}
}

func TestNoteVectorsSimilarNotes(t *testing.T) {
	c := build(t,
		"goroutines channels select worker pool",
		"goroutines channels select worker pool",
		"worker pool bounds goroutines in flight",
		"sourdough levain hydration crumb",
		"",
		"channels pipelines fan-out goroutines queue",
	)
	v := c.idx.NoteVectors()
	got := v.SimilarNotes(0, 10, nil)
	checkSorted(t, got)
	if len(got) != 3 || got[0].Note != 1 || math.Abs(got[0].Score-1) > eps {
		t.Fatalf("SimilarNotes(0) = %+v, want 1 first (identical), then 2 and 5", got)
	}
	for _, g := range got {
		if g.Note == 0 || g.Note == 3 || g.Note == 4 || g.Chunk != rankers.NoChunk {
			t.Errorf("SimilarNotes(0) returned %+v", g)
		}
	}
	if got := v.SimilarNotes(0, 1, nil); len(got) != 1 || got[0].Note != 1 {
		t.Errorf("limit 1: %+v", got)
	}
	if got := v.SimilarNotes(0, 10, func(i int) bool { return i != 1 }); len(got) != 2 || got[0].Note == 1 || got[1].Note == 1 {
		t.Errorf("allow: %+v", got)
	}
	if got := v.SimilarNotes(4, 10, nil); got != nil {
		t.Errorf("a note without terms: %+v", got)
	}
	if got := v.SimilarNotes(0, 0, nil); got != nil {
		t.Errorf("limit 0: %+v", got)
	}
}

// TestNoteVectorsUseFieldWeights: the stored vectors carry the index's
// field weights (a shared title word counts more than a body word).
func TestNoteVectorsUseFieldWeights(t *testing.T) {
	c := build(t,
		"---\ntitle: kafka\n---\nretention partitions",
		"---\ntitle: kafka\n---\nconsumer groups",
		"kafka consumer",
	)
	v := c.idx.NoteVectors()
	if v.Cosine(0, 1) <= v.Cosine(0, 2) {
		t.Errorf("shared title %v should beat a shared body word %v", v.Cosine(0, 1), v.Cosine(0, 2))
	}
}
