package rankers

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// EncodeState appends the index to w as it is, dead slots included, so
// that [DecodeTFIDF] gives an index that scores exactly as t.
func (t *TFIDF) EncodeState(w *statefile.Writer) {
	for _, f := range []float32{t.fw.Title, t.fw.Aliases, t.fw.Headings, t.fw.Tags, t.fw.Properties, t.fw.Body} {
		w.Float32(f)
	}
	terms := make([]string, t.dict.n)
	for term, id := range t.dict.base {
		terms[id] = term
	}
	for term, id := range t.dict.extra {
		terms[id] = term
	}
	w.Strings(terms)
	for _, lists := range []postingLists{t.notes, t.chunks} {
		encodeLists(w, lists, t.dict.n)
	}
	w.Len(len(t.noteDocs))
	for _, d := range t.noteDocs {
		encodeSums(w, d.sums)
		w.Int(int64(d.note))
		w.Len(int(d.first))
		w.Len(int(d.count))
	}
	w.Len(len(t.chunkDocs))
	for _, d := range t.chunkDocs {
		encodeSums(w, d.sums)
		w.Len(int(d.slot))
	}
	w.Len(len(t.slotOf))
	for _, s := range t.slotOf {
		w.Len(int(s))
	}
}

func encodeSums(w *statefile.Writer, s normSums) {
	w.Float64(s.s0)
	w.Float64(s.s1)
	w.Float64(s.s2)
}

// DecodeTFIDF reads an index EncodeState wrote. It must have been made
// with fw and an analyzer equal to an (the caller's state key vouches
// for the code); every slot and posting is checked to be in range.
func DecodeTFIDF(r *statefile.Reader, an *analysis.Analyzer, fw FieldWeights) (*TFIDF, error) {
	// Keyed fields are evaluated in the order written, the order EncodeState writes.
	got := FieldWeights{Title: r.Float32(), Aliases: r.Float32(), Headings: r.Float32(), Tags: r.Float32(), Properties: r.Float32(), Body: r.Float32()}
	if r.Err() == nil && got != fw {
		return nil, fmt.Errorf("tf-idf state made with field weights %+v, not %+v", got, fw)
	}
	t := &TFIDF{an: an, fw: fw, pool: &sync.Pool{New: func() any { return &accumulator{} }}, fbTerms: newNoteTermCache()}
	terms := r.Strings()
	t.dict = termDict{base: make(map[string]uint32, len(terms)), n: uint32(len(terms)), ownBase: true}
	for id, term := range terms {
		t.dict.base[term] = uint32(id)
	}
	r.Check(len(t.dict.base) == len(terms), "duplicate terms")
	lists := [2][][]posting{decodeLists(r, len(terms)), decodeLists(r, len(terms))}
	t.noteDocs = make([]noteDoc, r.Len(27))
	for i := range t.noteDocs {
		t.noteDocs[i] = noteDoc{sums: decodeSums(r), note: int32(r.Int()), first: int32(r.Nat()), count: int32(r.Nat())}
	}
	t.chunkDocs = make([]chunkDoc, r.Len(25))
	for i := range t.chunkDocs {
		t.chunkDocs[i] = chunkDoc{sums: decodeSums(r), slot: int32(r.Index(len(t.noteDocs)))}
	}
	t.slotOf = make([]int32, r.Len(1))
	for i := range t.slotOf {
		t.slotOf[i] = int32(r.Index(len(t.noteDocs)))
	}
	t.numNotes = len(t.slotOf)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := t.checkState(lists); err != nil {
		return nil, err
	}
	t.notes, t.chunks = pagedLists(lists[0]), pagedLists(lists[1])
	t.norms()
	return t, nil
}

func decodeSums(r *statefile.Reader) normSums {
	return normSums{r.Float64(), r.Float64(), r.Float64()}
}

