package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestScoreHandComputed checks the formulas on a case worked out by hand.
//
// ranked d1 d2 d3 d4; grades d1=0 d2=2 d4=1 d9=3 (d9 never retrieved).
// DCG@10  = 2/log2(3) + 1/log2(5)                 = 1.261859507 + 0.430676558
// IDCG@10 = 3/log2(2) + 2/log2(3) + 1/log2(4) + 0 = 3 + 1.261859507 + 0.5
// nDCG@10 = 1.692536065 / 4.761859507             = 0.355436
// relevant = {d2, d4, d9}: Recall@10 = 2/3, MRR@10 = 1/2,
// AP = (1/2 + 2/4) / 3 = 1/3.
func TestScoreHandComputed(t *testing.T) {
	rel := map[string]int{"d1": 0, "d2": 2, "d4": 1, "d9": 3}
	m := Score([]string{"d1", "d2", "d3", "d4"}, rel)
	want := Metrics{
		NDCG10:    (2/math.Log2(3) + 1/math.Log2(5)) / (3 + 2/math.Log2(3) + 0.5),
		Recall10:  2.0 / 3,
		Recall100: 2.0 / 3,
		MRR10:     0.5,
		MAP:       1.0 / 3,
		Queries:   1,
	}
	if !near(m.NDCG10, want.NDCG10) || math.Abs(m.NDCG10-0.355436) > 1e-6 ||
		!near(m.Recall10, want.Recall10) || !near(m.Recall100, want.Recall100) ||
		!near(m.MRR10, want.MRR10) || !near(m.MAP, want.MAP) || m.Queries != 1 {
		t.Fatalf("Score = %+v, want %+v", m, want)
	}
}

func TestScoreEdges(t *testing.T) {
	tests := []struct {
		name   string
		ranked []string
		rel    map[string]int
		want   Metrics
	}{
		{"perfect", []string{"a", "b"}, map[string]int{"a": 1, "b": 1}, Metrics{NDCG10: 1, Recall10: 1, Recall100: 1, MRR10: 1, MAP: 1, Queries: 1}},
		{"empty ranking", nil, map[string]int{"a": 1}, Metrics{Queries: 1}},
		{"no positives", []string{"a"}, map[string]int{"a": 0}, Metrics{Queries: 1}},
		{"relevant at rank 11 counts for R@100 and MAP only", append(strings.Split("x1 x2 x3 x4 x5 x6 x7 x8 x9 x10", " "), "a"),
			map[string]int{"a": 1}, Metrics{Recall100: 1, MAP: 1.0 / 11, Queries: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Score(tt.ranked, tt.rel)
			if !near(m.NDCG10, tt.want.NDCG10) || !near(m.Recall10, tt.want.Recall10) || !near(m.Recall100, tt.want.Recall100) ||
				!near(m.MRR10, tt.want.MRR10) || !near(m.MAP, tt.want.MAP) {
				t.Fatalf("Score = %+v, want %+v", m, tt.want)
			}
		})
	}
}

