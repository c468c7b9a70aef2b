package static

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// tiny is a hand-made table of dimension 3: row 0 = x, row 1 = 2y with
// weight 0.5, row 2 = 3z with weight 2.
func tiny() *Table {
	return &Table{
		Dim: 3, Rows: 3,
		Vectors: []int8{1, 0, 0, 0, 2, 0, 0, 0, 3},
		Scales:  []float32{1, 1, 1},
		Weights: []float32{1, 0.5, 2},
	}
}

// words tokenizes on spaces: a, b, c are rows 0-2, "far" an out-of-range
// row, "neg" a negative one; other words are unknown.
func words(text string, emit func(int)) {
	rows := map[string]int{"a": 0, "b": 1, "c": 2, "far": 3, "neg": -1}
	for _, w := range strings.Fields(text) {
		if r, ok := rows[w]; ok {
			emit(r)
		}
	}
}

func unitVec(xs ...float64) []float32 {
	var n float64
	for _, x := range xs {
		n += x * x
	}
	out := make([]float32, len(xs))
	for i, x := range xs {
		if n > 0 {
			out[i] = float32(x / math.Sqrt(n))
		}
	}
	return out
}

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func mustNew(t *testing.T, tab *Table, opts Options) *Model {
	t.Helper()
	m, err := New("test:tiny@1/3", tab, words, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEmbedMath(t *testing.T) {
	noWeights := tiny()
	noWeights.Weights = nil
	cases := []struct {
		name string
		tab  *Table
		opts Options
		text string
		want []float32
	}{
		{"one word", tiny(), Options{}, "a", unitVec(1, 0, 0)},
		{"weighted sum", tiny(), Options{}, "a b", unitVec(1, 1, 0)},
		{"repeats count", tiny(), Options{}, "a a c", unitVec(2, 0, 6)},
		{"unknown words skipped", tiny(), Options{}, "zz a yy b", unitVec(1, 1, 0)},
		{"empty text", tiny(), Options{}, "", unitVec(0, 0, 0)},
		{"only unknown words", tiny(), Options{}, "zz yy", unitVec(0, 0, 0)},
		{"rows out of range ignored", tiny(), Options{}, "far neg", unitVec(0, 0, 0)},
		{"nil weights weigh 1", noWeights, Options{}, "a b", unitVec(1, 2, 0)},
		{"component removed", tiny(), Options{RemoveComponent: []float32{2, 0, 0}}, "a b", unitVec(0, 1, 0)},
		{"oblique component", tiny(), Options{RemoveComponent: []float32{1, 1, 0}}, "a", unitVec(0.5, -0.5, 0)},
		{"nothing left after removal", tiny(), Options{RemoveComponent: []float32{1, 0, 0}}, "a a", unitVec(0, 0, 0)},
		{"scales dequantise", &Table{Dim: 2, Rows: 1, Vectors: []int8{-127, 64}, Scales: []float32{0.5}}, Options{}, "a", unitVec(-63.5, 32)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustNew(t, c.tab, c.opts)
			for _, kind := range []embed.Kind{embed.Document, embed.Query} {
				got, err := m.Embed(context.Background(), []string{c.text}, kind)
				if err != nil {
					t.Fatal(err)
				}
				if !near(got[0], c.want) {
					t.Errorf("%v: Embed(%q) = %v, want %v", kind, c.text, got[0], c.want)
				}
			}
		})
	}
}

func TestEmbedBatch(t *testing.T) {
	m := mustNew(t, tiny(), Options{})
	if m.ID() != "test:tiny@1/3" || m.Dim() != 3 {
		t.Fatalf("ID, Dim = %q, %d", m.ID(), m.Dim())
	}
	texts := []string{"a", "", "c", "b b"}
	got, err := m.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{unitVec(1, 0, 0), unitVec(0, 0, 0), unitVec(0, 0, 1), unitVec(0, 1, 0)}
	for i := range want {
		if !near(got[i], want[i]) || cap(got[i]) != 3 {
			t.Errorf("text %d: %v (cap %d), want %v", i, got[i], cap(got[i]), want[i])
		}
	}
	if got, err := m.Embed(context.Background(), nil, embed.Query); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}
}

