package vault_test

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func ExampleLoad() {
	snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(len(snap.Notes), "notes,", len(snap.Attachments), "attachments")
	for _, w := range snap.Warnings {
		fmt.Println("warning:", w.Path)
	}

	n := snap.Lookup("K8s") // an alias
	fmt.Println(n.Path, n.Tags, n.HasTag("devops"))

	for _, l := range snap.Note("Syntax/Embeds.md").Links {
		fmt.Printf("L%d %s -> %s %s\n", l.Line, l.Raw, l.Kind, l.Resolved)
	}
	// Output:
	// 43 notes, 2 attachments
	// warning: Syntax/Malformed YAML.md
	// Software/Kubernetes.md [devops infrastructure] true
	// L9 ![[Sourdough Bread]] -> note Cooking/Sourdough Bread.md
	// L12 ![[diagram.png]] -> attachment Attachments/diagram.png
	// L15 ![[Black Holes#Event horizon]] -> note Science/Black Holes.md
	// L18 ![[Rust Ownership#^borrow-rules]] -> note Software/Rust Ownership.md
	// L21 ![[paper.pdf#page=2]] -> attachment Attachments/paper.pdf
}
