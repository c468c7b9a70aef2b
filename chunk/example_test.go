package chunk_test

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func ExampleSplit() {
	raw := `---
title: Search
---
# Search
Notes on ranking.

## BM25
BM25 scores terms by frequency and document length.

## Embeddings
Dense vectors capture meaning.
`
	n, _ := vault.Parse("search.md", []byte(raw))
	for _, c := range chunk.Split(n, chunk.Options{MaxTokens: 40, MinTokens: 5}) {
		fmt.Printf("#%d lines %d-%d %s (%d tokens)\n", c.Index, c.LineStart, c.LineEnd,
			strings.Join(c.Headings, " > "), c.Tokens)
		fmt.Printf("   %q\n", c.Text(n))
	}
	// Output:
	// #0 lines 4-5 Search (5 tokens)
	//    "# Search\nNotes on ranking."
	// #1 lines 7-8 Search > BM25 (10 tokens)
	//    "## BM25\nBM25 scores terms by frequency and document length."
	// #2 lines 10-11 Search > Embeddings (6 tokens)
	//    "## Embeddings\nDense vectors capture meaning."
}

func ExampleTokens() {
	fmt.Println(chunk.Tokens("Hello, world!"), chunk.Tokens("東京タワー"), chunk.Tokens("日本語 text"))
	// Output: 2 5 4
}