func TestNewRejects(t *testing.T) {
	nan := tiny()
	nan.Scales[1] = float32(math.NaN())
	short := tiny()
	short.Vectors = short.Vectors[:8]
	negWeight := tiny()
	negWeight.Weights[0] = -1
	cases := []struct {
		name     string
		tab      *Table
		tokenize Tokenizer
		opts     Options
		want     error
	}{
		{"nil table", nil, words, Options{}, ErrInvalid},
		{"short vectors", short, words, Options{}, ErrInvalid},
		{"NaN scale", nan, words, Options{}, ErrInvalid},
		{"negative weight", negWeight, words, Options{}, ErrInvalid},
		{"no tokenizer", tiny(), nil, Options{}, ErrInvalid},
		{"component dim", tiny(), words, Options{RemoveComponent: []float32{1, 0}}, embed.ErrDimension},
		{"zero component", tiny(), words, Options{RemoveComponent: []float32{0, 0, 0}}, ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := New("x", c.tab, c.tokenize, c.opts); !errors.Is(err, c.want) {
				t.Errorf("New: %v, want %v", err, c.want)
			}
		})
	}
}

func TestEmbedCancelled(t *testing.T) {
	m := mustNew(t, tiny(), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := m.Embed(ctx, []string{"a"}, embed.Document)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("Embed on a cancelled context = %v, %v", got, err)
	}
}

func TestEmbedConcurrent(t *testing.T) {
	m := mustNew(t, tiny(), Options{RemoveComponent: []float32{1, 1, 1}})
	texts := []string{"a b", "c", "a c c", "b", "zz", "a b c"}
	want, err := m.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(texts)
				got, err := m.Embed(context.Background(), texts[k:], embed.Query)
				if err != nil {
					t.Error(err)
					return
				}
				for j := range got {
					if !near(got[j], want[k+j]) {
						t.Errorf("goroutine %d: text %q: %v, want %v", g, texts[k+j], got[j], want[k+j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestEmbedAllocations checks that allocations do not grow with the
// number of tokens: only the result is allocated.
func TestEmbedAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops objects at random under the race detector")
	}
	m := mustNew(t, tiny(), Options{})
	ctx := context.Background()
	short := []string{"a"}
	long := []string{strings.Repeat("a b c ", 500)}
	var tokens int
	count := func(text string, emit func(int)) {
		for range strings.Count(text, " ") + 1 {
			emit(tokens % 3)
			tokens++
		}
	}
	m2, err := New("count", tiny(), count, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, mm := range []*Model{m, m2} {
		mm.Embed(ctx, short, embed.Document) // warm the pool
		a := testing.AllocsPerRun(50, func() { mm.Embed(ctx, short, embed.Document) })
		b := testing.AllocsPerRun(50, func() { mm.Embed(ctx, long, embed.Document) })
		// words (model m) allocates a few times per text itself; count
		// allocates nothing, leaving the result's two slices.
		if b > a || i == 1 && a > 2 {
			t.Errorf("%s: %v allocations for one token, %v for 1500", mm.ID(), a, b)
		}
	}
}

func TestQuantize(t *testing.T) {
	cases := []struct {
		name string
		v    []float32
	}{
		{"mixed", []float32{0.5, -1.27, 0.01, 0}},
		{"positive max", []float32{3, 1.5, -0.75}},
		{"zero", []float32{0, 0}},
		{"tiny", []float32{1e-30, -2e-30}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := make([]int8, len(c.v))
			s := Quantize(q, c.v)
			var maxAbs float64
			for i, x := range c.v {
				maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
				if d := math.Abs(float64(q[i])*float64(s) - float64(x)); d > float64(s)/2*1.0001 {
					t.Errorf("v[%d] = %v comes back as %v×%v", i, x, q[i], s)
				}
			}
			if maxAbs > 0 {
				var top int8
				for _, x := range q {
					top = max(top, x, -x)
				}
				if top != 127 {
					t.Errorf("largest |q| = %d, want 127", top)
				}
			} else if s != 0 {
				t.Errorf("scale %v for a zero vector", s)
			}
		})
	}
}
