package tokenizer

import "fmt"

// unkPenalty is how much lower than the worst piece an unknown character
// scores, as in SentencePiece and tokenizers (kUnkPenalty).
const unkPenalty = 10.0

// unigram is the "Unigram" (SentencePiece) model: the segmentation of a
// piece that maximises the sum of piece scores (Viterbi). A character no
// piece starts with becomes the unknown token; consecutive unknown
// characters fuse into one unknown token; with byte_fallback they become
// <0xXX> byte pieces when the vocabulary has them all.
type unigram struct {
	trie         *byteTrie
	scores       []float64
	unk          int32 // -1 when the model has no unk_id
	unkScore     float64
	byteFallback bool
	byteIDs      [256]int32
}

// newUnigram builds the model from its (piece, score) list.
func newUnigram(pieces []string, scores []float64, unkID *int, byteFallback bool) (*unigram, error) {
	if len(pieces) == 0 {
		return nil, fmt.Errorf("unigram vocabulary is empty")
	}
	u := &unigram{trie: buildTrie(pieces), scores: scores, unk: -1, byteFallback: byteFallback}
	if unkID != nil {
		if *unkID < 0 || *unkID >= len(pieces) {
			return nil, fmt.Errorf("unigram unk_id %d outside the %d-piece vocabulary", *unkID, len(pieces))
		}
		u.unk = int32(*unkID)
	}
	minScore := scores[0]
	for _, s := range scores {
		minScore = min(minScore, s)
	}
	u.unkScore = minScore - unkPenalty
	for b := range u.byteIDs {
		u.byteIDs[b] = u.trie.lookup(fmt.Sprintf("<0x%02X>", b))
	}
	return u, nil
}

// pathNode is one token of the best segmentation.
type pathNode struct {
	id         int32
	start, end int32
}

func (u *unigram) tokenize(ws *Workspace, piece []byte, ids []int32) []int32 {
	n := len(piece)
	if n == 0 {
		return ids
	}
	ws.growLattice(n + 1)
	best, from, tok := ws.best[:n+1], ws.from[:n+1], ws.tok[:n+1]
	for i := range from {
		from[i] = -1
	}
	best[0] = 0
	for i := 0; i < n; {
		_, mblen := decodeRune(piece[i:])
		base := best[i]
		single := false
		node := u.trie.root[piece[i]]
		for j := i; node >= 0; {
			if id := u.trie.value[node]; id >= 0 {
				end := j + 1
				if s := base + u.scores[id]; from[end] < 0 || s > best[end] {
					best[end], from[end], tok[end] = s, int32(i), id
				}
				if end-i == mblen {
					single = true
				}
			}
			j++
			if j >= n {
				break
			}
			node = u.trie.child(node, piece[j])
		}
		if !single {
			end := i + mblen
			if s := base + u.unkScore; from[end] < 0 || s > best[end] {
				best[end], from[end], tok[end] = s, int32(i), u.unk
			}
		}
		i += mblen
	}
	// Walk the best path back, then emit it forwards.
	path := ws.path[:0]
	for end := n; end > 0; end = int(from[end]) {
		path = append(path, pathNode{id: tok[end], start: from[end], end: int32(end)})
	}
	ws.path = path
	for k := len(path) - 1; k >= 0; k-- {
		p := path[k]
		if p.id != u.unk || u.unk < 0 {
			if p.id >= 0 {
				ids = append(ids, p.id)
			}
			continue
		}
		// Fuse a run of unknown tokens, as tokenizers does.
		start := p.start
		for k > 0 && path[k-1].id == u.unk {
			k--
		}
		ids = u.appendUnknown(ids, piece[start:path[k].end])
	}
	return ids
}

// appendUnknown appends the tokens for a fused run of unknown characters.
func (u *unigram) appendUnknown(ids []int32, text []byte) []int32 {
	if u.byteFallback {
		ok := true
		for _, b := range text {
			if u.byteIDs[b] < 0 {
				ok = false
				break
			}
		}
		if ok {
			for _, b := range text {
				ids = append(ids, u.byteIDs[b])
			}
			return ids
		}
	}
	return append(ids, u.unk)
}
