package rankers_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

const eps = 1e-5

// parseNote parses text as a note. When the text sets no frontmatter title
// the file-name title is blanked, so that only what a test writes is
// indexed.
func parseNote(t testing.TB, path, text string) *vault.Note {
	t.Helper()
	n, warns := vault.Parse(path, []byte(text))
	if len(warns) > 0 {
		t.Fatalf("parse %s: %v", path, warns)
	}
	titled := false
	for k := range n.Frontmatter {
		titled = titled || strings.EqualFold(k, "title")
	}
	if !titled {
		n.Title = ""
	}
	return n
}

// corpus is a built index with the notes and chunks it was built from.
type corpus struct {
	an     *analysis.Analyzer
	notes  []*vault.Note
	chunks [][]chunk.Chunk
	idx    *rankers.TFIDF
}

func buildWith(t testing.TB, fw rankers.FieldWeights, texts ...string) *corpus {
	t.Helper()
	c := &corpus{an: analysis.New()}
	for i, text := range texts {
		n := parseNote(t, fmt.Sprintf("n%d.md", i), text)
		c.notes = append(c.notes, n)
		c.chunks = append(c.chunks, chunk.Split(n, chunk.Options{}))
	}
	idx, err := rankers.NewTFIDF(context.Background(), c.an, c.notes, c.chunks, fw)
	if err != nil {
		t.Fatalf("NewTFIDF: %v", err)
	}
	c.idx = idx
	return c
}

func build(t testing.TB, texts ...string) *corpus {
	t.Helper()
	return buildWith(t, rankers.DefaultFieldWeights, texts...)
}

func (c *corpus) rank(t testing.TB, req rankers.Request) []rankers.Candidate {
	t.Helper()
	if req.Limit == 0 {
		req.Limit = 100
	}
	got, err := c.idx.Rank(context.Background(), req)
	if err != nil {
		t.Fatalf("Rank(%q): %v", req.Query, err)
	}
	checkSorted(t, got)
	for _, g := range got {
		if math.IsNaN(g.Score) || math.IsInf(g.Score, 0) || g.Score <= 0 {
			t.Errorf("Rank(%q): candidate %+v has a non-positive or non-finite score", req.Query, g)
		}
		if g.Note < 0 || g.Note >= len(c.notes) {
			t.Fatalf("Rank(%q): note id %d out of range", req.Query, g.Note)
		}
		if !req.Block && g.Chunk != rankers.NoChunk {
			t.Errorf("Rank(%q): note-level candidate %+v has a chunk", req.Query, g)
		}
		if req.Block && (g.Chunk < 0 || g.Chunk >= len(c.chunks[g.Note])) {
			t.Errorf("Rank(%q): chunk %d of note %d out of range [0,%d)", req.Query, g.Chunk, g.Note, len(c.chunks[g.Note]))
		}
	}
	return got
}

// checkSorted asserts score-descending order with (note, chunk) ascending
// among equal scores, and no duplicates.
func checkSorted(t testing.TB, got []rankers.Candidate) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		ok := a.Score > b.Score ||
			a.Score == b.Score && (a.Note < b.Note || a.Note == b.Note && a.Chunk < b.Chunk)
		if !ok {
			t.Fatalf("candidates %d and %d out of order: %+v then %+v", i-1, i, a, b)
		}
	}
}

func notesOf(cands []rankers.Candidate) []int {
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c.Note
	}
	return out
}

