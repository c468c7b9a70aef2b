package tokenizer

import "unicode/utf8"

// A tokenModel turns one pre-tokenized piece into token ids, appending
// them to ids.
type tokenModel interface {
	tokenize(ws *Workspace, piece []byte, ids []int32) []int32
}

// wordPiece is the "WordPiece" model: greedy longest-match-first over the
// vocabulary, continuation pieces carrying a prefix ("##"); a word that
// cannot be covered, or is longer than maxChars characters, becomes the
// single unknown token.
type wordPiece struct {
	vocab    map[string]int32
	unk      int32 // -1 when the unknown token is not in the vocabulary
	prefix   string
	maxChars int
}

func (w *wordPiece) tokenize(ws *Workspace, piece []byte, ids []int32) []int32 {
	if utf8.RuneCount(piece) > w.maxChars {
		return w.appendUnk(ids)
	}
	mark := len(ids)
	for start := 0; start < len(piece); {
		end := len(piece)
		found := int32(-1)
		for start < end {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = w.vocab[string(piece[:end])]
			} else {
				ws.word = append(append(ws.word[:0], w.prefix...), piece[start:end]...)
				id, ok = w.vocab[string(ws.word)]
			}
			if ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRune(piece[start:end])
			end -= size
		}
		if found < 0 {
			return w.appendUnk(ids[:mark])
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

// appendUnk appends the unknown token if the vocabulary has one.
func (w *wordPiece) appendUnk(ids []int32) []int32 {
	if w.unk >= 0 {
		ids = append(ids, w.unk)
	}
	return ids
}
