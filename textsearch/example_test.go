package textsearch_test

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/textsearch"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func ExampleSearcher_Search() {
	ctx := context.Background()
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		panic(err)
	}
	res, err := textsearch.New(snap).Search(ctx, textsearch.Query{Text: "LEVAIN", MaxMatchesPerNote: 1})
	if err != nil {
		panic(err)
	}
	for _, n := range res.Notes {
		for _, m := range n.Matches {
			fmt.Printf("%s:%d:%d %s\n", n.Path, m.Line, m.Column, m.Text)
		}
		fmt.Println(n.Count, "lines in all")
	}
	// Output:
	// Cooking/Sourdough Bread.md:15:17 ## Building the levain
	// 3 lines in all
}
