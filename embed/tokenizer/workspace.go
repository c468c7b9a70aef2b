package tokenizer

// Workspace holds the scratch buffers of one tokenizing goroutine, so
// that tokenizing allocates nothing once the buffers have grown. The zero
// value is ready to use; a Workspace is not safe for concurrent use.
type Workspace struct {
	text, scratch []byte // normalizer and pre-tokenizer ping-pong buffers
	spans, spans2 []span
	word          []byte // WordPiece continuation lookups
	ids           []int32
	best          []float64 // Unigram lattice
	from, tok     []int32
	path          []pathNode
}

// growLattice makes the Unigram lattice hold at least n positions.
func (ws *Workspace) growLattice(n int) {
	if cap(ws.best) < n {
		n = max(n, 2*cap(ws.best))
		ws.best = make([]float64, n)
		ws.from = make([]int32, n)
		ws.tok = make([]int32, n)
	}
}
