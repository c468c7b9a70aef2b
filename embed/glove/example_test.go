package glove_test

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/glove"
)

func ExampleLoad() {
	m, err := glove.Load()
	if err != nil {
		panic(err)
	}
	vs, err := m.Embed(context.Background(), []string{"king queen", "royal monarch", "banana bread"}, embed.Query)
	if err != nil {
		panic(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Println(m.ID(), m.Dim())
	fmt.Println("closer to royal monarch than to banana bread:", dot(vs[0], vs[1]) > dot(vs[0], vs[2]))
	// Output:
	// builtin:glove-6b-100d-65k@1/100 100
	// closer to royal monarch than to banana bread: true
}
