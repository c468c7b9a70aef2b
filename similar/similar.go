// Package similar finds the notes most like a given note, by six
// signals: content (the cosine of the notes' TF-IDF vectors), embeddings
// (the cosine of their mean chunk vectors, when loaded), shared tags
// (Jaccard, a nested tag also counting as its parents), shared links
// (bibliographic coupling), co-citation and a direct link. The score is
// the weighted mean of the normalised signals (rankers.SimilarWeight*).
package similar

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// Signal names, as a result reports the signals used.
const (
	SignalContent    = "content"
	SignalEmbeddings = "embeddings"
	SignalTags       = "shared_tags"
	SignalLinks      = "shared_links"
	SignalCoCitation = "co_citation"
	SignalDirect     = "direct_link"
)

// Note is one note like the given one.
type Note struct {
	// ID is the note's index in the engine's snapshot.
	ID    int
	Score float64 // 0-1, rounded to 6 decimals
	// Content is the TF-IDF cosine (0-1); Embeddings the centroid cosine
	// (nil without embeddings); SharedTags the Jaccard index of the tag
	// sets; SharedLinks and CoCitation the counts behind those signals.
	Content, SharedTags     float64
	Embeddings              *float64
	SharedLinks, CoCitation int
	DirectLink              bool
	// Tags are the tags both notes carry (lower case, parents included).
	Tags []string
}

// Finder is what a search for similar notes needs of one engine, derived
// once on first use: the notes' TF-IDF vectors, embedding centroids,
// distinct link neighbours and expanded tag sets. Safe for concurrent use.
type Finder struct {
	eng      *search.Engine
	once     sync.Once
	vecs     *rankers.NoteVectors
	cents    *rankers.NoteCentroids // nil without embeddings
	out, in  [][]int32              // distinct notes linked to / linking from
	tags     [][]int32              // note → tag ids, ascending
	tagNames []string
	tagNotes [][]int32 // tag id → notes, ascending
	scratch  sync.Pool // *scratch
}

// New returns the index of e, built on its first use.
func New(e *search.Engine) *Finder { return &Finder{eng: e} }

// Build derives the index now (Similar does it on first use).
func (x *Finder) Build() {
	x.once.Do(func() {
		var wg sync.WaitGroup
		wg.Go(func() { x.vecs = x.eng.NoteVectors() })
		wg.Go(func() { x.cents = x.eng.NoteCentroids() })
		x.buildLinks()
		x.buildTags()
		wg.Wait()
	})
}

func (x *Finder) buildLinks() {
	n := len(x.eng.Snapshot().Notes)
	x.out, x.in = make([][]int32, n), make([][]int32, n)
	for i := range n {
		for _, e := range x.eng.Outbound(i) {
			x.out[i] = append(x.out[i], int32(e.To))
		}
		slices.Sort(x.out[i])
		x.out[i] = slices.Clip(slices.Compact(x.out[i]))
	}
	for i := range n { // ascending sources: every in list comes out sorted
		for _, to := range x.out[i] {
			x.in[to] = append(x.in[to], int32(i))
		}
	}
}

// buildTags gives every tag and parent tag ("a/b/c" → a, a/b, a/b/c),
// lower-cased, an id.
func (x *Finder) buildTags() {
	notes := x.eng.Snapshot().Notes
	ids := map[string]int32{}
	x.tags = make([][]int32, len(notes))
	for i, n := range notes {
		for _, t := range n.Tags {
			t = strings.ToLower(t)
			for end := 0; end < len(t); {
				next := strings.IndexByte(t[end+1:], '/')
				if next < 0 {
					end = len(t)
				} else {
					end += 1 + next
				}
				id, ok := ids[t[:end]]
				if !ok {
					id = int32(len(x.tagNames))
					ids[t[:end]] = id
					x.tagNames = append(x.tagNames, t[:end])
					x.tagNotes = append(x.tagNotes, nil)
				}
				x.tags[i] = append(x.tags[i], id)
			}
		}
		slices.Sort(x.tags[i])
		x.tags[i] = slices.Clip(slices.Compact(x.tags[i]))
		for _, id := range x.tags[i] {
			x.tagNotes[id] = append(x.tagNotes[id], int32(i))
		}
	}
}

// scratch holds one call's per-note signal values.
type scratch struct {
	content, emb        []float32
	tags, links, cocite []int32
	direct              []bool
	cands               []rankers.Candidate
}

func (x *Finder) getScratch(n int) *scratch {
	if s, ok := x.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{content: make([]float32, n), emb: make([]float32, n), tags: make([]int32, n),
		links: make([]int32, n), cocite: make([]int32, n), direct: make([]bool, n)}
}

// putScratch clears the sparse counters (the dense cosines are
// overwritten by the next call) and returns the scratch to the pool.
func (x *Finder) putScratch(s *scratch) {
	clear(s.tags)
	clear(s.links)
	clear(s.cocite)
	clear(s.direct)
	x.scratch.Put(s)
}