// expectedScore computes, independently of the index, the documented
// TF-IDF score of every body-only note with query: tf counted over the
// analyzed terms, weight (1+ln tf)·idf with idf = ln((1+N)/(1+df))+1, the
// query vector L2-normalised, a note's vector divided by its pivoted norm
// (1−slope)·pivot + slope·norm with pivot the mean norm (slope 1: plain
// cosine), and query terms absent from the corpus ignored.
func expectedScore(an *analysis.Analyzer, bodies []string, query string, slope float64) map[int]float64 {
	n := len(bodies)
	tfs := make([]map[string]float64, n)
	df := map[string]int{}
	for i, b := range bodies {
		tfs[i] = map[string]float64{}
		for _, term := range an.Terms(nil, b, analysis.Index) {
			tfs[i][term]++
		}
		for term := range tfs[i] {
			df[term]++
		}
	}
	idf := func(term string) float64 { return math.Log(float64(1+n)/float64(1+df[term])) + 1 }
	weigh := func(tf map[string]float64) (map[string]float64, float64) {
		v := map[string]float64{}
		var norm float64
		for term, f := range tf {
			w := (1 + math.Log(f)) * idf(term)
			v[term] = w
			norm += w * w
		}
		return v, math.Sqrt(norm)
	}
	qtf := map[string]float64{}
	for _, term := range an.Terms(nil, query, analysis.Query) {
		if df[term] > 0 {
			qtf[term]++
		}
	}
	q, qnorm := weigh(qtf)
	for term := range q {
		q[term] /= qnorm
	}
	var pivot float64
	for i := range bodies {
		_, norm := weigh(tfs[i])
		pivot += norm / float64(n)
	}
	out := map[int]float64{}
	for i := range bodies {
		d, norm := weigh(tfs[i])
		for term := range d {
			d[term] /= (1-slope)*pivot + slope*norm
		}
		var dot float64
		for term, w := range q {
			dot += w * d[term]
		}
		if dot > 0 {
			out[i] = dot
		}
	}
	return out
}

var fruitBodies = []string{
	"apple banana",
	"apple cherry cherry",
	"banana banana banana date",
	"cherry date elderberry",
}

