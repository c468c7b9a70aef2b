package index

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// genWords is the vocabulary of the generated corpus: common and rare
// words, stems of one another, stop words, words FTS5 splits (U+0305 is a
// mark unicode61 treats as a separator: "ba̅se" is the tokens ba, se),
// diacritics it folds, and CJK runs (indexed as bigrams in the cjk column).
var genWords = []string{
	"sourdough", "starter", "flour", "water", "rye", "garden", "gardening", "gardens", "note", "notes",
	"the", "of", "and", "a", "run", "running", "runner", "bread", "salt", "time", "wait", "proof", "oven",
	"ba\u0305se", "co\u0332de", "café", "résumé", "naïve", "中文笔记", "学习方法", "日本語", "x86", "2024", "v2",
}

// genVault writes a generated vault of 160 notes whose titles, aliases,
// tags, headings and bodies draw from genWords with very different
// lengths and repetitions (deterministic), and returns its queries: words
// one to three at a time, quoted phrases taken from the bodies (so that
// they match; some repeat a word, so phrase instances overlap), split
// words, CJK, stop words only, and hostile strings.
func genVault(t *testing.T, ix func(root string) *Index) (string, *Index) {
	t.Helper()
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(12, 7))
	word := func() string { return genWords[rng.IntN(len(genWords))] }
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
			if rng.IntN(8) == 0 && i > 0 {
				w[i] = w[i-1] // repeats make overlapping phrase instances
			}
		}
		return strings.Join(w, " ")
	}
	for i := range 160 {
		var b strings.Builder
		if i%3 == 0 {
			fmt.Fprintf(&b, "---\naliases: [%s]\ntags: [%s]\n---\n", words(1+rng.IntN(2)), strings.ReplaceAll(word(), " ", ""))
		}
		for range 1 + rng.IntN(3) {
			fmt.Fprintf(&b, "# %s\n%s\n\n", words(1+rng.IntN(3)), words(3+rng.IntN(60*(1+i%4))))
		}
		name := fmt.Sprintf("%s %03d.md", strings.ReplaceAll(words(1+rng.IntN(2)), "/", ""), i)
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, ix(root)
}

// genQueries are genVault's queries (see there).
func genQueries() []string {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string { return genWords[rng.IntN(len(genWords))] }
	qs := []string{"ba\u0305se", "co\u0332de x86", `"ba̅se co̲de"`, "中文笔记 学习", `"中文笔记"`, "笔记", "the of", "a", "the",
		`"rye rye"`, `"rye rye rye"`, `"flour flour" water`, `"sourdough`, `""`, `"the"`, "NEAR(rye flour)", "rye* -flour",
		"title:rye", "{body}: salt", "^oven", "\x00\xff rye", strings.Repeat("salt ", 100), strings.Repeat(`"a b" `, 40)}
	for i := range 60 {
		switch i % 3 {
		case 0:
			qs = append(qs, word())
		case 1:
			qs = append(qs, word()+" "+word()+" "+word())
		default:
			qs = append(qs, `"`+word()+" "+word()+`" `+word())
		}
	}
	return qs
}

// genPhrases are phrases taken from the generated bodies: word pairs and
// triples that occur (the generator repeats words, and draws from a small
// vocabulary), so that the phrase path is exercised on matches.
var genPhrases = []string{`"rye rye"`, `"the the"`, `"salt salt"`, `"garden note"`, `"ba̅se ba̅se"`, `"café café"`}

