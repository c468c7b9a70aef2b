package onnx

import (
	"cmp"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// batch is the padded model input of several sequences: row-major
// [rows][cols] ids, token types and attention mask (1 for tokens, 0 for
// padding). Truncated counts the sequences that were cut to fit.
type batch struct {
	ids, types, mask []int64
	rows, cols       int
	truncated        int
}

// sequence is one encoded sequence before padding.
type sequence struct {
	ids, types []int64
}

// single encodes text as CLS text SEP, cut to maxLen tokens in all; cut
// reports whether the text's tokens were truncated.
func single(ids []int32, sp tokenizer.Special, maxLen int) (seq sequence, cut bool) {
	room := maxLen - 2
	if len(ids) > room {
		ids, cut = ids[:room], true
	}
	seq.ids = make([]int64, 0, len(ids)+2)
	seq.ids = append(seq.ids, int64(sp.CLS))
	for _, id := range ids {
		seq.ids = append(seq.ids, int64(id))
	}
	seq.ids = append(seq.ids, int64(sp.SEP))
	seq.types = make([]int64, len(seq.ids))
	return seq, cut
}

// pair encodes a (query, passage) pair as BERT (CLS a SEP b SEP) or
// RoBERTa (CLS a SEP SEP b SEP) does, cut to maxLen tokens in all by
// Hugging Face's "longest_first" rule: one token at a time from the
// longer side, from the passage when both are as long.
func pair(a, b []int32, sp tokenizer.Special, maxLen int) (seq sequence, cut bool) {
	room := maxLen - 2 - sp.PairSeps
	if len(a)+len(b) > room {
		cut = true
		na, nb := len(a), len(b)
		for na+nb > room {
			if na > nb {
				na--
			} else {
				nb--
			}
		}
		a, b = a[:na], b[:nb]
	}
	seq.ids = append(seq.ids, int64(sp.CLS))
	for _, id := range a {
		seq.ids = append(seq.ids, int64(id))
	}
	for range sp.PairSeps {
		seq.ids = append(seq.ids, int64(sp.SEP))
	}
	seq.types = make([]int64, len(seq.ids), len(seq.ids)+len(b)+1)
	for _, id := range b {
		seq.ids = append(seq.ids, int64(id))
		seq.types = append(seq.types, sp.SecondTypeID)
	}
	seq.ids = append(seq.ids, int64(sp.SEP))
	seq.types = append(seq.types, sp.SecondTypeID)
	return seq, cut
}

// pad lays sequences out as one batch, padded with pad ids to the
// longest.
func pad(seqs []sequence, padID int64) *batch {
	b := &batch{rows: len(seqs)}
	for _, s := range seqs {
		b.cols = max(b.cols, len(s.ids))
	}
	n := b.rows * b.cols
	b.ids, b.types, b.mask = make([]int64, n), make([]int64, n), make([]int64, n)
	for r, s := range seqs {
		row := r * b.cols
		for c := range b.cols {
			if c < len(s.ids) {
				b.ids[row+c], b.types[row+c], b.mask[row+c] = s.ids[c], s.types[c], 1
			} else {
				b.ids[row+c] = padID
			}
		}
	}
	return b
}

// attentionBudget bounds rows × cols² of one batch: the attention scores
// of a run take heads × rows × cols² floats, several times over. 8
// sequences of 256 tokens fit; sequences of 512 go 2 at a time, which
// keeps a reranker's peak memory near an embedder's.
const attentionBudget = 8 * 256 * 256

// byLength returns the sequences' indices ordered by length (stable), so
// that batches pad little: real chunks vary in length, and each batch is
// padded to its longest.
func byLength(seqs []sequence) []int {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[a].ids), len(seqs[b].ids)) })
	return order
}

// spans cuts sequences of the given lengths, in order, into batches of
// at most maxRows whose padded size rows × longest² stays within
// attentionBudget (a single sequence always forms a batch). It returns
// the [start, end) of each batch.
func spans(lengths []int, maxRows int) [][2]int {
	var out [][2]int
	start, longest := 0, 0
	for i, n := range lengths {
		l := max(longest, n)
		if i > start && ((i-start+1)*l*l > attentionBudget || i-start == maxRows) {
			out = append(out, [2]int{start, i})
			start, l = i, n
		}
		longest = l
	}
	if start < len(lengths) {
		out = append(out, [2]int{start, len(lengths)})
	}
	return out
}
