package rankers

// noteScratch is topNotes's per-note working memory, reused across
// queries (a note's best chunk score, whether it has one yet, and the
// notes seen in order): at 13,000 notes it was the biggest allocation of
// a dense search.
type noteScratch struct {
	best  []float32
	seen  []bool
	notes []int32
}

// noteScratch returns working memory for e.nNotes notes, every seen flag
// false.
func (e *Embeddings) noteScratch() *noteScratch {
	sc, _ := e.notePool.Get().(*noteScratch)
	if sc == nil || len(sc.seen) != e.nNotes {
		sc = &noteScratch{best: make([]float32, e.nNotes), seen: make([]bool, e.nNotes)}
	}
	return sc
}

// putNoteScratch clears the seen flags of the notes sc lists and keeps sc
// for the next query.
func (e *Embeddings) putNoteScratch(sc *noteScratch) {
	for _, n := range sc.notes {
		sc.seen[n] = false
	}
	sc.notes = sc.notes[:0]
	e.notePool.Put(sc)
}