// TestTFIDFExactScores checks the index against an independent oracle,
// and the oracle (at slope 1, plain cosine) against values worked out by
// hand.
func TestTFIDFExactScores(t *testing.T) {
	c := build(t, fruitBodies...)
	tests := []struct {
		query string
		// hand, when set, is the cosine of some notes worked out by hand
		// from the formulas.
		hand map[int]float64
	}{
		{query: "apple", hand: map[int]float64{
			// df(apple)=df(banana)=2: equal idf, equal tf.
			0: 1 / math.Sqrt2,
			// idf(apple)=idf(cherry); cherry has tf 2.
			1: 1 / math.Sqrt(1+(1+math.Ln2)*(1+math.Ln2)),
		}},
		{query: "cherry"},
		{query: "banana date"},
		{query: "apple apple cherry"},   // query tf 2
		{query: "elderberry banana"},    // a rare and a common term
		{query: "apple kumquat"},        // unknown term ignored
		{query: "Cherry, DATE; Apple!"}, // case and punctuation
		{query: "elderberry", hand: map[int]float64{
			// idf(cherry)=idf(date)=ln(5/3)+1, idf(elderberry)=ln(5/2)+1.
			3: (math.Log(2.5) + 1) / math.Sqrt(2*math.Pow(math.Log(5.0/3)+1, 2)+math.Pow(math.Log(2.5)+1, 2)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			cosine := expectedScore(c.an, fruitBodies, tt.query, 1)
			for note, h := range tt.hand {
				if math.Abs(cosine[note]-h) > 1e-12 {
					t.Fatalf("test oracle disagrees with hand value for note %d: %v vs %v", note, cosine[note], h)
				}
			}
			want := expectedScore(c.an, fruitBodies, tt.query, rankers.PivotSlope)
			for _, block := range []bool{false, true} {
				got := c.rank(t, rankers.Request{Query: tt.query, Block: block})
				if len(got) != len(want) {
					t.Fatalf("block=%v: got %d candidates %+v, want %d (%v)", block, len(got), got, len(want), want)
				}
				for _, g := range got {
					w, ok := want[g.Note]
					if !ok {
						t.Fatalf("block=%v: unexpected note %d", block, g.Note)
					}
					if math.Abs(g.Score-w) > eps {
						t.Errorf("block=%v: note %d score %.7f, want %.7f", block, g.Note, g.Score, w)
					}
					// One untitled chunk per note: the chunk vector is the
					// note vector.
					if block && g.Chunk != 0 {
						t.Errorf("block=%v: note %d chunk %d, want 0", block, g.Note, g.Chunk)
					}
				}
			}
		})
	}
}

func TestTFIDFIDF(t *testing.T) {
	c := build(t, fruitBodies...)
	n := float64(len(fruitBodies))
	tests := []struct {
		word string
		df   int // 0: unknown
	}{
		{"apple", 2}, {"banana", 2}, {"cherry", 2}, {"date", 2},
		{"elderberry", 1},
		{"Elderberries", 1}, // analyzed like the index
		{"kumquat", 0},
	}
	for _, tt := range tests {
		term := c.an.Term(tt.word)
		want := 0.0
		if tt.df > 0 {
			want = math.Log((1+n)/(1+float64(tt.df))) + 1
		}
		if got := c.idx.IDF(term); math.Abs(got-want) > eps {
			t.Errorf("IDF(%q → %q) = %v, want %v", tt.word, term, got, want)
		}
	}
	// banana occurs 3 times in one note: df counts notes, not occurrences.
	if c.idx.IDF(c.an.Term("banana")) != c.idx.IDF(c.an.Term("apple")) {
		t.Error("df must count notes, not occurrences")
	}
	// A term in every note still gets idf 1 (smoothing), never 0.
	all := build(t, "kiwi one", "kiwi two", "kiwi three")
	if got := all.idx.IDF(all.an.Term("kiwi")); math.Abs(got-1) > eps {
		t.Errorf("IDF of a term in every note = %v, want 1", got)
	}
	if c.idx.Name() != rankers.SignalTFIDF {
		t.Errorf("Name() = %q", c.idx.Name())
	}
}

func TestTFIDFFieldWeights(t *testing.T) {
	texts := []string{
		0: "zebra apple banana",                                    // body
		1: "---\ntitle: zebra\n---\napple banana",                  // title ×3
		2: "---\naliases: [zebra]\n---\napple banana",              // alias ×3
		3: "## zebra\n\napple banana",                              // heading ×2 + its body line ×1
		4: "---\ntags: [zebra]\n---\napple banana",                 // tag ×2
		5: "---\nkind: zebra\n---\napple banana",                   // property ×1
		6: "---\ntitle: zebra\naliases: [zebra]\n---\nzebra apple", // 3+3+1, banana missing
	}
	c := build(t, texts...)
	got := c.rank(t, rankers.Request{Query: "zebra"})
	// Every note holds zebra, apple and banana (idf 1 each, banana's df
	// is 6: idf ln(8/7)+1) except note 6; check the simple ones exactly.
	// cosine of a zebra tf with apple and banana (both tf 1, zebra and
	// apple have idf 1).
	// The score is w/((1−s)·pivot + s·norm), pivot the mean of the notes'
	// norms (see pivoted in pivot.go).
	s := rankers.PivotSlope
	norm := func(tf, idfBanana float64) float64 {
		w := 1 + math.Log(tf)
		return math.Sqrt(w*w + 1 + idfBanana*idfBanana)
	}
	score := func(tf, norm, pivot float64) float64 { return (1 + math.Log(tf)) / ((1-s)*pivot + s*norm) }
	ib := math.Log(8.0/7) + 1
	tfs := []float64{1, 3, 3, 3, 2, 1}
	var pivot float64
	for _, tf := range tfs {
		pivot += norm(tf, ib) / 7
	}
	pivot += math.Sqrt(math.Pow(1+math.Log(7), 2)+1) / 7 // note 6: zebra tf 7, apple
	want := map[int]float64{}
	for i, tf := range tfs {
		want[i] = score(tf, norm(tf, ib), pivot)
	}
	for _, g := range got {
		if w, ok := want[g.Note]; ok && math.Abs(g.Score-w) > eps {
			t.Errorf("note %d: score %.7f, want %.7f", g.Note, g.Score, w)
		}
	}
	if order := notesOf(got); !slices.Equal(order, []int{6, 1, 2, 3, 4, 0, 5}) {
		t.Errorf("order %v, want [6 1 2 3 4 0 5] (title=alias=heading > tag > body=property)", order)
	}

	// Equal weights make every field count like the body.
	flat := buildWith(t, rankers.FieldWeights{Title: 1, Aliases: 1, Headings: 1, Tags: 1, Properties: 1, Body: 1}, texts[:6]...)
	flatGot := flat.rank(t, rankers.Request{Query: "zebra"})
	if len(flatGot) != 6 {
		t.Fatalf("flat weights: %d candidates, want 6", len(flatGot))
	}
	// Six notes, every term in all six: idf 1; note 3's heading is also a
	// body line (zebra tf 2).
	flatPivot := (5*norm(1, 1) + norm(2, 1)) / 6
	for _, g := range flatGot {
		w := score(1, norm(1, 1), flatPivot)
		if g.Note == 3 {
			w = score(2, norm(2, 1), flatPivot)
		}
		if math.Abs(g.Score-w) > eps {
			t.Errorf("flat weights: note %d score %.7f, want %.7f", g.Note, g.Score, w)
		}
	}
}

// A zero field weight switches the field off: its words neither match nor
// count toward df, and a note with nothing else gets no NaN score.
func TestTFIDFZeroFieldWeight(t *testing.T) {
	fw := rankers.FieldWeights{Body: 1} // titles, aliases, … off
	c := buildWith(t, fw,
		"---\ntitle: zebra\n---\napple banana",
		"---\ntitle: zebra\n---\n",
		"zebra cherry",
	)
	got := c.rank(t, rankers.Request{Query: "zebra"})
	if order := notesOf(got); !slices.Equal(order, []int{2}) {
		t.Errorf("zebra with titles off: notes %v (%+v), want [2]", order, got)
	}
	if want := math.Log(4.0/2) + 1; math.Abs(c.idx.IDF(c.an.Term("zebra"))-want) > eps {
		t.Errorf("IDF(zebra) = %v, want %v (df 1: titles off)", c.idx.IDF(c.an.Term("zebra")), want)
	}
	// Chunks carry the note's fields with the same weights: titles off
	// there too.
	blocks := c.rank(t, rankers.Request{Query: "zebra", Block: true})
	if len(blocks) != 1 || blocks[0].Note != 2 {
		t.Errorf("block zebra: %+v, want only note 2's chunk", blocks)
	}
}

func TestTFIDFStemming(t *testing.T) {
	c := build(t,
		"she runs every morning",
		"studies of connections",
		"a quiet evening",
	)
	tests := []struct {
		query string
		want  []int
	}{
		{"running", []int{0}},
		{"runner runs", []int{0}}, // runner stems to itself: unknown, ignored
		{"RUN", []int{0}},
		{"study", []int{1}},
		{"connected", []int{1}},
		{"evenings quietly", []int{2}},
	}
	for _, tt := range tests {
		if got := notesOf(c.rank(t, rankers.Request{Query: tt.query})); !slices.Equal(got, tt.want) {
			t.Errorf("%q: notes %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestTFIDFCJK(t *testing.T) {
	c := build(t,
		"知识管理系统是一个很好的工具",
		"the knowledge management system",
		"东京是日本的首都",
		"系统",
	)
	tests := []struct {
		query string
		want  []int
	}{
		{"知识管理", []int{0}},
		{"管理系统", []int{0, 3}}, // bigram 系统 also in note 3
		{"日本", []int{2}},
		{"首", []int{2}}, // a lone character is a unigram query
		{"knowledge", []int{1}},
		{"韩国", nil},
	}
	for _, tt := range tests {
		got := c.rank(t, rankers.Request{Query: tt.query})
		if notes := notesOf(got); !slices.Equal(notes, tt.want) && !(len(notes) == 0 && len(tt.want) == 0) {
			t.Errorf("%q: notes %v, want %v", tt.query, notes, tt.want)
		}
	}
	// 知识管理 shares three bigrams with note 0 and none with note 3.
	got := c.rank(t, rankers.Request{Query: "知识管理 系统"})
	if len(got) != 2 || got[0].Note != 0 || got[1].Note != 3 {
		t.Errorf("知识管理 系统: %+v, want note 0 then 3", got)
	}
}

func TestTFIDFAllow(t *testing.T) {
	texts := make([]string, 12)
	for i := range texts {
		texts[i] = strings.Repeat("kiwi ", 1+i%4) + fmt.Sprintf("word%d", i)
	}
	c := build(t, texts...)
	tests := []struct {
		name  string
		allow func(int) bool
		want  int // number of candidates
	}{
		{"nil allows all", nil, 12},
		{"even only", func(n int) bool { return n%2 == 0 }, 6},
		{"none", func(int) bool { return false }, 0},
		{"one", func(n int) bool { return n == 7 }, 1},
		{"all but the best", func(n int) bool { return n%4 != 3 }, 9},
	}
	for _, tt := range tests {
		for _, block := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/block=%v", tt.name, block), func(t *testing.T) {
				got := c.rank(t, rankers.Request{Query: "kiwi", Allow: tt.allow, Block: block})
				if len(got) != tt.want {
					t.Errorf("%d candidates, want %d: %+v", len(got), tt.want, got)
				}
				for _, g := range got {
					if tt.allow != nil && !tt.allow(g.Note) {
						t.Errorf("excluded note %d returned", g.Note)
					}
				}
				// The filter applies before the cut: Limit 2 still fills
				// up with allowed notes.
				limited := c.rank(t, rankers.Request{Query: "kiwi", Allow: tt.allow, Block: block, Limit: 2})
				if len(limited) != min(2, tt.want) {
					t.Errorf("limit 2: %d candidates, want %d", len(limited), min(2, tt.want))
				}
				if !slices.Equal(limited, got[:len(limited)]) {
					t.Errorf("limit 2: %+v is not a prefix of %+v", limited, got)
				}
			})
		}
	}
}

// section returns a markdown section of about words tokens, with extra
// words spread through it.
func section(heading string, words int, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", heading)
	for i := range words {
		fmt.Fprintf(&b, "%sfill%d ", heading, i%37)
		if i%25 == 24 {
			b.WriteString("\n")
		}
		if len(extra) > 0 && i == words/2 {
			b.WriteString(strings.Join(extra, " ") + " ")
		}
	}
	return b.String() + "\n\n"
}

func TestTFIDFBlock(t *testing.T) {
	c := build(t,
		section("alpha", 100, "mango")+section("beta", 100, "kiwi")+section("gamma", 100, "mango", "mango"),
		section("delta", 100, "papaya")+section("epsilon", 100, "mango"),
		"just one short chunk about kiwi and papaya",
		"---\ntitle: papaya\n---\nnothing else here",
	)
	if n := []int{len(c.chunks[0]), len(c.chunks[1]), len(c.chunks[2])}; !slices.Equal(n, []int{3, 2, 1}) {
		t.Fatalf("chunk counts %v, want [3 2 1]: the fixture no longer splits as intended", n)
	}
	type pair struct{ note, chunk int }
	tests := []struct {
		query string
		want  []pair // as a set
	}{
		{"kiwi", []pair{{0, 1}, {2, 0}}},
		{"mango", []pair{{0, 0}, {0, 2}, {1, 1}}},
		{"papaya", []pair{{1, 0}, {2, 0}, {3, 0}}}, // note 3 by its title
		{"betafill3", []pair{{0, 1}}},
		{"beta", []pair{{0, 1}}}, // the heading path
	}
	for _, tt := range tests {
		got := c.rank(t, rankers.Request{Query: tt.query, Block: true})
		var pairs []pair
		for _, g := range got {
			pairs = append(pairs, pair{g.Note, g.Chunk})
			ch := c.chunks[g.Note][g.Chunk]
			if ch.Index != g.Chunk {
				t.Errorf("%q: chunk %d has Index %d", tt.query, g.Chunk, ch.Index)
			}
			// The chunk's indexed text: its body, heading path and title.
			text := ch.Text(c.notes[g.Note]) + " " + strings.Join(ch.Headings, " ") + " " + c.notes[g.Note].Title
			terms := c.an.Terms(nil, text, analysis.Index)
			if !slices.Contains(terms, c.an.Term(tt.query)) {
				t.Errorf("%q: chunk (%d,%d) does not contain the term: %q", tt.query, g.Note, g.Chunk, text)
			}
		}
		slices.SortFunc(pairs, func(a, b pair) int { return a.note*1000 + a.chunk - b.note*1000 - b.chunk })
		if !slices.Equal(pairs, tt.want) {
			t.Errorf("%q: chunks %v, want %v", tt.query, pairs, tt.want)
		}
	}
	// Chunk (0,2) holds mango twice: it outranks (0,0).
	got := c.rank(t, rankers.Request{Query: "mango", Block: true})
	if got[0].Note != 0 || got[0].Chunk != 2 {
		t.Errorf("mango: best chunk %+v, want note 0 chunk 2", got[0])
	}
	// Note-level search on the same index still returns notes.
	if notes := notesOf(c.rank(t, rankers.Request{Query: "mango"})); len(notes) != 2 {
		t.Errorf("note-level mango: %v, want 2 notes", notes)
	}
}

func TestTFIDFNoCandidates(t *testing.T) {
	c := build(t, fruitBodies...)
	for _, q := range []string{
		"", "   ", "!!! ??? ...", "kumquat", "the and of is", "The a AN", "x" + strings.Repeat("y", 80),
	} {
		for _, block := range []bool{false, true} {
			got, err := c.idx.Rank(context.Background(), rankers.Request{Query: q, Limit: 10, Block: block})
			if err != nil || len(got) != 0 {
				t.Errorf("Rank(%q, block=%v) = %+v, %v; want nothing and no error", q, block, got, err)
			}
		}
	}
	// A limit of zero (or less) returns nothing, even for a good query.
	for _, limit := range []int{0, -1} {
		got, err := c.idx.Rank(context.Background(), rankers.Request{Query: "apple", Limit: limit})
		if err != nil || len(got) != 0 {
			t.Errorf("limit %d: %+v, %v", limit, got, err)
		}
	}
	// An empty corpus.
	empty, err := rankers.NewTFIDF(context.Background(), analysis.New(), nil, nil, rankers.DefaultFieldWeights)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := empty.Rank(context.Background(), rankers.Request{Query: "apple", Limit: 5}); err != nil || len(got) != 0 {
		t.Errorf("empty corpus: %+v, %v", got, err)
	}
}

func TestTFIDFLimitAndTies(t *testing.T) {
	texts := []string{
		"kiwi kiwi kiwi lime",
		"kiwi lime lemon",
	}
	for range 20 {
		texts = append(texts, "kiwi lime") // identical notes 2..21
	}
	c := build(t, texts...)
	all := c.rank(t, rankers.Request{Query: "kiwi"})
	if len(all) != 22 {
		t.Fatalf("%d candidates, want 22", len(all))
	}
	if all[0].Note != 0 {
		t.Errorf("best note %d, want 0", all[0].Note)
	}
	for _, limit := range []int{1, 2, 3, 5, 7, 21, 22, 23, 1000} {
		for _, block := range []bool{false, true} {
			got := c.rank(t, rankers.Request{Query: "kiwi", Limit: limit, Block: block})
			if len(got) != min(limit, 22) {
				t.Fatalf("limit %d: %d candidates", limit, len(got))
			}
			// The identical notes tie; they come out lowest id first, and
			// are the best of the rest (lemon makes note 1 weaker).
			for i := 1; i < len(got) && i <= 20; i++ {
				if got[i].Note != i+1 || got[i].Score != got[1].Score {
					t.Fatalf("limit %d block=%v: position %d is %+v, want note %d tied with position 1", limit, block, i, got[i], i+1)
				}
			}
			if len(got) == 22 && got[21].Note != 1 {
				t.Errorf("limit %d: last %+v, want note 1", limit, got[21])
			}
		}
	}
	// Ranking twice gives the same answer.
	again := c.rank(t, rankers.Request{Query: "kiwi"})
	if !reflect.DeepEqual(all, again) {
		t.Error("Rank is not deterministic")
	}
}

func TestTFIDFConcurrent(t *testing.T) {
	texts := []string{}
	for i := range 60 {
		texts = append(texts, section(fmt.Sprintf("s%d", i%7), 90, "kiwi")+
			section(fmt.Sprintf("t%d", i%5), 90, strings.Repeat("mango ", i%3+1))+
			fmt.Sprintf("papaya%d lime", i%4))
	}
	c := build(t, texts...)
	reqs := []rankers.Request{
		{Query: "kiwi mango", Limit: 10},
		{Query: "kiwi mango", Limit: 10, Block: true},
		{Query: "papaya1 lime", Limit: 5},
		{Query: "s3fill2 mango", Limit: 50, Block: true},
		{Query: "lime", Limit: 100, Allow: func(n int) bool { return n%3 != 0 }},
		{Query: "nothing here"},
	}
	want := make([][]rankers.Candidate, len(reqs))
	for i, r := range reqs {
		want[i], _ = c.idx.Rank(context.Background(), r)
	}
	if len(want[0]) != 10 || len(want[1]) != 10 || len(want[3]) != 50 {
		t.Fatalf("fixture too small: %d %d %d", len(want[0]), len(want[1]), len(want[3]))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Go(func() {
			for it := range 40 {
				i := (g + it) % len(reqs)
				got, err := c.idx.Rank(context.Background(), reqs[i])
				if err != nil {
					errs <- err
					return
				}
				if !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Errorf("goroutine %d request %d: %+v, want %+v", g, i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTFIDFErrors(t *testing.T) {
	an := analysis.New()
	n := parseNote(t, "a.md", "apple")
	chs := [][]chunk.Chunk{chunk.Split(n, chunk.Options{})}
	tests := []struct {
		name   string
		notes  []*vault.Note
		chunks [][]chunk.Chunk
	}{
		{"more chunk lists", []*vault.Note{n}, append(chs, chs[0])},
		{"fewer chunk lists", []*vault.Note{n, n}, chs},
		{"nil chunk lists", []*vault.Note{n}, nil},
	}
	for _, tt := range tests {
		idx, err := rankers.NewTFIDF(context.Background(), an, tt.notes, tt.chunks, rankers.DefaultFieldWeights)
		if err == nil || idx != nil {
			t.Errorf("%s: NewTFIDF = %v, %v; want an error", tt.name, idx, err)
		}
	}
	// A cancelled build fails with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rankers.NewTFIDF(ctx, an, []*vault.Note{n}, chs, rankers.DefaultFieldWeights); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build: err = %v", err)
	}
	// A cancelled search reports the context's error.
	idx, err := rankers.NewTFIDF(context.Background(), an, []*vault.Note{n}, chs, rankers.DefaultFieldWeights)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Rank(ctx, rankers.Request{Query: "apple", Limit: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Rank: err = %v", err)
	}
}

func TestProperties(t *testing.T) {
	text := `---
title: Title Words
aliases: [alias words]
tags: [tagword]
author: Ursula Le Guin
year: 1969
draft: true
empty:
topics: [anarchism, "utopia"]
nested:
  place: Anarres
  list: [Urras]
---
body text
`
	n := parseNote(t, "dispossessed.md", text)
	got := rankers.Properties(n)
	want := []string{"1969", "Anarres", "Urras", "Ursula Le Guin", "anarchism", "true", "utopia"}
	if !slices.Equal(got, want) {
		t.Errorf("Properties = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"no frontmatter", "no frontmatter", nil},
		// vault matches these keys case-insensitively, so they are the
		// title, aliases and tags and must not be properties as well.
		{"capitalised keys", "---\nTitle: Shevek\nAliases: [Odo]\nTags: [physics]\n---\n", nil},
		{"other keys keep case", "---\nAuthor: Ursula\nTITLE: Shevek\n---\n", []string{"Ursula"}},
	} {
		n := parseNote(t, "p.md", tt.text)
		if got := rankers.Properties(n); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Properties = %q, want %q (title %q, aliases %q, tags %q)", tt.name, got, tt.want, n.Title, n.Aliases, n.Tags)
		}
	}

	c := build(t, text, "body text only", "a note about anarres")
	tests := []struct {
		query string
		want  []int
	}{
		{"ursula", []int{0}},
		{"utopia", []int{0}},
		{"1969", []int{0}},
		{"urras", []int{0}},
		{"anarres", []int{0, 2}},
		{"body", []int{0, 1}},
	}
	for _, tt := range tests {
		got := notesOf(c.rank(t, rankers.Request{Query: tt.query}))
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: notes %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestTFIDFBestChunk(t *testing.T) {
	long := "# Alpha\n\n" + strings.Repeat("gardening soil compost ", 200) +
		"\n\n# Beta\n\n" + strings.Repeat("telescope mirror lens ", 200) +
		"\n\n# Gamma\n\n" + strings.Repeat("sourdough starter flour ", 200) + "\n"
	c := build(t, long, "a short note about telescope eyepieces\n")
	if len(c.chunks[0]) < 3 {
		t.Fatalf("long note split into %d chunks, want ≥3", len(c.chunks[0]))
	}
	tests := []struct {
		query   string
		note    int
		heading string // heading of the chunk we expect, "" for NoChunk
	}{
		{"telescope mirror", 0, "Beta"},
		{"sourdough", 0, "Gamma"},
		{"compost", 0, "Alpha"},
		{"unrelated words", 0, ""},
		{"telescope", 1, "first"},
		{"telescope", 7, ""}, // out of range
	}
	for _, tt := range tests {
		got := c.idx.BestChunk(tt.query, tt.note)
		switch {
		case tt.heading == "":
			if got != rankers.NoChunk {
				t.Errorf("BestChunk(%q, %d) = %d, want NoChunk", tt.query, tt.note, got)
			}
		case tt.heading == "first":
			if got != 0 {
				t.Errorf("BestChunk(%q, %d) = %d, want 0", tt.query, tt.note, got)
			}
		default:
			if got == rankers.NoChunk {
				t.Fatalf("BestChunk(%q, %d) = NoChunk", tt.query, tt.note)
			}
			if hp := c.chunks[tt.note][got].Headings; len(hp) == 0 || hp[len(hp)-1] != tt.heading {
				t.Errorf("BestChunk(%q, %d) = chunk under %v, want %q", tt.query, tt.note, hp, tt.heading)
			}
		}
	}
}