func TestMeanAndLatency(t *testing.T) {
	m := Mean([]Metrics{{NDCG10: 1, MAP: 0.5, Queries: 1}, {NDCG10: 0, MAP: 0.25, Queries: 1}})
	if !near(m.NDCG10, 0.5) || !near(m.MAP, 0.375) || m.Queries != 2 {
		t.Fatalf("Mean = %+v", m)
	}
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := Summarize(ds)
	if !near(l.Mean, 50.5) || !near(l.P50, 50) || !near(l.P95, 95) {
		t.Fatalf("Summarize = %+v", l)
	}
	if (Summarize(nil) != Latency{}) {
		t.Fatal("empty latency must be zero")
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadCorpusDataset(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"corpus.jsonl": `{"_id": "d1", "title": "Apple pie: a \"classic\"", "text": "apple pie with cinnamon"}` + "\n" +
			`{"_id": "a/b", "title": "", "text": "banana bread"}` + "\n" +
			`{"_id": "d3", "text": "cherry tart"}` + "\n",
		"queries.jsonl":  `{"_id": "q1", "text": "apple"}` + "\n" + `{"_id": "q2", "text": "banana"}` + "\n" + `{"_id": "q3", "text": "unjudged"}` + "\n",
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\ta/b\t1\n",
	})
	ctx := context.Background()
	ds, err := Load(ctx, dir, "test", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Queries) != 2 || ds.Qrels["q1"]["d1"] != 2 {
		t.Fatalf("queries %+v qrels %+v", ds.Queries, ds.Qrels)
	}
	snap, err := vault.Load(ctx, ds.Vault, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Notes) != 3 {
		t.Fatalf("%d notes in the corpus vault", len(snap.Notes))
	}
	n := snap.Note("d1.md")
	if n == nil || n.Title != `Apple pie: a "classic"` || ds.DocID("d1.md") != "d1" || ds.DocID("a_b.md") != "a/b" {
		t.Fatalf("note %+v, ids %q %q", n, ds.DocID("d1.md"), ds.DocID("a_b.md"))
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, eng, ds, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !near(rep.NDCG10, 1) || rep.Queries != 2 || len(rep.Rankings) != 2 || rep.Rankings[1].Docs[0] != "a/b" {
		t.Fatalf("report %+v", rep)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ds.Vault); !os.IsNotExist(err) {
		t.Fatalf("temporary vault still there: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	good := map[string]string{
		"corpus.jsonl":   `{"_id": "d1", "text": "x"}` + "\n",
		"queries.jsonl":  `{"_id": "q1", "text": "x"}` + "\n",
		"qrels/test.tsv": "q1\td1\t1\n",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		files map[string]string
		split string
		msg   string
	}{
		{"missing split", good, "train", "qrels"},
		{"bad grade", with("qrels/test.tsv", "q1\td1\t1\nq1\td2\thigh\n"), "test", "not an integer"},
		{"no judged queries", with("queries.jsonl", `{"_id": "other", "text": "x"}`+"\n"), "test", "none of the queries"},
		{"broken corpus", with("corpus.jsonl", "{not json\n"), "test", "document 1"},
		{"no corpus", with("corpus.jsonl", ""), "test", "corpus.jsonl or a vault/ folder"},
		{"duplicate file names", with("corpus.jsonl", `{"_id": "a/b", "text": "x"}`+"\n"+`{"_id": "a_b", "text": "y"}`+"\n"), "test", "same file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(context.Background(), writeFiles(t, tt.files), tt.split, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.msg)
			}
		})
	}
}

