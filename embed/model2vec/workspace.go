package model2vec

// workspace holds the scratch buffers of one embedding goroutine, so that
// tokenizing and pooling allocate nothing once the buffers have grown.
type workspace struct {
	text, scratch []byte // normalizer and pre-tokenizer ping-pong buffers
	spans, spans2 []span
	word          []byte // WordPiece continuation lookups
	ids           []int32
	best          []float64 // Unigram lattice
	from, tok     []int32
	path          []pathNode
	acc           []float64 // embedWide's sum
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

// growLattice makes the Unigram lattice hold at least n positions.
func (ws *workspace) growLattice(n int) {
	if cap(ws.best) < n {
		n = max(n, 2*cap(ws.best))
		ws.best = make([]float64, n)
		ws.from = make([]int32, n)
		ws.tok = make([]int32, n)
	}
}
