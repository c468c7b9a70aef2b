package tools

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of obsidian_find_similar.
const (
	similarMaxLimit     = 50
	similarDefaultLimit = 10
)

// Weights of the similarity signals in the combined score. Every signal
// is a similarity in [0, 1], so the score is their weighted mean (divided
// by the weights of the signals available, so a vault without embeddings
// still scores in [0, 1]). The text signals weigh most because they say
// what the notes are about; tags are the author's own grouping; the link
// signals are evidence of relatedness rather than likeness, and a direct
// link alone (a hub linking everything) says least.
const (
	simWeightContent    = 0.40
	simWeightEmbeddings = 0.20
	simWeightTags       = 0.15
	simWeightLinks      = 0.10
	simWeightCoCitation = 0.10
	simWeightDirect     = 0.05
)

// Signal names of obsidian_find_similar, as reported in signals_used.
const (
	simSignalContent    = "content"
	simSignalEmbeddings = "embeddings"
	simSignalTags       = "shared_tags"
	simSignalLinks      = "shared_links"
	simSignalCoCitation = "co_citation"
	simSignalDirect     = "direct_link"
)

// SimilarInput is the obsidian_find_similar request.
type SimilarInput struct {
	Path     string  `json:"path,omitempty" jsonschema:"Vault-relative path of the note, e.g. Projects/Plan.md (.md optional)."`
	Title    string  `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]."`
	Limit    int     `json:"limit,omitempty" jsonschema:"Number of similar notes to return (1-50, default 10)."`
	MinScore float64 `json:"min_score,omitempty" jsonschema:"Only notes whose combined score is at least this (0-1, default 0: every note with some similarity)."`
	Folder   string  `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
}

// SimilarOutput is the obsidian_find_similar result.
type SimilarOutput struct {
	Path        string        `json:"path" jsonschema:"The note the others are compared with."`
	Title       string        `json:"title"`
	SignalsUsed []string      `json:"signals_used" jsonschema:"Signals that entered the score: content, embeddings (when loaded and the note has vectors), shared_tags, shared_links, co_citation, direct_link."`
	Similar     []SimilarNote `json:"similar" jsonschema:"Best first; never the note itself."`
}

// SimilarNote is one note like the given one.
type SimilarNote struct {
	Path       string         `json:"path"`
	Title      string         `json:"title"`
	Score      float64        `json:"score" jsonschema:"Weighted mean of the normalised signals, 0-1: content 0.40, embeddings 0.20 (when available), shared_tags 0.15, shared_links 0.10, co_citation 0.10, direct_link 0.05."`
	Signals    SimilarSignals `json:"signals"`
	SharedTags []string       `json:"shared_tags" jsonschema:"Tags both notes carry, lower case; a nested tag also counts as its parents (programming/go shares programming)."`
}

// SimilarSignals are the raw similarity signals between two notes.
type SimilarSignals struct {
	Content     float64  `json:"content" jsonschema:"Cosine of the two notes' TF-IDF vectors (title, aliases, headings, tags, properties, body), 0-1."`
	Embeddings  *float64 `json:"embeddings,omitempty" jsonschema:"Cosine of the notes' mean chunk embeddings; absent without embeddings."`
	SharedTags  float64  `json:"shared_tags" jsonschema:"Jaccard index of the two notes' tag sets (tags and their parents), 0-1."`
	SharedLinks int      `json:"shared_links" jsonschema:"Notes both link to (bibliographic coupling); scored as count / sqrt(product of the two out-degrees)."`
	CoCitation  int      `json:"co_citation" jsonschema:"Notes that link to both (co-citation); scored as count / sqrt(product of the two in-degrees)."`
	DirectLink  bool     `json:"direct_link" jsonschema:"One of the notes links to the other."`
}

// simCache keeps the derived structures of the current engine; a swapped
// engine gets fresh ones, built on first use.
type simCache struct{ perEngine[simIndex] }

func (c *simCache) get(e *search.Engine) *simIndex {
	return c.derive(e, func(e *search.Engine) *simIndex { return &simIndex{eng: e} })
}

// simIndex is what find_similar needs of one engine, computed once: the
// notes' tf-idf vectors, embedding centroids, distinct link neighbours
// and expanded tag sets. Immutable after build.
type simIndex struct {
	eng      *search.Engine
	once     sync.Once
	vecs     *rankers.NoteVectors
	cents    *rankers.NoteCentroids // nil without embeddings
	out, in  [][]int32              // distinct notes linked to / linking from
	tags     [][]int32              // note → tag ids, ascending
	tagNames []string
	tagNotes [][]int32 // tag id → notes, ascending
	scratch  sync.Pool // *simScratch
}

func (x *simIndex) build() {
	x.once.Do(func() {
		var wg sync.WaitGroup
		wg.Go(func() { x.vecs = x.eng.TFIDF().NoteVectors() })
		if emb := x.eng.Embeddings(); emb != nil {
			wg.Go(func() { x.cents = emb.NoteCentroids() })
		}
		x.buildLinks()
		x.buildTags()
		wg.Wait()
	})
}

func (x *simIndex) buildLinks() {
	g, n := x.eng.Graph(), len(x.eng.Snapshot().Notes)
	x.out, x.in = make([][]int32, n), make([][]int32, n)
	for i := range n {
		for _, e := range g.Outbound(i) {
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
func (x *simIndex) buildTags() {
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

// simScratch holds one call's per-note signal values.
type simScratch struct {
	content, emb        []float32
	tags, links, cocite []int32
	direct              []bool
	cands               []rankers.Candidate
}

func (x *simIndex) getScratch(n int) *simScratch {
	if s, ok := x.scratch.Get().(*simScratch); ok {
		return s
	}
	return &simScratch{content: make([]float32, n), emb: make([]float32, n), tags: make([]int32, n),
		links: make([]int32, n), cocite: make([]int32, n), direct: make([]bool, n)}
}

// putScratch clears the sparse counters (the dense cosines are
// overwritten by the next call) and returns the scratch to the pool.
func (x *simIndex) putScratch(s *simScratch) {
	clear(s.tags)
	clear(s.links)
	clear(s.cocite)
	clear(s.direct)
	x.scratch.Put(s)
}

// simResult is one scored note before rendering.
type simResult struct {
	note  int
	score float64
}

// similar scores every admitted note against note and returns the best.
func (x *simIndex) similar(ctx context.Context, note, limit int, minScore float64, allow func(int) bool) ([]SimilarNote, []string, error) {
	x.build()
	n := x.vecs.Len()
	s := x.getScratch(n)
	defer x.putScratch(s)
	x.vecs.Cosines(note, s.content)
	hasEmb := x.cents != nil && x.cents.Cosines(note, s.emb)
	x.countShared(note, s)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	total := simWeightContent + simWeightTags + simWeightLinks + simWeightCoCitation + simWeightDirect
	used := []string{simSignalContent, simSignalTags, simSignalLinks, simSignalCoCitation, simSignalDirect}
	if hasEmb {
		total += simWeightEmbeddings
		used = slices.Insert(used, 1, simSignalEmbeddings)
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
	s.cands = cands[:0]                // keep the grown buffer for the next call
	best := rankers.TopK(cands, limit) // ties: by note id, i.e. by path
	out := make([]SimilarNote, len(best))
	for k, c := range best {
		out[k] = x.render(note, c.Note, c.Score, s, hasEmb)
	}
	return out, used, nil
}

// countShared fills the tag, coupling, co-citation and direct-link
// counters of s for every note related to note.
func (x *simIndex) countShared(note int, s *simScratch) {
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
func (x *simIndex) score(note, i int, s *simScratch, hasEmb bool) float64 {
	var sum float64
	if c := s.content[i]; c > 0 {
		sum += simWeightContent * math.Min(float64(c), 1)
	}
	if hasEmb && s.emb[i] > 0 {
		sum += simWeightEmbeddings * math.Min(float64(s.emb[i]), 1)
	}
	if t := s.tags[i]; t > 0 {
		sum += simWeightTags * jaccard(int(t), len(x.tags[note]), len(x.tags[i]))
	}
	if l := s.links[i]; l > 0 {
		sum += simWeightLinks * salton(int(l), len(x.out[note]), len(x.out[i]))
	}
	if c := s.cocite[i]; c > 0 {
		sum += simWeightCoCitation * salton(int(c), len(x.in[note]), len(x.in[i]))
	}
	if s.direct[i] {
		sum += simWeightDirect
	}
	return sum
}

// jaccard is |A∩B| / |A∪B| from the sizes.
func jaccard(shared, a, b int) float64 { return float64(shared) / float64(a+b-shared) }

// salton is Salton's cosine of two link sets: shared / sqrt(|A|·|B|).
func salton(shared, a, b int) float64 {
	return math.Min(1, float64(shared)/math.Sqrt(float64(a)*float64(b)))
}

func (x *simIndex) render(note, i int, score float64, s *simScratch, hasEmb bool) SimilarNote {
	nt := x.eng.Snapshot().Notes[i]
	out := SimilarNote{
		Path: nt.Path, Title: nt.Title, Score: round6(score),
		Signals: SimilarSignals{
			Content:     round6(math.Min(float64(s.content[i]), 1)),
			SharedLinks: int(s.links[i]), CoCitation: int(s.cocite[i]), DirectLink: s.direct[i],
		},
		SharedTags: []string{},
	}
	if hasEmb && x.cents.Has(i) {
		out.Signals.Embeddings = ptr(round6(float64(s.emb[i])))
	}
	if t := int(s.tags[i]); t > 0 {
		out.Signals.SharedTags = round6(jaccard(t, len(x.tags[note]), len(x.tags[i])))
		for _, id := range x.tags[note] {
			if _, ok := slices.BinarySearch(x.tags[i], id); ok {
				out.SharedTags = append(out.SharedTags, x.tagNames[id])
			}
		}
	}
	return out
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// similarNote resolves the note to compare by path or title, without
// reading the disk: only indexed notes have vectors and links.
func similarNote(snap *vault.Snapshot, p, title string) (int, error) {
	return noteID(snap, p, title, func(ref string) error { return errNotFound(ref, snap.Suggest(ref, 5)) })
}

// findSimilar answers obsidian_find_similar.
func (s *Server) findSimilar(ctx context.Context, cache *simCache, in SimilarInput) (SimilarOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = similarDefaultLimit
	}
	if limit < 1 || limit > similarMaxLimit {
		return SimilarOutput{}, fmt.Errorf("limit must be between 1 and %d, got %d", similarMaxLimit, in.Limit)
	}
	if in.MinScore < 0 || in.MinScore > 1 || math.IsNaN(in.MinScore) {
		return SimilarOutput{}, fmt.Errorf("min_score must be between 0 and 1, got %v", in.MinScore)
	}
	e := s.engine()
	snap := e.Snapshot()
	note, err := similarNote(snap, in.Path, in.Title)
	if err != nil {
		return SimilarOutput{}, err
	}
	allow, err := noteFilter(snap, in.Folder)
	if err != nil {
		return SimilarOutput{}, err
	}
	sim, used, err := cache.get(e).similar(ctx, note, limit, in.MinScore, allow)
	if err != nil {
		return SimilarOutput{}, err
	}
	n := snap.Notes[note]
	return SimilarOutput{Path: n.Path, Title: n.Title, SignalsUsed: used, Similar: sim}, nil
}
