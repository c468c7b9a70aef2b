package search_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func zeroWeight() *float64 { v := 0.0; return &v }

func search1(t *testing.T, e *search.Engine, req search.Request) *search.Result {
	t.Helper()
	res, err := e.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func paths(r *search.Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

// TestZeroBlendWeightsKeepTheRanking: with both weights 0 — unset, set
// to 0 in the request, or the request's 0 overriding a server default —
// every query returns exactly the same hits, scores and fields, with no
// blend parts, at both granularities.
func TestZeroBlendWeightsKeepTheRanking(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, "../testdata/vault")
	vaulttest.AddFiles(t, "../testdata/blend", filepath.Join(root, "Ranking"))
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	withDefault, err := search.New(ctx, snap, analysis.New(), search.Options{RecencyWeight: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	queries := append([]string{"magnetar flare", "helix editor", "coffee oat milk"}, enginetest.Queries...)
	for _, q := range queries {
		for _, gran := range []string{search.GranularityNote, search.GranularityBlock} {
			base := search.Request{Query: q, Limit: 50, GraphBoost: true, Granularity: gran}
			want, err := plain.Search(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			zero := base
			zero.RecencyWeight, zero.ImportanceWeight = zeroWeight(), zeroWeight()
			for name, got := range map[string]*search.Result{
				"explicit zeros":            search1(t, plain, zero),
				"request overrides default": search1(t, withDefault, zero),
			} {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%q (%s) %s: hits differ\n got %v\nwant %v", q, gran, name, paths(got), paths(want))
				}
			}
			for _, h := range want.Hits {
				if h.Blend != nil {
					t.Fatalf("%q: blend parts without a weight: %+v", q, h)
				}
			}
		}
	}
}
