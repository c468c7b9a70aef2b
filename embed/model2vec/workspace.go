package model2vec

import "github.com/enquire-mcp/enquire-mcp/embed/tokenizer"

// tokenizerOptions are model2vec's encoding rules: no special tokens, the
// unknown token dropped, at most 512 tokens (encode's default max_length)
// from the first 512 × (median token length) characters.
var tokenizerOptions = tokenizer.Options{DropUnknown: true, MaxTokens: 512, CutRunes: true}

// workspace holds the scratch buffers of one embedding goroutine, so that
// tokenizing and pooling allocate nothing once the buffers have grown.
type workspace struct {
	tok tokenizer.Workspace
	acc []float64 // embedWide's sum
}

// wide returns a zeroed float64 accumulator of length dim.
func (ws *workspace) wide(dim int) []float64 {
	if cap(ws.acc) < dim {
		ws.acc = make([]float64, dim)
	}
	ws.acc = ws.acc[:dim]
	clear(ws.acc)
	return ws.acc
}
