package main

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestTuningEncoding(t *testing.T) {
	want := search.Tuning{Weights: map[string]float64{"bm25": 1, "tfidf": 2, "feedback": 0.5}, BM25B: 0.3, Kind: "link", Queries: 40, Gain: 0.02, T: 2.5, Why: "chosen"}
	raw, err := encodeTuning("/v", search.RuleWeightsAndB, want)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decodeTuning(raw, "/v", search.RuleWeightsAndB)
	if !ok || got.Why != want.Why || got.Weights["tfidf"] != 2 || got.Queries != 40 || got.BM25B != 0.3 {
		t.Fatalf("read %+v, %v; want %+v", got, ok, want)
	}
	rule1, _ := encodeTuning("/other", search.RuleWeights, search.Tuning{Why: "rule 1"})
	for name, text := range map[string]string{
		"none":            "",
		"another vault":   raw,
		"another version": `{"version": 0, "root": "/other", "tuning": {"why": "old"}}`,
		"made by rule 1":  rule1,
		"damaged":         `{"version": 2, "root": "/other", "tun`,
		"no reason":       `{"version": 2, "root": "/other", "tuning": {}}`,
		"b out of range":  `{"version": 2, "root": "/other", "tuning": {"why": "x", "bm25_b": 7}}`,
		"negative b":      `{"version": 2, "root": "/other", "tuning": {"why": "x", "bm25_b": -0.3}}`,
	} {
		if _, ok := decodeTuning(text, "/other", search.RuleWeightsAndB); ok {
			t.Errorf("%s: read as a valid choice", name)
		}
	}
	if got, ok := decodeTuning(rule1, "/other", search.RuleWeights); !ok || got.Why != "rule 1" {
		t.Errorf("rule 1's choice under rule 1: %+v, %v", got, ok)
	}
}

