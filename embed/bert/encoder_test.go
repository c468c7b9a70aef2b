package bert_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// tiny is a small random model: odd sizes exercise the kernel's edges
// (hidden 40 is not a multiple of 16, head width 10 neither).
func tiny(t testing.TB) *onnxgen.Model {
	t.Helper()
	m, err := onnxgen.New(onnxgen.Config{Vocab: 97, Hidden: 40, Layers: 2, Heads: 4, Intermediate: 72, MaxPositions: 64, TypeVocab: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestForwardMatchesReference compares the float32 encoder, with each
// kernel set this CPU runs, with onnxgen's float64 reference on
// sequences of several lengths in one batch, token by token.
func TestForwardMatchesReference(t *testing.T) {
	for _, cfg := range []onnxgen.Config{
		{Vocab: 97, Hidden: 40, Layers: 2, Heads: 4, Intermediate: 72, MaxPositions: 64, TypeVocab: 2, Seed: 7},
		{Vocab: 50, Hidden: 64, Layers: 2, Heads: 2, Intermediate: 128, MaxPositions: 40, TypeVocab: 2, Seed: 3, LayerNormEps: 1e-5},
	} {
		m, err := onnxgen.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, kern := range bert.Kernels() {
			enc, err := bert.NewWithKernel(m.Weights(), kern)
			if err != nil {
				t.Fatal(err)
			}
			forwardMatches(t, m, cfg, enc)
		}
	}
}

// forwardMatches compares enc, an encoder of m, with m's float64
// reference.
func forwardMatches(t *testing.T, m *onnxgen.Model, cfg onnxgen.Config, enc *bert.Encoder) {
	t.Helper()
	kern := enc.Kernel()
	rng := rand.New(rand.NewPCG(1, 2))
	var seqs [][]int32
	for _, n := range []int{1, 2, 7, 13, 33, cfg.MaxPositions} {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(rng.IntN(cfg.Vocab))
		}
		seqs = append(seqs, s)
	}
	hidden, off, err := enc.Forward(seqs)
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.Hidden
	for i, s := range seqs {
		ids, types, mask := make([]int64, len(s)), make([]int64, len(s)), make([]int64, len(s))
		for j, id := range s {
			ids[j], mask[j] = int64(id), 1
		}
		want := m.Forward([][]int64{ids}, [][]int64{types}, [][]int64{mask})[0]
		worst := 0.0
		for tok := range s {
			for j := range h {
				worst = max(worst, math.Abs(float64(hidden[(off[i]+tok)*h+j])-want[tok][j]))
			}
		}
		// LayerNorm outputs are O(1); float32 sums over a few
		// hundred terms stay well within 1e-3.
		if worst > 1e-3 {
			t.Errorf("%s kernel, hidden %d, sequence of %d: max |difference| %.2g from the float64 reference", kern, h, len(s), worst)
		}
	}
}

// TestPadding checks that a sequence embeds the same alone as in a batch
// with longer ones: no padding reaches it.
func TestPadding(t *testing.T) {
	enc, err := bert.New(tiny(t).Weights())
	if err != nil {
		t.Fatal(err)
	}
	short := []int32{1, 5, 9, 2}
	alone, err := enc.Embed([][]int32{short}, bert.Mean)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := enc.Embed([][]int32{make([]int32, 50), short, {3, 4}}, bert.Mean)
	if err != nil {
		t.Fatal(err)
	}
	for j := range alone[0] {
		if d := math.Abs(float64(alone[0][j] - batch[1][j])); d > 1e-5 {
			t.Fatalf("component %d differs by %g alone and in a batch", j, d)
		}
	}
}

func TestBadInput(t *testing.T) {
	m := tiny(t)
	enc, err := bert.New(m.Weights())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := enc.Embed(nil, bert.Mean); err != nil || len(v) != 0 {
		t.Errorf("empty batch: %v, %v; want no vectors, no error", v, err)
	}
	for name, seqs := range map[string][][]int32{
		"empty sequence":  {{}},
		"past the window": {make([]int32, 65)},
		"id past vocab":   {{1, 97}},
		"negative id":     {{-1}},
	} {
		if _, err := enc.Embed(seqs, bert.Mean); !errors.Is(err, bert.ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", name, err)
		}
	}
	w := m.Weights()
	w.Layers[1].FF1.B = w.Layers[1].FF1.B[:10]
	if _, err := bert.New(w); !errors.Is(err, bert.ErrWeights) {
		t.Errorf("short bias: error %v, want ErrWeights", err)
	}
	w = m.Weights()
	w.Layers = w.Layers[:1]
	if _, err := bert.New(w); !errors.Is(err, bert.ErrWeights) {
		t.Errorf("missing layer: error %v, want ErrWeights", err)
	}
}

// TestConcurrent embeds from several goroutines at once (run with
// -race): every result equals the one computed alone.
func TestConcurrent(t *testing.T) {
	enc, err := bert.New(tiny(t).Weights())
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{1, 2, 3}, {4, 5, 6, 7, 8, 9, 10}}
	want, err := enc.Embed(seqs, bert.Mean)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := enc.Embed(seqs, bert.Mean)
			if err == nil && (got[0][0] != want[0][0] || got[1][3] != want[1][3]) {
				err = errors.New("a concurrent run gave other vectors")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestNewOwnedWeights: with Owned, New packs the layers' matrices in
// their own memory and lets go of them (a load then holds one copy of
// the weights): it allocates far less than a copying New, and computes
// what a copying New of the same weights computes.
func TestNewOwnedWeights(t *testing.T) {
	cfg := onnxgen.Config{Vocab: 50, Hidden: 64, Layers: 2, Heads: 2, Intermediate: 128, MaxPositions: 40, TypeVocab: 2, Seed: 3}
	model := func() *onnxgen.Model {
		m, err := onnxgen.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	newAlloc := func(w bert.Weights) (*bert.Encoder, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		enc, err := bert.New(w)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return enc, after.TotalAlloc - before.TotalAlloc
	}
	copied, copyAlloc := newAlloc(model().Weights())
	w := model().Weights()
	w.Owned = true
	owned, ownAlloc := newAlloc(w)
	for i, l := range w.Layers {
		if l.Q.W != nil || l.FF1.W != nil || l.FF2.W != nil || l.O.W != nil {
			t.Errorf("layer %d: New kept the caller's references to the matrices it packed", i)
		}
	}
	if ownAlloc*3 > copyAlloc*2 { // Q, K and V are still copied into one matrix
		t.Errorf("New of owned weights allocated %d bytes, of copied ones %d: not packed in place", ownAlloc, copyAlloc)
	}
	seqs := [][]int32{{1, 2, 3, 4, 5}, {7, 8}}
	a, _ := copied.Embed(seqs, bert.Mean)
	b, _ := owned.Embed(seqs, bert.Mean)
	for s := range a {
		for j := range a[s] {
			if a[s][j] != b[s][j] {
				t.Fatalf("sequence %d component %d: %v owned, %v copied", s, j, b[s][j], a[s][j])
			}
		}
	}
}
