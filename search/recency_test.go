package search

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func weight(v float64) *float64 { return &v }

// magnetarEngine serves a copy of the fixture plus testdata/blend's
// Magnetar Survey notes (identical text, different importance) in
// Ranking/, with the given ages by a pinned clock.
func magnetarEngine(t *testing.T, ages map[string]time.Duration, opts Options) (*Engine, time.Time) {
	t.Helper()
	root := vaulttest.Copy(t, fixtureVault)
	vaulttest.AddFiles(t, "../testdata/blend", filepath.Join(root, "Ranking"))
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for name, age := range ages {
		p := filepath.Join(root, "Ranking", "Magnetar Survey "+name+".md")
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = func() time.Time { return now }
	e, err := New(context.Background(), snap, analysis.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, now
}

const day = 24 * time.Hour

func TestRecencyWeight(t *testing.T) {
	ages := map[string]time.Duration{"High": 3 * 365 * day, "Low": 0, "Unrated": 365 * day, "Invalid": 2 * 365 * day, "Huge": 4 * 365 * day}
	e, _ := magnetarEngine(t, ages, Options{})
	req := Request{Query: "magnetar flare catalogues", Folder: "Ranking", RecencyWeight: weight(0.5)}
	res := mustSearch(t, e, req)
	want := []string{"Ranking/Magnetar Survey Low.md", "Ranking/Magnetar Survey Unrated.md", "Ranking/Magnetar Survey Invalid.md",
		"Ranking/Magnetar Survey High.md", "Ranking/Magnetar Survey Huge.md"}
	if got := hitPaths(res); !reflect.DeepEqual(got, want) {
		t.Fatalf("fresh first: got %v, want %v", got, want)
	}
	for _, h := range res.Hits {
		name := strings.TrimSuffix(strings.TrimPrefix(h.Path, "Ranking/Magnetar Survey "), ".md")
		b := h.Blend
		wantRec := math.Exp2(-ages[name].Hours() / 24 / DefaultStaleDays)
		if b == nil || math.Abs(b.Recency-wantRec) > 1e-9 || b.Relevance <= 0 || b.Relevance > 1 {
			t.Fatalf("%s: blend %+v, want recency %.6f", h.Path, b, wantRec)
		}
		if got := 0.5*b.Relevance + 0.5*b.Recency; math.Abs(h.Score-got) > 1e-12 {
			t.Errorf("%s: score %.9f, want (1-0.5)·relevance + 0.5·recency = %.9f", h.Path, h.Score, got)
		}
		if h.AgeDays != int(ages[name]/day) {
			t.Errorf("%s: age_days %d, want %d (same clock as recency)", h.Path, h.AgeDays, int(ages[name]/day))
		}
	}
	// The server default applies when the request sets no weight; a
	// half-life of 30 days leaves a note a year old almost no recency.
	e2, _ := magnetarEngine(t, ages, Options{RecencyWeight: 0.5, StaleDays: 30})
	res2 := mustSearch(t, e2, Request{Query: req.Query, Folder: "Ranking"})
	if res2.Hits[0].Path != want[0] || res2.Hits[0].Blend.Recency != 1 {
		t.Fatalf("server default: %v, first %+v", hitPaths(res2), res2.Hits[0].Blend)
	}
	for _, h := range res2.Hits[1:] {
		if h.Blend.Recency > 0.001 {
			t.Errorf("half-life 30: %s a year or more old has recency %v", h.Path, h.Blend.Recency)
		}
	}
}

func TestImportanceWeight(t *testing.T) {
	e, _ := magnetarEngine(t, nil, Options{})
	res := mustSearch(t, e, Request{Query: "magnetar flare catalogues", Folder: "Ranking", ImportanceWeight: weight(0.6)})
	got := map[string]float64{}
	for _, h := range res.Hits {
		got[h.Path] = h.Blend.Importance
	}
	want := map[string]float64{"Ranking/Magnetar Survey High.md": 0.9, "Ranking/Magnetar Survey Low.md": 0.1,
		"Ranking/Magnetar Survey Unrated.md": 0.5, "Ranking/Magnetar Survey Invalid.md": 0.5, "Ranking/Magnetar Survey Huge.md": 0.5}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("importance parts %v, want %v", got, want)
	}
	if first, last := res.Hits[0].Path, res.Hits[len(res.Hits)-1].Path; first != "Ranking/Magnetar Survey High.md" || last != "Ranking/Magnetar Survey Low.md" {
		t.Fatalf("order %v: want High first and Low last", hitPaths(res))
	}
}

func TestBlendWeightsRejected(t *testing.T) {
	e := testEngine(t)
	withDefault, _ := magnetarEngine(t, nil, Options{RecencyWeight: 0.7})
	tests := []struct {
		name string
		e    *Engine
		req  Request
		want string
	}{
		{"negative recency", e, Request{RecencyWeight: weight(-0.1)}, "recency_weight must be between 0 and 1"},
		{"recency above 1", e, Request{RecencyWeight: weight(1.5)}, "recency_weight must be between 0 and 1"},
		{"importance NaN", e, Request{ImportanceWeight: weight(math.NaN())}, "importance_weight must be between 0 and 1"},
		{"importance above 1", e, Request{ImportanceWeight: weight(2)}, "importance_weight must be between 0 and 1"},
		{"sum above 1", e, Request{RecencyWeight: weight(0.6), ImportanceWeight: weight(0.5)}, "must not exceed 1"},
		{"server default plus importance", withDefault, Request{ImportanceWeight: weight(0.5)}, "--recency-weight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Query = "magnetar"
			_, err := tt.e.Search(context.Background(), tt.req)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
		})
	}
}

func TestRecencyAndImportanceValues(t *testing.T) {
	for _, tt := range []struct {
		age  time.Duration
		half int
		want float64
	}{{0, 365, 1}, {-day, 365, 1}, {365 * day, 365, 0.5}, {730 * day, 365, 0.25}, {15 * day, 30, math.Sqrt(0.5)}} {
		if got := Recency(tt.age, tt.half); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Recency(%v, %d) = %v, want %v", tt.age, tt.half, got, tt.want)
		}
	}
	for _, tt := range []struct {
		fm   map[string]any
		want float64
	}{
		{nil, 0.5}, {map[string]any{"importance": 10}, 1}, {map[string]any{"importance": 0}, 0},
		{map[string]any{"Importance": 7.5}, 0.75}, {map[string]any{"importance": " 3 "}, 0.3},
		{map[string]any{"importance": "high"}, 0.5}, {map[string]any{"importance": -1}, 0.5},
		{map[string]any{"importance": 11}, 0.5}, {map[string]any{"importance": []any{1}}, 0.5},
		{map[string]any{"importance": math.NaN()}, 0.5}, {map[string]any{"importance": true}, 0.5},
	} {
		if got := Importance(&vault.Note{Frontmatter: tt.fm}); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Importance(%v) = %v, want %v", tt.fm, got, tt.want)
		}
	}
}
