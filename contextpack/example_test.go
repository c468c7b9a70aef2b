package contextpack_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/contextpack"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func ExampleBuild() {
	ctx := context.Background()
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		panic(err)
	}
	e, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		panic(err)
	}
	p, err := contextpack.Build(ctx, e, contextpack.Request{Query: "how do I build a levain", BudgetTokens: 600, MaxNotes: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.EstimatedTokens <= p.BudgetTokens)
	for _, it := range p.Included {
		reason, _, _ := strings.Cut(it.Reason, ",") // the score follows
		fmt.Printf("%s (%s)\n", it.Path, reason)
	}
	// Output:
	// true
	// Cooking/Sourdough Bread.md (hit #1)
	// Projects/Ideas.md (hit #2)
	// Daily/2026-01-15.md (backlink of Cooking/Sourdough Bread.md)
	// Home.md (backlink of Cooking/Sourdough Bread.md)
	// Syntax/Embeds.md (backlink of Cooking/Sourdough Bread.md)
	// Syntax/Wikilinks.md (backlink of Cooking/Sourdough Bread.md)
	// Projects/Roadmap.md (backlink of Projects/Ideas.md)
}
