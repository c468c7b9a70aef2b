package tokenizer

import (
	"strings"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// addedToken is an entry of tokenizer.json's "added_tokens" that is
// matched in the raw input before normalisation.
type addedToken struct {
	content    string
	id         int32
	lstrip     bool
	rstrip     bool
	singleWord bool
}

// Tokenizer is a loaded tokenizer.json: added tokens, normalizers and
// pre-tokenizers (both flattened from any Sequence), the model (WordPiece
// or Unigram) and the special tokens of its post-processor. It is
// read-only after Parse and safe for concurrent use, each goroutine with
// its own Workspace.
type Tokenizer struct {
	added       []addedToken
	normalizers []normalizer
	preTokens   []preTokenizer
	model       tokenModel
	// unkID is the model's unknown token, or -1; dropID is unkID when
	// Options.DropUnknown is set, else -1.
	unkID, dropID int32
	// maxTokens and maxChars are the truncation Options ask for: at most
	// maxTokens tokens, from the first maxChars characters (0: no cut).
	maxTokens, maxChars int
	maxID               int32 // largest id the tokenizer can produce
	vocabSize           int
	post                Special
	postErr             error // why post is unusable
}

// Encode returns the token ids of text, without special tokens, after the
// Options given to Parse (dropping and truncation). The slice is reused by
// the next call with ws; copy it to keep it.
func (t *Tokenizer) Encode(ws *Workspace, text string) []int32 {
	return t.encode(ws, text)
}

// encode is Encode.
func (t *Tokenizer) encode(ws *Workspace, text string) []int32 {
	if t.maxChars > 0 {
		text = embed.TruncateRunes(text, t.maxChars)
	}
	ids := ws.ids[:0]
	atStart := true
	for text != "" {
		i, tok := t.nextAdded(text)
		if tok == nil {
			ids = t.encodeSegment(ws, text, atStart, ids)
			break
		}
		before, after := text[:i], text[i+len(tok.content):]
		if tok.lstrip {
			before = strings.TrimRightFunc(before, isSpace)
		}
		if tok.rstrip {
			after = strings.TrimLeftFunc(after, isSpace)
		}
		ids = t.encodeSegment(ws, before, atStart, ids)
		ids = append(ids, tok.id)
		text, atStart = after, false
	}
	if t.dropID >= 0 {
		kept := ids[:0]
		for _, id := range ids {
			if id != t.dropID {
				kept = append(kept, id)
			}
		}
		ids = kept
	}
	if t.maxTokens > 0 && len(ids) > t.maxTokens {
		ids = ids[:t.maxTokens]
	}
	ws.ids = ids
	return ids
}

// nextAdded finds the leftmost (then longest) added token in text.
func (t *Tokenizer) nextAdded(text string) (int, *addedToken) {
	bestAt, best := -1, (*addedToken)(nil)
	for k := range t.added {
		a := &t.added[k]
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], a.content)
			if i < 0 {
				break
			}
			i += from
			if a.singleWord && !isWordBoundary(text, i, i+len(a.content)) {
				from = i + 1
				continue
			}
			if bestAt < 0 || i < bestAt || (i == bestAt && len(a.content) > len(best.content)) {
				bestAt, best = i, a
			}
			break
		}
	}
	return bestAt, best
}

// isWordBoundary reports whether text[i:j] is not glued to word
// characters on either side.
func isWordBoundary(text string, i, j int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); isWordChar(r) {
			return false
		}
	}
	if j < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[j:]); isWordChar(r) {
			return false
		}
	}
	return true
}

// encodeSegment normalises, pre-tokenizes and tokenizes text that holds no
// added token, appending the ids.
func (t *Tokenizer) encodeSegment(ws *Workspace, segment string, atStart bool, ids []int32) []int32 {
	if segment == "" {
		return ids
	}
	ws.text = append(ws.text[:0], segment...)
	for _, n := range t.normalizers {
		out := n.normalize(ws.scratch[:0], ws.text)
		ws.text, ws.scratch = out, ws.text
	}
	if len(ws.text) == 0 {
		return ids
	}
	spans := append(ws.spans[:0], span{0, len(ws.text)})
	for _, p := range t.preTokens {
		newText, out, rewritten := p.split(ws.text, spans, ws.scratch[:0], ws.spans2[:0], atStart)
		if rewritten {
			ws.text, ws.scratch = newText, ws.text
		}
		ws.spans, ws.spans2 = out, spans
		spans = out
	}
	ws.spans = spans
	for _, sp := range spans {
		ids = t.model.tokenize(ws, ws.text[sp.start:sp.end], ids)
	}
	return ids
}