func TestWriteRun(t *testing.T) {
	var b bytes.Buffer
	err := WriteRun(&b, []Ranking{{QueryID: "q1", Docs: []string{"a", "b", "c"}, Scores: []float64{0.5, 0.5, 0.25}}}, "tag")
	if err != nil {
		t.Fatal(err)
	}
	want := "q1 Q0 a 1 0.500000000 tag\nq1 Q0 b 2 0.499999999 tag\nq1 Q0 c 3 0.250000000 tag\n"
	if b.String() != want {
		t.Fatalf("run =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestMatrix(t *testing.T) {
	m := Matrix()
	if len(m) != 14 {
		t.Fatalf("%d configurations, want 7 signal sets × 2", len(m))
	}
	if m[0].Name() != "tfidf" || m[1].Name() != "tfidf +graph" || m[len(m)-1].Name() != "tfidf+bm25+embeddings +graph" {
		t.Fatalf("names %q %q %q", m[0].Name(), m[1].Name(), m[len(m)-1].Name())
	}
}

// quality loads testdata/quality (a few queries labelled by reading the
// fixture notes) and the engine over the fixture vault, TF-IDF only.
func quality(t *testing.T) (*Dataset, *search.Engine) {
	t.Helper()
	ctx := context.Background()
	ds, err := Load(ctx, "../testdata/quality", "test", "")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(ctx, ds.Vault, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds, eng
}

// fullEngine builds what `serve --persistent-index` serves after
// build-embeddings with the default model: TF-IDF, BM25 from a temporary
// index, and the embeddings of the built-in model.
func fullEngine(t *testing.T, dir string) (*Dataset, *search.Engine) {
	t.Helper()
	ctx := context.Background()
	ds, err := Load(ctx, dir, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	root, err := vault.RealRoot(ds.Vault)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.Indexed(ctx, t, snap, false)
	want := []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings}
	for _, s := range want {
		if !slices.Contains(eng.Signals(), s) {
			t.Fatalf("signals %q, want %q", eng.Signals(), want)
		}
	}
	return ds, eng
}

// qualityFloor is testdata/quality/floor.json: the recorded nDCG@10 per
// fixture set and configuration.
type qualityFloor struct {
	Tolerance float64                       `json:"tolerance"`
	Sets      map[string]map[string]float64 `json:"sets"`
}

// gateConfigs are the configurations the gate checks: each lexical signal
// alone and the default fusion, all with the graph boost as served.
var gateConfigs = map[string]Config{
	"tfidf":   {Signals: []string{rankers.SignalTFIDF}, GraphBoost: true},
	"bm25":    {Signals: []string{rankers.SignalBM25}, GraphBoost: true},
	"default": {GraphBoost: true},
}

// TestQualityGate fails the build when TF-IDF, BM25 or the default fusion
// rank the labelled fixture queries worse than recorded, on the golden
// tests' vault (testdata/quality) and on a vault no other test reads
// (testdata/quality-workshop).
func TestQualityGate(t *testing.T) {
	raw, err := os.ReadFile("../testdata/quality/floor.json")
	if err != nil {
		t.Fatal(err)
	}
	var floor qualityFloor
	if err := json.Unmarshal(raw, &floor); err != nil {
		t.Fatal(err)
	}
	if len(floor.Sets) != 2 {
		t.Fatalf("floor.json records %d sets, want 2", len(floor.Sets))
	}
	for set, rec := range floor.Sets {
		t.Run(set, func(t *testing.T) {
			ds, eng := fullEngine(t, filepath.Join("..", "testdata", set))
			if len(ds.Queries) < 20 {
				t.Fatalf("%d queries, want at least 20", len(ds.Queries))
			}
			if len(rec) != len(gateConfigs) {
				t.Fatalf("floor.json records %v for %s, want %d configurations", rec, set, len(gateConfigs))
			}
			for name, want := range rec {
				cfg, ok := gateConfigs[name]
				if !ok {
					t.Fatalf("floor.json names an unknown configuration %q", name)
				}
				rep, err := Run(context.Background(), eng, ds, cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: nDCG@10 %.4f (recorded %.4f), MRR@10 %.4f, signals %q", name, rep.NDCG10, want, rep.MRR10, rep.SignalsUsed)
				if rep.Queries != len(ds.Queries) {
					t.Fatalf("%s: %d of %d queries evaluated", name, rep.Queries, len(ds.Queries))
				}
				if rep.NDCG10 < want-floor.Tolerance {
					for i, q := range ds.Queries {
						if m := Score(rep.Rankings[i].Docs, ds.Qrels[q.ID]); m.NDCG10 < 1 {
							t.Logf("%s %q: nDCG@10 %.3f, top %q", q.ID, q.Text, m.NDCG10, rep.Rankings[i].Docs[:min(3, len(rep.Rankings[i].Docs))])
						}
					}
					t.Errorf("quality regression (%s): nDCG@10 %.4f < recorded %.4f", name, rep.NDCG10, want)
				}
			}
		})
	}
}

func TestUnavailableSignalsAreReported(t *testing.T) {
	ds, eng := quality(t)
	rep, err := Run(context.Background(), eng, ds, Config{Signals: []string{"tfidf", "bm25"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unavailable) != 1 || rep.Unavailable[0] != "bm25" || rep.Queries != 0 {
		t.Fatalf("report %+v, want bm25 unavailable and nothing run", rep)
	}
	done := 0
	rep, err = Run(context.Background(), eng, ds, Config{Signals: []string{"tfidf"}}, func(d, total int) { done = d })
	if err != nil || done != len(ds.Queries) || len(rep.SignalsUsed) != 1 {
		t.Fatalf("err %v, progress %d/%d, signals %q", err, done, len(ds.Queries), rep.SignalsUsed)
	}
}
