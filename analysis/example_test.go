package analysis_test

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/analysis"
)

func ExampleAnalyzer_Each() {
	a := analysis.New()
	text := "Running the Café's naïve search-engines"
	a.Each(text, analysis.Index, func(term string, start, end int) {
		fmt.Printf("%-7s %q [%d,%d)\n", term, text[start:end], start, end)
	})
	// Output:
	// run     "Running" [0,7)
	// cafe    "Café" [12,17)
	// naiv    "naïve" [20,26)
	// search  "search" [27,33)
	// engin   "engines" [34,41)
}

func ExampleAnalyzer_Terms() {
	a := analysis.New()
	fmt.Println(a.Terms(nil, "東京タワー", analysis.Index))
	fmt.Println(a.Terms(nil, "東京タワー", analysis.Query))
	fmt.Println(a.Terms(nil, "ＢＭ２５ in 中 ﬁles", analysis.Query))
	// Output:
	// [東 京 東京 タ 京タ ワ タワ ー ワー]
	// [東京 京タ タワ ワー]
	// [bm25 中 file]
}
