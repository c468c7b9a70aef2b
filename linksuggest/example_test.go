package linksuggest_test

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/linksuggest"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func ExampleSuggester_Suggest() {
	snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
	if err != nil {
		panic(err)
	}
	s := linksuggest.New(snap)
	for _, id := range s.Suggest("[[Kubernets]]", 2) {
		fmt.Println(snap.Notes[id].Path)
	}
	fmt.Println(s.Titles("sourdogh bread"))
	// Output:
	// Software/Kubernetes.md
	// [Sourdough Bread]
}