// TestBothPathsAgree checks, table-driven over BM25 parameters (b = 0.3,
// none, full, another k1; two of them on the generated vault, whose many
// queries are slow under the race detector) and vaults, that a search
// gives the same hits and bit-identical scores whether the in-memory copy
// answers it, the copy is off, or the copy followed edits (an added,
// rewritten, deleted and renamed note; against the copy off, and the
// copy's contents against a fresh build's); and that the parameters
// change the scores (FTS5's 0.75 gives others).
func TestBothPathsAgree(t *testing.T) {
	params := []BM25Params{lowB, {K1: 1.2, B: 0}, {K1: 1.2, B: 1}, {K1: 2, B: 0.5}}
	vaults := []struct {
		name    string
		setup   func(t *testing.T, ix func(root string) *Index) (string, *Index)
		queries []string
	}{
		{"fixture", func(t *testing.T, ix func(string) *Index) (string, *Index) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS("../testdata/vault")); err != nil {
				t.Fatal(err)
			}
			return root, ix(root)
		}, []string{`"sourdough bread"`, `"start here" cooking`, `"plate tectonics"`, `"black holes" photosynthesis`}},
		{"mixed", mixedVault, mixedQueries},
		{"generated", genVault, append(genQueries(), genPhrases...)},
	}
	for _, v := range vaults {
		for i, p := range params {
			if v.name == "generated" && (i%2 == 1 || raceEnabled && i > 0) {
				// Under -race one set of parameters: this test is one
				// goroutine (background builds are off), the other
				// parameters run the same code; TestPostingsCopyConcurrent races.
				continue
			}
			t.Run(fmt.Sprintf("%s/k1=%v,b=%v", v.name, p.K1, p.B), func(t *testing.T) {
				root, ix := v.setup(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
				ix.bm25.mu.Lock()
				ix.bm25.next = time.Now().Add(time.Hour) // no background builds: this test builds
				ix.bm25.mu.Unlock()
				syncDisk(t, ix)
				queries := append(equivalenceQueries(t, root), v.queries...)
				if err := ix.BM25().BuildPostings(context.Background()); err != nil {
					t.Fatal(err)
				}
				current, fromCopy := runAll(t, ix, queries, p)
				ix.bm25.off = true
				off, offCopy := runAll(t, ix, queries, p)
				ix.bm25.off = false
				if fromCopy < len(queries)/2 || offCopy != 0 {
					t.Fatalf("%d of %d queries from memory with the copy on, %d with it off", fromCopy, len(queries), offCopy)
				}
				sameResults(t, "copy on / off", queries, current, off)
				phraseHits := 0
				for i, q := range queries {
					if strings.Count(q, `"`) >= 2 || strings.ContainsRune(q, '\u0305') {
						phraseHits += len(current[i])
					}
				}
				if phraseHits == 0 {
					t.Fatal("no phrase or split word matched: the SQLite path is untested")
				}
				few := min(len(queries), 30) // enough to see the parameters count
				reference, _ := runAll(t, ix, queries[:few], fts5Params)
				if differ := countDiffering(current[:few], reference); differ == 0 && p != fts5Params {
					t.Fatalf("k1=%v b=%v scored every query as FTS5's 0.75 does", p.K1, p.B)
				}

				editVault(t, root)
				syncDisk(t, ix)
				followed, followedCopy := runAll(t, ix, queries, p)
				if followedCopy < len(queries)/2 {
					t.Fatalf("%d of %d queries from memory after the edits: the copy did not follow them", followedCopy, len(queries))
				}
				ix.bm25.off = true
				stale, _ := runAll(t, ix, queries, p)
				ix.bm25.off = false
				sameResults(t, "followed copy / SQLite", queries, followed, stale)
				if got, want := dumpCopy(ix.bm25.idx.Load()), dumpCopy(freshCopy(t, ix)); !maps.Equal(got, want) {
					t.Fatalf("the followed copy differs from a fresh build:\n%v", diffDump(got, want))
				}
				if countDiffering(followed, current) == 0 {
					t.Fatal("the edit changed no result: the comparison proves nothing")
				}
			})
		}
	}
}

// editVault changes a vault in every way a sync meets: a note added, one
// rewritten, one deleted, one renamed (same content), the first two in
// name order.
func editVault(t *testing.T, root string) {
	t.Helper()
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			names = append(names, p)
		}
		return err
	})
	if err != nil || len(names) < 3 {
		t.Fatalf("%d notes: %v", len(names), err)
	}
	slices.Sort(names) // WalkDir's order, made explicit
	write(t, root, "Zz edit.md", "# Rye garden\nsourdough starter rye rye flour 中文笔记 ba\u0305se\n")
	write(t, filepath.Dir(names[0]), filepath.Base(names[0]), "# Rewritten\nrye flour water garden the of\n")
	if err := os.Remove(names[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(names[2], filepath.Join(root, "Zz renamed.md")); err != nil {
		t.Fatal(err)
	}
}

// runAll searches every query (all hits) and returns the hits per query
// and how many queries the in-memory copy answered.
func runAll(t *testing.T, ix *Index, queries []string, p BM25Params) ([][]Hit, int) {
	t.Helper()
	out := make([][]Hit, len(queries))
	fromCopy := 0
	for i, q := range queries {
		before := ix.bm25.used.Load()
		if err := ix.BM25().Search(context.Background(), q, 100000, p, func(h Hit) bool { out[i] = append(out[i], h); return true }); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if ix.bm25.used.Load() > before {
			fromCopy++
		}
	}
	return out, fromCopy
}

// sameResults fails on the first query whose hits differ, and when no
// query matched anything.
func sameResults(t *testing.T, what string, queries []string, a, b [][]Hit) {
	t.Helper()
	hits := 0
	for i, q := range queries {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("%s: %q:\n%v\n%v", what, q, a[i], b[i])
		}
		hits += len(a[i])
	}
	if hits == 0 {
		t.Fatalf("%s: no query matched anything", what)
	}
}

