package rankers

import (
	"math"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
)

// TestProximityMinDist checks MinDist against distances counted by hand
// in analysed term positions (stop words take none).
func TestProximityMinDist(t *testing.T) {
	tests := []struct {
		name   string
		query  string
		fields []string
		want   int
	}{
		{"adjacent", "alpha beta", []string{"alpha beta"}, 1},
		{"two words between", "alpha beta", []string{"alpha gamma delta beta"}, 3},
		{"order does not matter", "alpha beta", []string{"beta gamma alpha"}, 2},
		// alpha…beta is 5, beta x5 alpha 2, alpha…beta 4: the least is 2.
		{"closest pair of many occurrences", "alpha beta", []string{"alpha x1 x2 x3 x4 beta x5 alpha x6 x7 x8 beta"}, 2},
		{"repeated query term counts once", "alpha alpha beta", []string{"alpha x1 x2 beta"}, 3},
		{"repeated text term is no pair", "alpha beta", []string{"alpha alpha alpha"}, NoDist},
		{"term absent", "alpha omega", []string{"alpha beta gamma"}, NoDist},
		{"no term at all", "alpha beta", []string{"gamma delta"}, NoDist},
		{"stop words leave no gap", "alpha beta", []string{"alpha of the beta"}, 1},
		{"stemmed forms match", "running dogs", []string{"the dog runs"}, 1},
		{"three terms: the closest two", "alpha beta gamma", []string{"alpha x1 x2 beta gamma"}, 1},
		{"fields are apart", "alpha beta", []string{"alpha", "beta"}, NoDist},
		{"best field wins", "alpha beta", []string{"alpha x1 x2 beta", "beta alpha"}, 1},
		{"empty text", "alpha beta", []string{""}, NoDist},
		// CJK: "发布网站" is the grams 发布 布网 网站; the text's grams are
		// 我们 们发 发布 布网 网站, so 发布 and 布网 are adjacent.
		{"CJK phrase verbatim", "发布网站", []string{"我们发布网站"}, 1},
		// 发布(0) 布了(1) 了一(2) 一个(3) 个网(4) 网站(5).
		{"CJK words apart", "发布网站", []string{"发布了一个网站"}, 5},
		{"CJK and Latin", "obsidian 发布", []string{"用 Obsidian 发布"}, 1},
	}
	an := analysis.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewProximity(an, tt.query)
			if p == nil {
				t.Fatalf("NewProximity(%q) = nil, want a proximity", tt.query)
			}
			if got := p.MinDist(tt.fields...); got != tt.want {
				t.Errorf("MinDist(%q) = %d, want %d", tt.fields, got, tt.want)
			}
		})
	}
}

// TestProximitySingleTerm checks that a query of fewer than two distinct
// terms has no proximity (so a single-term search is untouched).
func TestProximitySingleTerm(t *testing.T) {
	an := analysis.New()
	for _, q := range []string{"", "alpha", "alpha alpha", "the alpha", "Alpha ALPHA alpha", "网", "running runs"} {
		if p := NewProximity(an, q); p != nil {
			t.Errorf("NewProximity(%q) = %v, want nil", q, p.terms)
		}
	}
}

// TestProximityBonus checks the bonus log(1 + exp(−δ)/0.3) against
// values computed by hand.
func TestProximityBonus(t *testing.T) {
	tests := []struct {
		dist int
		want float64
	}{
		{NoDist, 0},
		{1, 0.8003252},  // ln(1 + 0.3678794/0.3) = ln 2.2262648
		{2, 0.3723340},  // ln(1 + 0.1353353/0.3) = ln 1.4511176
		{3, 0.1535421},  // ln(1 + 0.0497871/0.3) = ln 1.1659569
		{8, 0.00111758}, // ln(1 + 0.00033546/0.3)
	}
	for _, tt := range tests {
		if got := ProximityBonus(tt.dist); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("ProximityBonus(%d) = %.7f, want %.7f", tt.dist, got, tt.want)
		}
	}
	if ProximityAlpha != 0.3 {
		t.Fatalf("the hand-computed values assume α = 0.3, got %g", ProximityAlpha)
	}
}

// BenchmarkProximityMinDist reads ProximityMaxBytes of English-like text
// (what one pool note costs at most) for a three-term query.
func BenchmarkProximityMinDist(b *testing.B) {
	words := []string{"the", "vault", "notes", "publish", "linking", "graph", "of", "a", "search", "markdown", "site", "index", "plugin", "settings"}
	var sb strings.Builder
	for i := 0; sb.Len() < ProximityMaxBytes; i++ {
		sb.WriteString(words[(i*7+i/3)%len(words)])
		sb.WriteByte(' ')
	}
	text := sb.String()[:ProximityMaxBytes]
	p := NewProximity(analysis.New(), "publish your site online")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p.MinDist("Publish", text)
	}
}