// Similar scores every admitted note (allow nil: all) against note and
// returns the best limit with a score of at least minScore and above 0,
// best first (ties by note id, i.e. by path), never note itself, and the
// signals that entered the score.
func (x *Finder) Similar(ctx context.Context, note, limit int, minScore float64, allow func(int) bool) ([]Note, []string, error) {
	x.Build()
	n := x.vecs.Len()
	s := x.getScratch(n)
	defer x.putScratch(s)
	x.vecs.Cosines(note, s.content)
	hasEmb := x.cents != nil && x.cents.Cosines(note, s.emb)
	x.countShared(note, s)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	total := rankers.SimilarWeightContent + rankers.SimilarWeightTags + rankers.SimilarWeightLinks + rankers.SimilarWeightCoCitation + rankers.SimilarWeightDirect
	used := []string{SignalContent, SignalTags, SignalLinks, SignalCoCitation, SignalDirect}
	if hasEmb {
		total += rankers.SimilarWeightEmbeddings
		used = slices.Insert(used, 1, SignalEmbeddings)
	}
	cands := s.cands[:0]
	for i := range n {
		if i == note || (allow != nil && !allow(i)) {
			continue
		}
		if sc := x.score(note, i, s, hasEmb) / total; sc > 0 && sc >= minScore {
			cands = append(cands, rankers.Candidate{Note: i, Chunk: rankers.NoChunk, Score: sc})
		}
	}
	s.cands = cands[:0] // keep the grown buffer for the next call
	best := rankers.TopK(cands, limit)
	out := make([]Note, len(best))
	for k, c := range best {
		out[k] = x.note(note, c.Note, c.Score, s, hasEmb)
	}
	return out, used, nil
}

// countShared fills the tag, coupling, co-citation and direct-link
// counters of s for every note related to note.
func (x *Finder) countShared(note int, s *scratch) {
	for _, t := range x.tags[note] {
		for _, m := range x.tagNotes[t] {
			s.tags[m]++
		}
	}
	for _, t := range x.out[note] { // notes that also link to t
		s.direct[t] = true
		for _, p := range x.in[t] {
			s.links[p]++
		}
	}
	for _, p := range x.in[note] { // notes p also links to
		s.direct[p] = true
		for _, q := range x.out[p] {
			s.cocite[q]++
		}
	}
}

// score is the weighted sum of note i's normalised signals (before
// dividing by the total weight).
func (x *Finder) score(note, i int, s *scratch, hasEmb bool) float64 {
	var sum float64
	if c := s.content[i]; c > 0 {
		sum += rankers.SimilarWeightContent * math.Min(float64(c), 1)
	}
	if hasEmb && s.emb[i] > 0 {
		sum += rankers.SimilarWeightEmbeddings * math.Min(float64(s.emb[i]), 1)
	}
	if t := s.tags[i]; t > 0 {
		sum += rankers.SimilarWeightTags * jaccard(int(t), len(x.tags[note]), len(x.tags[i]))
	}
	if l := s.links[i]; l > 0 {
		sum += rankers.SimilarWeightLinks * salton(int(l), len(x.out[note]), len(x.out[i]))
	}
	if c := s.cocite[i]; c > 0 {
		sum += rankers.SimilarWeightCoCitation * salton(int(c), len(x.in[note]), len(x.in[i]))
	}
	if s.direct[i] {
		sum += rankers.SimilarWeightDirect
	}
	return sum
}

// jaccard is |A∩B| / |A∪B| from the sizes.
func jaccard(shared, a, b int) float64 { return float64(shared) / float64(a+b-shared) }

// salton is Salton's cosine of two link sets: shared / sqrt(|A|·|B|).
func salton(shared, a, b int) float64 {
	return math.Min(1, float64(shared)/math.Sqrt(float64(a)*float64(b)))
}

func (x *Finder) note(note, i int, score float64, s *scratch, hasEmb bool) Note {
	out := Note{
		ID: i, Score: round6(score), Content: round6(math.Min(float64(s.content[i]), 1)),
		SharedLinks: int(s.links[i]), CoCitation: int(s.cocite[i]), DirectLink: s.direct[i],
		Tags: []string{},
	}
	if hasEmb && x.cents.Has(i) {
		e := round6(float64(s.emb[i]))
		out.Embeddings = &e
	}
	if t := int(s.tags[i]); t > 0 {
		out.SharedTags = round6(jaccard(t, len(x.tags[note]), len(x.tags[i])))
		for _, id := range x.tags[note] {
			if _, ok := slices.BinarySearch(x.tags[i], id); ok {
				out.Tags = append(out.Tags, x.tagNames[id])
			}
		}
	}
	return out
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
