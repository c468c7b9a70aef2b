package glove

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// tableSHA256 pins glove.bin to ID: a new table needs a new ID (bump @N),
// or stored vectors of the old table would be mixed with new ones.
const tableSHA256 = "76771f610e3e21d1f84019229d06a87c40337475375cec6608b45f6cb44db521"

func TestIDPinsTable(t *testing.T) {
	if ID != "builtin:glove-6b-100d-65k@1/100" {
		t.Errorf("ID = %q", ID)
	}
	sum := sha256.Sum256([]byte(table))
	if got := hex.EncodeToString(sum[:]); got != tableSHA256 {
		t.Errorf("glove.bin has sha256 %s, want %s: if the table changed on purpose, bump the @N of ID and update tableSHA256", got, tableSHA256)
	}
}

func TestTable(t *testing.T) {
	v, err := static.Decode(table)
	if err != nil {
		t.Fatal(err)
	}
	if v.Table.Dim != 100 || v.Table.Rows != 65000 || len(v.Component) != 100 {
		t.Fatalf("dim %d, rows %d, component %d", v.Table.Dim, v.Table.Rows, len(v.Component))
	}
	word := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	index := map[string]int{}
	for r, w := range v.Words {
		if !word.MatchString(w) {
			t.Errorf("row %d: %q is not a word the tokenizer can produce", r, w)
		}
		index[w] = r
	}
	for _, w := range []string{"the", "king", "queen", "banana", "protein", "retrieval", "e-mail", "state-of-the-art", "mid-1990s", "h1n1", "not"} {
		if _, ok := index[w]; !ok {
			t.Errorf("%q missing", w)
		}
	}
	for _, w := range []string{",", ".", "(", "\"", "anti-"} {
		if _, ok := index[w]; ok {
			t.Errorf("%q kept", w)
		}
	}
	for r, w := range v.Table.Weights {
		if !(w > 0 && w < 1) || r > 0 && w < v.Table.Weights[r-1] {
			t.Fatalf("row %d: weight %v after %v: weights must grow with rank, in (0, 1)", r, w, v.Table.Weights[max(r-1, 0)])
		}
	}
	if the, king := v.Table.Weights[index["the"]], v.Table.Weights[index["king"]]; the > 0.01 || king < 0.4 {
		t.Errorf("SIF weights: the %v, king %v", the, king)
	}
	var n float64
	for _, x := range v.Component {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("component has squared norm %v", n)
	}
}

func TestLoad(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != ID || m.Dim() != 100 {
		t.Errorf("ID %q, Dim %d", m.ID(), m.Dim())
	}
	if again, _ := Load(); again != m {
		t.Error("Load built a second model")
	}
	var _ embed.Embedder = m
	if Alias != "builtin" {
		t.Errorf("Alias = %q", Alias)
	}
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestSimilarity(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ text, similar, unrelated string }{
		{"king queen", "royal monarch", "banana bread"},
		{"The doctor treated the patient in hospital.", "A nurse cared for the sick man at the clinic.", "The guitarist played a loud solo on stage."},
		{"car engine repair", "mechanic fixing a vehicle", "poetry and literature"},
		{"sourdough bread recipe", "baking a loaf with yeast and flour", "stock market crash"},
		{"earthquake", "tectonic plates and seismic waves", "chocolate cake"},
		{"How do I search my notes?", "finding documents with a query", "the football season starts"},
	}
	for _, c := range cases {
		vs, err := m.Embed(context.Background(), []string{c.text, c.similar, c.unrelated}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		if s, u := cos(vs[0], vs[1]), cos(vs[0], vs[2]); s <= u {
			t.Errorf("cos(%q, %q) = %.3f, not above cos(…, %q) = %.3f", c.text, c.similar, s, c.unrelated, u)
		}
	}
}

func TestUnitVectors(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the", "King", "a long sentence about the history of science and art", "Café naïve don't", "", "zzqxv 12345 !!! ...", "日本語"}
	wantZero := map[int]bool{4: true, 5: true, 6: true}
	vs, err := m.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		n := cos(v, v)
		if wantZero[i] && n != 0 || !wantZero[i] && math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: squared norm %v", texts[i], n)
		}
	}
	q, err := m.Embed(context.Background(), texts[:3], embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	for i := range q {
		if cos(q[i], vs[i]) < 1-1e-6 {
			t.Errorf("%q: query and document vectors differ", texts[i])
		}
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New("x", "garbage"); err == nil {
		t.Error("New accepted garbage")
	}
}

// BenchmarkLoad measures what the first Load does: decode the table and
// index its words.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(ID, table); err != nil {
			b.Fatal(err)
		}
	}
}