// fixtureRoot is the real path of the fixture vault (as load sees it).
func fixtureRoot(t *testing.T) string {
	t.Helper()
	root, err := vault.RealRoot(fixtureVault)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// keptIn reads the choice kept in the index file.
func keptIn(t *testing.T, file string) string {
	t.Helper()
	ix, err := index.Open(context.Background(), file, index.NewSettings(fixtureRoot(t), false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	raw, err := ix.SelfTune(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// plant keeps text as the choice in the index file.
func plant(t *testing.T, file, text string) {
	t.Helper()
	ix, err := index.Open(context.Background(), file, index.NewSettings(fixtureRoot(t), false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.KeepSelfTune(text); err != nil {
		t.Fatal(err)
	}
}

// TestEvalSelfTune: under --self-tune, eval reports the self-tuned
// weights, keeps the choice in the index, reads it back on the next run
// instead of computing it again; without it, or with --no-self-tune,
// the default weights serve and a kept choice is not read.
func TestEvalSelfTune(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	line := func(args ...string) string {
		t.Helper()
		code, _, stderr := runCLI(t, append([]string{"eval", "../../testdata/quality-workshop", "--index-file", ix, "--no-embeddings", "--self-tune"}, args...)...)
		if code != 0 {
			t.Fatalf("code %d, stderr %s", code, stderr)
		}
		for _, l := range strings.Split(stderr, "\n") {
			if w, ok := strings.CutPrefix(l, "self-tuned weights: "); ok {
				return w
			}
		}
		t.Fatalf("no self-tuned line in %s", stderr)
		return ""
	}
	first := line()
	if first == "" || strings.HasPrefix(first, "off") {
		t.Fatalf("first run: %q", first)
	}
	root, err := vault.RealRoot("../../testdata/quality-workshop/vault")
	if err != nil {
		t.Fatal(err)
	}
	open := func() *index.Index {
		t.Helper()
		x, err := index.Open(context.Background(), ix, index.NewSettings(root, false, chunk.DefaultOptions), false)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := open()
	raw, err := x.SelfTune(context.Background())
	kept, ok := decodeTuning(raw, root, defaultSelfTuneRule)
	if err != nil || !ok || kept.Why != first {
		t.Fatalf("kept %+v (%v, %v), reported %q", kept, ok, err, first)
	}
	planted, _ := encodeTuning(root, defaultSelfTuneRule, search.Tuning{Weights: map[string]float64{"bm25": 0, "tfidf": 3, "feedback": 0.5}, Why: "planted choice"})
	if err := x.KeepSelfTune(planted); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if got := line(); got != "planted choice" {
		t.Errorf("second run computed again (%q) instead of reading the kept choice", got)
	}
	if got := line("--no-self-tune"); got != selfTuneOffWhy {
		t.Errorf("--no-self-tune: %q", got)
	}
	if got := line("--self-tune=false"); got != selfTuneOffWhy {
		t.Errorf("without --self-tune: %q, want the default weights", got)
	}
	x = open()
	damaged := `{"version": 1, "root": "` + root + `", "tun`
	if err := x.KeepSelfTune(damaged); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if got := line(); got != first {
		t.Errorf("after a damaged choice: %q, want it made again (%q)", got, first)
	}
}

// TestIndexRetunes: under --self-tune the index command makes the choice
// again, whatever was kept, and keeps it in the index; --rebuild drops a
// kept choice. Without --self-tune it makes none and keeps none.
func TestIndexRetunes(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	root := fixtureRoot(t)
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"index", "--vault", fixtureVault, "--index-file", ix}, args...)...)
		if code != 0 {
			t.Fatalf("code %d, stderr %s", code, stderr)
		}
		return stdout
	}
	if out := run(); !strings.Contains(out, "weights: "+selfTuneOffWhy+"\n") {
		t.Errorf("index without --self-tune printed\n%s\nwant the default weights", out)
	}
	if raw := keptIn(t, ix); raw != "" {
		t.Errorf("index without --self-tune kept a choice: %q", raw)
	}
	run("--self-tune")
	planted, _ := encodeTuning(root, defaultSelfTuneRule, search.Tuning{Why: "planted choice"})
	plant(t, ix, planted)
	run("--self-tune")
	got, ok := decodeTuning(keptIn(t, ix), root, defaultSelfTuneRule)
	if !ok || got.Why == "planted choice" || !strings.Contains(got.Why, "link queries") {
		t.Errorf("after index: %+v, %v", got, ok)
	}
	plant(t, ix, planted)
	run("--self-tune", "--rebuild")
	if got, ok := decodeTuning(keptIn(t, ix), root, defaultSelfTuneRule); !ok || got.Why == "planted choice" {
		t.Errorf("after index --rebuild: %+v, %v", got, ok)
	}
	if _, err := os.Stat(ix + ".selftune.json"); err == nil {
		t.Error("a side file was written")
	}
}

// TestServeTunesInBackground: with no kept choice, a serve-like load is
// ready with the default weights and says the choice is pending; the
// background choice then swaps in an engine with the weights a
// synchronous choice (index, eval) makes, and keeps it in the index.
func TestServeTunesInBackground(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	sync := &vaultFlags{vault: fixtureVault, indexFile: filepath.Join(t.TempDir(), "sync.db"), maxFileSize: 1 << 20, tune: tuneFlags{selfTune: true}}
	ls, err := sync.load(ctx, logger)
	if err != nil {
		t.Fatal(err)
	}
	want := ls.eng.Tuning()
	ls.Close()
	if want.Why == "" || want.Why == tunePendingWhy {
		t.Fatalf("synchronous choice: %+v", want)
	}

	file := filepath.Join(t.TempDir(), "serve.db")
	vf := &vaultFlags{vault: fixtureVault, indexFile: file, maxFileSize: 1 << 20, tuneLater: true, tune: tuneFlags{selfTune: true}}
	l, err := vf.load(ctx, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.tunePending || l.eng.Tuning().Why != tunePendingWhy || l.tuneWhy != tunePendingWhy || l.eng.Tuning().Weights != nil {
		t.Fatalf("ready with %+v (%q, pending %v); want the defaults, pending", l.eng.Tuning(), l.tuneWhy, l.tunePending)
	}
	if raw, err := l.ix.SelfTune(ctx); err != nil || raw != "" {
		t.Fatalf("a choice was kept before ready: %q, %v", raw, err)
	}
	served := make(chan *search.Engine, 4)
	l.onSwap = func(e *search.Engine) { served <- e }
	applied := make(chan search.Tuning, 1)
	l.tuneApplied = func(t search.Tuning) { applied <- t }
	l.tuneInBackground(ctx)
	var got search.Tuning
	select {
	case got = <-applied:
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("the background choice was never applied")
	}
	e := <-served
	if got.Why != want.Why || e.Tuning().Why != want.Why || !maps.Equal(e.Weights(), ls.eng.Weights()) {
		t.Errorf("applied %q, server holds %q with %v; want %q with %v", got.Why, e.Tuning().Why, e.Weights(), want.Why, ls.eng.Weights())
	}
	if kept, ok := decodeTuning(keptIn(t, file), l.root, defaultSelfTuneRule); !ok || kept.Why != want.Why {
		t.Errorf("kept %+v, %v", kept, ok)
	}
}

// TestServeSwapsTunedWeights: while the background choice runs (held by
// the test), the server searches with the default weights; once it is
// made, the server's engine searches with the chosen ones. Close stops a
// choice still running and keeps nothing.
func TestServeSwapsTunedWeights(t *testing.T) {
	ctx := context.Background()
	chosen := search.Tuning{Weights: map[string]float64{"bm25": 0, "tfidf": 3, "feedback": 0.25}, BM25B: 0.3, Why: "chosen by the test"}
	load := func(choose func(*search.Engine, context.Context) (search.Tuning, error)) (*loaded, chan *search.Engine, chan search.Tuning) {
		t.Helper()
		vf := &vaultFlags{vault: fixtureVault, indexFile: filepath.Join(t.TempDir(), "serve.db"), maxFileSize: 1 << 20, tuneLater: true, tune: tuneFlags{selfTune: true}}
		l, err := vf.load(ctx, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		served, applied := make(chan *search.Engine, 4), make(chan search.Tuning, 1)
		l.onSwap = func(e *search.Engine) { served <- e }
		l.tuneApplied = func(t search.Tuning) { applied <- t }
		l.tuneChoose = choose
		return l, served, applied
	}
	release, started := make(chan struct{}), make(chan struct{})
	l, served, applied := load(func(e *search.Engine, ctx context.Context) (search.Tuning, error) {
		close(started)
		<-release
		return chosen, nil
	})
	defer l.Close()
	l.tuneInBackground(ctx)
	<-started
	l.mu.Lock()
	before := l.eng
	l.mu.Unlock()
	if w := before.Weights(); w["bm25"] != rankers.WeightBM25 || w["tfidf"] != rankers.WeightTFIDF || before.Tuning().Why != tunePendingWhy ||
		before.BM25Params().B != rankers.BM25B {
		t.Fatalf("while choosing: %v (%q), want the default BM25 and TF-IDF weights, pending", w, before.Tuning().Why)
	}
	if _, err := before.Search(ctx, search.Request{Query: "project", Limit: 5}); err != nil {
		t.Fatalf("search while choosing: %v", err)
	}
	close(release)
	if got := <-applied; got.Why != chosen.Why {
		t.Fatalf("applied %q", got.Why)
	}
	after := <-served
	if !hasWeights(after.Weights(), chosen.Weights) || after.Tuning().Why != chosen.Why || l.tuneWhy != chosen.Why || after.BM25Params().B != 0.3 {
		t.Errorf("after: %v (%q, %q), want %v", after.Weights(), after.Tuning().Why, l.tuneWhy, chosen.Weights)
	}
	if kept, ok := decodeTuning(keptIn(t, l.ix.Path()), l.root, defaultSelfTuneRule); !ok || kept.Why != chosen.Why || kept.BM25B != 0.3 {
		t.Errorf("kept %+v, %v", kept, ok)
	}

	stopped := make(chan struct{})
	l2, served2, _ := load(func(e *search.Engine, ctx context.Context) (search.Tuning, error) {
		close(stopped)
		<-ctx.Done()
		return search.Tuning{}, ctx.Err()
	})
	l2.tuneInBackground(ctx)
	<-stopped
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	if len(served2) != 0 {
		t.Error("a cancelled choice swapped an engine in")
	}
	if raw := keptIn(t, l2.ix.Path()); raw != "" {
		t.Errorf("a cancelled choice was kept: %q", raw)
	}
}

// hasWeights reports whether all holds every weight of some.
func hasWeights(all, some map[string]float64) bool {
	for k, v := range some {
		if w, ok := all[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestServeDefaultWeights: without --self-tune a serve-like load is ready
// with the default weights, chooses nothing in the background and
// ignores a choice kept in the index.
func TestServeDefaultWeights(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "serve.db")
	root := fixtureRoot(t)
	for _, planted := range []bool{false, true} {
		if planted {
			raw, _ := encodeTuning(root, defaultSelfTuneRule, search.Tuning{Weights: map[string]float64{"bm25": 0, "tfidf": 3, "feedback": 0.5}, Why: "planted choice"})
			plant(t, file, raw)
		}
		vf := &vaultFlags{vault: fixtureVault, indexFile: file, maxFileSize: 1 << 20, tuneLater: true}
		l, err := vf.load(ctx, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		w := l.eng.Weights()
		if l.tunePending || l.tuneWhy != selfTuneOffWhy || w["bm25"] != rankers.WeightBM25 || w["tfidf"] != rankers.WeightTFIDF {
			t.Errorf("planted %v: weights %v (%q, pending %v); want the defaults, nothing pending", planted, w, l.tuneWhy, l.tunePending)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
