package static_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

func ExampleNew() {
	// Three words in two dimensions; "the" is frequent, so it weighs little.
	words := map[string]int{"cat": 0, "dog": 1, "the": 2}
	t := &static.Table{
		Dim: 2, Rows: 3,
		Vectors: []int8{127, 0, 0, 127, 90, 90},
		Scales:  []float32{1.0 / 127, 1.0 / 127, 1.0 / 127},
		Weights: []float32{1, 1, 0.01},
	}
	tokenize := func(text string, emit func(row int)) {
		for _, w := range strings.Fields(strings.ToLower(text)) {
			if r, ok := words[w]; ok {
				emit(r)
			}
		}
	}
	m, err := static.New("example:pets@1/2", t, tokenize, static.Options{})
	if err != nil {
		panic(err)
	}
	vs, err := m.Embed(context.Background(), []string{"The cat", "the DOG", "the", "a fish"}, embed.Document)
	if err != nil {
		panic(err)
	}
	for _, v := range vs {
		fmt.Printf("[%.3f %.3f]\n", v[0], v[1])
	}
	// Output:
	// [1.000 0.007]
	// [0.007 1.000]
	// [0.707 0.707]
	// [0.000 0.000]
}
