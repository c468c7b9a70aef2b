package rankers

import (
	"cmp"
	"math"
	"slices"
)

// NoteVectors is the forward view of a TFIDF's note index: each note's
// tf-idf vector, L2-normalised (all fields, the field weights the
// index was built with), terms in ascending id order. It answers "which
// notes are like this one" from the stored vectors, without analysing any
// text again. Build it once per index with [TFIDF.NoteVectors]; it is
// immutable and safe for concurrent use.
type NoteVectors struct {
	post    [][]weighted // term → notes holding it, ascending ids
	terms   [][]uint32
	weights [][]float32
}

// weighted is a note's unit-vector weight for one term.
type weighted struct {
	note uint32
	w    float32
}

// NoteVectors builds the forward index in one pass over the note postings
// (time and memory linear in their number).
func (t *TFIDF) NoteVectors() *NoteVectors {
	a := t.a()
	counts := make([]int32, t.numNotes)
	nTerms := min(t.notes.terms(), int(t.dict.n))
	for id := range nTerms {
		for _, p := range t.notes.get(uint32(id)) {
			counts[t.noteDocs[p.doc].note]++
		}
	}
	// Similarity between notes is a true cosine: unit vectors, not the
	// pivoted weights search ranks with.
	unit := make([]float32, len(t.noteDocs))
	for i, d := range t.noteDocs {
		if n := d.sums.norm(a); d.note >= 0 && n > 0 {
			unit[i] = float32(1 / n)
		}
	}
	v := &NoteVectors{post: make([][]weighted, nTerms), terms: make([][]uint32, t.numNotes), weights: make([][]float32, t.numNotes)}
	for doc, c := range counts {
		v.terms[doc] = make([]uint32, 0, c)
		v.weights[doc] = make([]float32, 0, c)
	}
	for id := range nTerms { // ascending term ids: every vector comes out sorted
		ps := t.notes.get(uint32(id))
		if len(ps) == 0 {
			continue
		}
		idf := float32(t.idfOf(uint32(id), a))
		post := make([]weighted, len(ps))
		for j, p := range ps {
			note := t.noteDocs[p.doc].note
			w := p.tf * idf * unit[p.doc]
			post[j] = weighted{uint32(note), w}
			v.terms[note] = append(v.terms[note], uint32(id))
			v.weights[note] = append(v.weights[note], w)
		}
		// Slots follow content age, not note ids: sort by note id.
		slices.SortFunc(post, func(a, b weighted) int { return cmp.Compare(a.note, b.note) })
		v.post[id] = post
	}
	return v
}

// Len is the number of notes.
func (v *NoteVectors) Len() int { return len(v.terms) }

// Terms is the number of distinct indexed terms of a note (0 for a note
// with nothing indexed, which is like no other note).
func (v *NoteVectors) Terms(note int) int { return len(v.terms[note]) }

// Cosines sets dst[i] to the cosine between note's vector and note i's,
// for every note (dst must hold Len values; it is overwritten). The sum
// runs through the inverted index: only notes sharing a term are touched,
// the rest stay 0. dst[note] is the note's cosine with itself (1, or 0
// when it has no terms); callers exclude it.
func (v *NoteVectors) Cosines(note int, dst []float32) {
	clear(dst[:len(v.terms)])
	ws := v.weights[note]
	for i, id := range v.terms[note] {
		w := ws[i]
		for _, p := range v.post[id] {
			dst[p.note] += w * p.w
		}
	}
}

// Cosine is the cosine between two notes' vectors (a merge of the two
// sorted vectors; no index walk).
func (v *NoteVectors) Cosine(a, b int) float64 {
	ta, tb := v.terms[a], v.terms[b]
	wa, wb := v.weights[a], v.weights[b]
	var s float64
	for i, j := 0, 0; i < len(ta) && j < len(tb); {
		switch {
		case ta[i] < tb[j]:
			i++
		case ta[i] > tb[j]:
			j++
		default:
			s += float64(wa[i]) * float64(wb[j])
			i++
			j++
		}
	}
	return s
}

// SimilarNotes ranks the notes most like note by the cosine of their
// stored tf-idf vectors, best first, ties by note id. The note itself is
// never returned, nor notes sharing no term with it; allow, when set,
// admits only the notes it returns true for.
func (v *NoteVectors) SimilarNotes(note, limit int, allow func(int) bool) []Candidate {
	if limit <= 0 || len(v.terms[note]) == 0 {
		return nil
	}
	scores := make([]float32, len(v.terms))
	v.Cosines(note, scores)
	var cands []Candidate
	for doc, s := range scores {
		if s > 0 && doc != note && (allow == nil || allow(doc)) {
			cands = append(cands, Candidate{Note: doc, Chunk: NoChunk, Score: math.Min(float64(s), 1)})
		}
	}
	return TopK(cands, limit)
}