// countDiffering is how many queries' hits differ between a and b.
func countDiffering(a, b [][]Hit) int {
	n := 0
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			n++
		}
	}
	return n
}

// TestSearchRejectsBadParams: parameters that make no ranking are a clear
// error, not a ranking.
func TestSearchRejectsBadParams(t *testing.T) {
	_, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	syncDisk(t, ix)
	for _, p := range []BM25Params{{}, {K1: 0, B: 0.3}, {K1: -1, B: 0.3}, {K1: 1.2, B: -0.1}, {K1: 1.2, B: 1.5}} {
		err := ix.BM25().Search(context.Background(), "rye", 10, p, func(Hit) bool { t.Fatal("a hit with bad parameters"); return false })
		if err == nil || !strings.Contains(err.Error(), "BM25 parameters") {
			t.Errorf("k1=%v b=%v: err %v, want a BM25 parameters error", p.K1, p.B, err)
		}
	}
}

// TestPhraseTokens checks the query tokenizer's phrases: a word is its
// stem, a quoted phrase and a word FTS5 splits are their tokens in order,
// and single says whether the in-memory copy can score the query.
func TestPhraseTokens(t *testing.T) {
	tok, err := newQueryTokenizer(context.Background(), Tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	defer tok.close()
	for _, tc := range []struct {
		query  string
		want   [][]string
		single bool
	}{
		{"running gardens", [][]string{{"run"}, {"garden"}}, true},
		{`"starter flour" rye`, [][]string{{"starter", "flour"}, {"rye"}}, false},
		{"ba\u0305se", [][]string{{"ba", "se"}}, false},
		{"中文笔记", [][]string{{"中文"}, {"文笔"}, {"笔记"}}, true},
		{"e\u0301te\u0301 CAFÉ", [][]string{{"et"}, {"cafe"}}, true}, // porter stems ete
	} {
		got, single, err := tok.phrases(matchTerms(tc.query))
		if err != nil || single != tc.single || !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%q: %q single %v err %v; want %q single %v", tc.query, got, single, err, tc.want, tc.single)
		}
	}
}

