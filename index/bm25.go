package index

import (
	"fmt"
	"math"
	"strings"
)

// BM25Params are BM25's two free parameters: K1 saturates a term's count
// in a row, B scales the length normalisation (0 none, 1 full). Search
// takes them per call; the product's values are rankers.BM25K1 and
// rankers.BM25B (rankers/tuning.go, with the ranking constants). The
// column weights are not parameters but part of the index
// (DefaultFieldWeights): the in-memory copy holds counts weighted with them.
type BM25Params struct {
	K1, B float64
}

// validate rejects parameters that do not make a ranking: K1 must be
// positive and B within [0, 1].
func (p BM25Params) validate() error {
	if !(p.K1 > 0) || math.IsInf(p.K1, 0) || !(p.B >= 0 && p.B <= 1) {
		return fmt.Errorf("BM25 parameters k1=%v b=%v: want k1 > 0 and 0 ≤ b ≤ 1", p.K1, p.B)
	}
	return nil
}

// FieldWeights scale how much one occurrence of a term counts in each part
// of a note: a word in the title says more about the note than one in
// passing. Both lexical signals weigh fields with them: BM25 through the
// FTS5 column weights (columnWeightsOf) and TF-IDF (rankers, which names
// this type rankers.FieldWeights). They live here, not with the other
// ranking constants in rankers, because BM25's are part of the index (the
// in-memory copy holds counts weighted with them) and rankers imports
// index.
type FieldWeights struct {
	Title, Aliases, Headings, Tags, Properties, Body float32
}

// DefaultFieldWeights returns the per-field weights obsidian_search uses,
// the one copy of them: a word in the title or an alias says most about a
// note. They are integers, so that BM25's weighted counts are exact (a
// chunk of a few hundred words weighs far below the uint16 bound of the
// in-memory copy; a row over it fails the copy's build, and searches read
// SQLite instead).
func DefaultFieldWeights() FieldWeights {
	return FieldWeights{Title: 3, Aliases: 3, Headings: 2, Tags: 2, Properties: 1, Body: 1}
}

// column is one FTS5 column of the index and its BM25 weight.
type column struct {
	name   string
	weight uint32
}

// columnWeights weight the FTS5 columns title, aliases, headings, tags,
// body, cjk (the table's order) with DefaultFieldWeights.
var columnWeights = columnWeightsOf(DefaultFieldWeights())

// columnWeightsOf maps field weights onto the FTS5 columns. The cjk
// column holds the body's CJK grams, so it weighs as the body (the grams
// of a title, alias or heading are in that field's own column); frontmatter
// properties have no column of their own.
func columnWeightsOf(fw FieldWeights) [6]column {
	return [...]column{
		{"title", uint32(fw.Title)}, {"aliases", uint32(fw.Aliases)}, {"headings", uint32(fw.Headings)},
		{"tags", uint32(fw.Tags)}, {"body", uint32(fw.Body)}, {"cjk", uint32(fw.Body)},
	}
}

// ftsColumns is the FTS5 table's column list in columnWeights' order,
// as SQL; ftsInsert inserts one row with every column. Every statement
// that creates, fills or reads the table whole uses them, so a column
// exists in one place.
var (
	ftsColumns = func() string {
		names := make([]string, len(columnWeights))
		for i, c := range columnWeights {
			names[i] = c.name
		}
		return strings.Join(names, ", ")
	}()
	ftsInsert = "INSERT INTO fts(rowid, " + ftsColumns + ") VALUES (?" + strings.Repeat(", ?", len(columnWeights)) + ")"
)

// columnWeight returns the weight and the position of a column by name.
func columnWeight(col string) (w uint32, pos int, ok bool) {
	for i, c := range columnWeights {
		if c.name == col {
			return c.weight, i, true
		}
	}
	return 0, 0, false
}

// postings are one query phrase's rows: dense row numbers (ascending)
// and the phrase's column-weighted count of instances in each (uint16 in
// the in-memory copy, uint32 when read from SQLite per query).
type postings[F uint16 | uint32] struct {
	rows []uint32
	freq []F
	// n, when not 0, is how many rows hold the phrase in all: rows are
	// then only some of them (the in-memory copy's base or added rows,
	// postingsdelta.go). 0: len(rows).
	n int64
}

// scorer scores one query over one snapshot: the parameters and the
// snapshot's row count and mean row length in tokens.
type scorer struct {
	k1, b, avgdl float64
	nRow         int64
}

// newScorer readies the scoring of a snapshot of nRow rows holding nToken
// tokens in all.
func newScorer(p BM25Params, nRow, nToken int64) scorer {
	return scorer{k1: p.K1, b: p.B, avgdl: float64(nToken) / float64(nRow), nRow: nRow}
}

// idf is the inverse document frequency of a phrase nHit rows hold, at
// least 1e-6 (as in bm25()).
func (s scorer) idf(nHit int64) float64 {
	idf := math.Log((float64(s.nRow-nHit) + 0.5) / (float64(nHit) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// accumulate adds to acc the BM25 score of every row holding one of
// phrases (in query order), computed as FTS5's bm25() computes it
// (fts5_aux.c, fts5Bm25Function) operation by operation:
//
//	idf_i   = log((N − n_i + 0.5) / (n_i + 0.5)), at least 1e-6
//	score   = Σ_i idf_i · (f_i·(k1+1)) / (f_i + k1·(1 − b + b·D/avgdl))
//
// summed in phrase order from 0, where n_i is the rows holding phrase i,
// f_i its weighted count in the row, D the row's tokens (size, by dense
// row number) and avgdl the mean over all rows. A phrase a row lacks adds
// 0 there, as in bm25(). The float64 conversions stop a compiler from
// fusing a multiply and an add (the wasm SQLite rounds each operation),
// so that at FTS5's k1 and b the scores are bit-identical to bm25()'s.
// It returns touched with every row it scored first appended (acc must be
// 0 where it has not scored).
func accumulate[F uint16 | uint32](s scorer, phrases []postings[F], size []uint32, acc []float64, touched []uint32) []uint32 {
	for _, p := range phrases {
		if len(p.rows) == 0 {
			continue
		}
		n := p.n
		if n == 0 {
			n = int64(len(p.rows))
		}
		idf := s.idf(n)
		for j, d := range p.rows {
			f := float64(p.freq[j])
			D := float64(size[d])
			den := f + float64(s.k1*(1-s.b+s.b*D/s.avgdl))
			if acc[d] == 0 { // every contribution is > 0
				touched = append(touched, d)
			}
			acc[d] += float64(idf * ((f * (s.k1 + 1.0)) / den))
		}
	}
	return touched
}