// encodeLists appends the posting lists of terms 0..n-1: their lengths,
// then every posting as a fixed-width record (slot, then tf: little-endian
// uint32 and float32), aligned so that decodeLists can use them in place.
func encodeLists(w *statefile.Writer, lists postingLists, n uint32) {
	total := 0
	for id := range n {
		total += len(lists.get(id))
	}
	w.Len(total)
	w.Grow(int(n)*2 + postingSize*(total+1))
	for id := range n {
		w.Len(len(lists.get(id)))
	}
	w.Pad(postingSize)
	for id := range n {
		for _, p := range lists.get(id) {
			w.Buf = binary.LittleEndian.AppendUint32(w.Buf, p.doc)
			w.Buf = binary.LittleEndian.AppendUint32(w.Buf, math.Float32bits(p.tf))
		}
	}
}

// postingSize is the bytes of one posting record (and of a posting).
const postingSize = 8

// decodeLists reads n posting lists encodeLists wrote. The lists share
// the reader's memory when its records are aligned for posting and the
// machine is little-endian (no copy: a start maps the state file), else
// they are copied; each list's capacity is its length, so an update
// never writes into them (it makes new lists, see rewrite).
func decodeLists(r *statefile.Reader, n int) [][]posting {
	total := r.Len(postingSize)
	counts := make([]int, n)
	sum := 0
	for id := range counts {
		counts[id] = r.Len(postingSize)
		sum += counts[id]
	}
	r.Check(sum == total, "posting counts disagree")
	r.Pad(postingSize)
	all := postingsOf(r.Raw(total * postingSize))
	lists := make([][]posting, n)
	if r.Err() != nil || len(all) != total {
		return lists
	}
	start := 0
	for id, k := range counts {
		if k == 0 {
			continue
		}
		ps := all[start : start+k : start+k]
		for j := 1; j < k; j++ {
			if ps[j].doc <= ps[j-1].doc {
				r.Check(false, "posting slots not increasing")
				return lists
			}
		}
		lists[id] = ps
		start += k
	}
	return lists
}

// postingsOf reads posting records: in place when b is aligned for
// posting on a little-endian machine, else decoded into a new array.
func postingsOf(b []byte) []posting {
	n := len(b) / postingSize
	if n == 0 {
		return nil
	}
	if littleEndian() && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(posting{}) == 0 {
		return unsafe.Slice((*posting)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]posting, n)
	for i := range out {
		rec := b[i*postingSize:]
		out[i] = posting{binary.LittleEndian.Uint32(rec), math.Float32frombits(binary.LittleEndian.Uint32(rec[4:]))}
	}
	return out
}

// littleEndian says whether the machine stores a posting as its record
// is encoded.
func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// checkState verifies the decoded slots against each other.
func (t *TFIDF) checkState(lists [2][][]posting) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: tf-idf %s", statefile.ErrCorrupt, fmt.Sprintf(format, args...))
	}
	for _, ps := range lists[0] {
		if len(ps) > 0 && int(ps[len(ps)-1].doc) >= len(t.noteDocs) {
			return bad("note posting out of range")
		}
	}
	for _, ps := range lists[1] {
		if len(ps) > 0 && int(ps[len(ps)-1].doc) >= len(t.chunkDocs) {
			return bad("chunk posting out of range")
		}
	}
	for _, d := range t.noteDocs {
		if d.note < -1 || d.note >= int32(len(t.slotOf)) || d.first < 0 || d.count < 0 || int(d.first)+int(d.count) > len(t.chunkDocs) {
			return bad("note slot out of range")
		}
	}
	for i, s := range t.slotOf {
		if t.noteDocs[s].note != int32(i) {
			return bad("note %d and its slot disagree", i)
		}
	}
	return nil
}

// pagedLists puts lists (indexed by term id) into pages.
func pagedLists(lists [][]posting) postingLists {
	var p postingLists
	for id := 0; id < len(lists); id += 1 << pageBits {
		pg := new(postingPage)
		copy(pg[:], lists[id:])
		p.pages = append(p.pages, pg)
	}
	return p
}

// Notes is the number of notes indexed.
func (t *TFIDF) Notes() int { return len(t.slotOf) }

// NoteChunks is the number of chunks indexed for note (an id below Notes).
func (t *TFIDF) NoteChunks(note int) int { return int(t.noteDocs[t.slotOf[note]].count) }

// DeadSlots counts the note slots that changes left behind (see
// [TFIDF.Update]): memory that only a rebuild gives back.
func (t *TFIDF) DeadSlots() int { return len(t.noteDocs) - len(t.slotOf) }