// TestPostingsAgree checks that the ways to get a phrase's rows and
// weighted counts agree exactly: solved from FTS5's bm25() (solvedRows,
// which must succeed), and counted from fts5vocab as readScores does
// (rows of one token: tokenRows; instances at consecutive offsets:
// phraseInstances), for every term of the mixed and generated queries.
func TestPostingsAgree(t *testing.T) {
	for _, v := range []struct {
		name    string
		setup   func(t *testing.T, ix func(root string) *Index) (string, *Index)
		queries []string
	}{{"mixed", mixedVault, mixedQueries}, {"generated", genVault, append(genQueries(), genPhrases...)}} {
		t.Run(v.name, func(t *testing.T) {
			_, ix := v.setup(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
			syncDisk(t, ix)
			tok, err := ix.bm25.tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			checked, multi := 0, 0
			err = ix.reader(context.Background(), func(c *sqlite3.Conn) error {
				if err := ix.bm25.stmts.setup(c, vocabSetup); err != nil {
					return err
				}
				avg, err := ix.bm25.stmts.get(c, averagesSQL)
				if err != nil {
					return err
				}
				nRow, nToken, err := stepAverages(avg)
				if err != nil {
					return err
				}
				for _, q := range v.queries {
					terms := matchTerms(q)
					phrases, _, err := tok.phrases(terms)
					if err != nil {
						return err
					}
					for i, toks := range phrases {
						if len(toks) == 0 {
							continue
						}
						solved, err := solvedRows(ix, c, terms[i], nRow, nToken)
						if err != nil {
							return fmt.Errorf("%s: %v", terms[i], err)
						}
						counted, err := ix.bm25.vocabRows(c, toks) // tokenRows for one token
						if err != nil {
							return err
						}
						if len(toks) == 1 {
							inst, err := ix.bm25.stmts.get(c, instancesSQL)
							if err != nil {
								return err
							}
							rows, err := phraseInstances(inst, toks)
							if err != nil || !samePostings(rows, counted) {
								return fmt.Errorf("%s: tokenRows %v, instances %v (%v)", terms[i], counted, rows, err)
							}
						} else if len(counted.ids) > 0 {
							multi++
						}
						if !samePostings(solved, counted) {
							return fmt.Errorf("%s: solved %v, counted %v", terms[i], solved, counted)
						}
						checked += len(counted.ids)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if checked == 0 || multi == 0 {
				t.Fatalf("%d rows checked, %d multi-token phrases matched: proves too little", checked, multi)
			}
		})
	}
}

// solvedRows is one phrase's rows and counts recovered from FTS5's own
// bm25() scores, the reference the fts5vocab reads are checked against:
// bm25() scores each row at FTS5's k1 and b, and its other inputs (the
// phrase's idf, the row's size, the mean size) are known, so
// s = idf·f·(k1+1)/(f + K) gives f = s·K/(idf·(k1+1) − s). f is a sum of
// integer column weights, so every solution must be within 1e-6 of one.
func solvedRows(ix *Index, c *sqlite3.Conn, term string, nRow, nToken int64) (phraseRows, error) {
	w := make([]string, len(columnWeights))
	for i, col := range columnWeights {
		w[i] = fmt.Sprintf("%d.0", col.weight)
	}
	st, _, err := c.Prepare(`SELECT rowid, -bm25(fts, ` + strings.Join(w, ", ") + `) FROM fts WHERE fts MATCH ? ORDER BY rowid`)
	if err != nil {
		return phraseRows{}, err
	}
	defer st.Close()
	if err := st.BindText(1, term); err != nil {
		return phraseRows{}, err
	}
	var ids []int64
	var score []float64
	for st.Step() {
		ids = append(ids, st.ColumnInt64(0))
		score = append(score, st.ColumnFloat(1))
	}
	if err := st.Err(); err != nil || len(ids) == 0 {
		return phraseRows{}, err
	}
	size, err := ix.bm25.readSizes(c, ids)
	if err != nil {
		return phraseRows{}, err
	}
	s := newScorer(fts5Params, nRow, nToken)
	idf := s.idf(int64(len(ids)))
	freq := make([]uint32, len(ids))
	for i, sc := range score {
		k := s.k1 * (1 - s.b + s.b*float64(size[i])/s.avgdl)
		f := sc * k / (idf*(s.k1+1) - sc)
		n := math.Round(f)
		if !(math.Abs(f-n) < 1e-6) || n < 1 {
			return phraseRows{}, fmt.Errorf("count %v of row %d not solved from bm25() %v", f, ids[i], sc)
		}
		freq[i] = uint32(n)
	}
	return phraseRows{ids: ids, freq: freq}, nil
}

func samePostings(a, b phraseRows) bool {
	return slices.Equal(a.ids, b.ids) && slices.Equal(a.freq, b.freq)
}

// TestVocabReadsSeekTheTerm: the fts5vocab reads (how a search the
// in-memory copy cannot answer counts) must seek their term, not scan every instance of the
// index: fts5vocab's plan sets bit 0x100 of its index number for a
// term = constraint. The size read must seek docsize by row id.
func TestVocabReadsSeekTheTerm(t *testing.T) {
	_, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	syncDisk(t, ix)
	err := ix.reader(context.Background(), func(c *sqlite3.Conn) error {
		if err := ix.bm25.stmts.setup(c, vocabSetup); err != nil {
			return err
		}
		for _, tc := range []struct{ sql, want string }{
			{instancesSQL, "ftsvocab VIRTUAL TABLE INDEX "}, {weightedSQL(), "ftsvocab VIRTUAL TABLE INDEX "},
			{sizesSQL, "SEARCH d USING INTEGER PRIMARY KEY"},
		} {
			st, _, err := c.Prepare("EXPLAIN QUERY PLAN " + tc.sql)
			if err != nil {
				return err
			}
			var plan []string
			for st.Step() {
				plan = append(plan, st.ColumnText(3))
			}
			st.Close()
			found := false
			for _, line := range plan {
				i := strings.Index(line, tc.want)
				if i < 0 {
					continue
				}
				found = true
				if strings.HasSuffix(tc.want, "INDEX ") {
					var n int
					if _, err := fmt.Sscanf(line[i+len(tc.want):], "%d", &n); err != nil || n&0x100 == 0 {
						return fmt.Errorf("%s: plan %q does not use the term constraint", tc.sql, line)
					}
				}
			}
			if !found {
				return fmt.Errorf("%s: plan %q, want %q", tc.sql, plan, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
