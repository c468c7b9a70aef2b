package analysis

import (
	"fmt"
	"slices"
	"testing"
)

// TestTermCacheEach checks that a TermCache yields exactly Each's terms
// and spans, in both modes, when texts are read one after another
// through one cache (words seen before come from the cache).
func TestTermCacheEach(t *testing.T) {
	texts := []string{
		"The running dogs ran; a dog runs.",
		"Running DOGS, café and Café and cafe\u0301",
		"发布网站 and 发布 the site, 網站 ｶﾞ",
		"dying lying tying skis idly",
		"bad \xff utf-8 \xc3 here running",
		"",
	}
	an := New()
	cache := an.NewTermCache()
	for _, mode := range []Mode{Index, Query} {
		for _, text := range texts {
			var want, got []string
			an.Each(text, mode, func(term string, start, end int) { want = append(want, fmt.Sprint(term, start, end)) })
			cache.Each(text, mode, func(term string, start, end int) { got = append(got, fmt.Sprint(term, start, end)) })
			if !slices.Equal(got, want) {
				t.Errorf("mode %d, %q: cache gave %q, Each %q", mode, text, got, want)
			}
		}
	}
	if len(cache.terms) == 0 {
		t.Fatal("the cache remembered no word")
	}
}
