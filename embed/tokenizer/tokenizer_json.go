package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

// ErrUnsupported is returned for a tokenizer.json feature this package
// does not implement (a model type, a normalizer, a pre-tokenizer...).
var ErrUnsupported = errors.New("unsupported model feature")

// Options are the encoding rules a caller wants on top of tokenizer.json.
type Options struct {
	// DropUnknown removes the unknown token from every encoding (as
	// model2vec does).
	DropUnknown bool
	// MaxTokens truncates every encoding to its first MaxTokens ids; 0
	// keeps them all.
	MaxTokens int
	// CutRunes first cuts the text to MaxTokens × the median token length
	// in characters (model2vec's cut, which bounds the work on long
	// texts). It needs MaxTokens.
	CutRunes bool
}

// tokenizerDoc is the part of a HuggingFace tokenizer.json this package
// reads. Truncation, padding and the decoder are not read: callers
// truncate (Options) and pad themselves.
type tokenizerDoc struct {
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
}

// typed is the "type" tag every component carries.
type typed struct {
	Type string `json:"type"`
}

// Parse builds a Tokenizer from the contents of a tokenizer.json.
func Parse(data []byte, opts Options) (*Tokenizer, error) {
	var f tokenizerDoc
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &Tokenizer{maxTokens: opts.MaxTokens, unkID: -1, dropID: -1}
	var err error
	if t.normalizers, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json normalizer: %w", err)
	}
	t.normalizers = fuseReplacements(t.normalizers)
	if t.preTokens, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json pre_tokenizer: %w", err)
	}
	vocab, err := t.parseModel(f.Model)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json model: %w", err)
	}
	// model2vec takes the median token length over tokenizer.get_vocab(),
	// a token → id map: distinct strings, added tokens included.
	seen := make(map[string]bool, len(vocab)+len(f.AddedTokens))
	distinct := vocab[:0:0]
	for _, v := range vocab {
		if !seen[v] {
			seen[v] = true
			distinct = append(distinct, v)
		}
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("tokenizer.json: added token %q has id %d", a.Content, a.ID)
		}
		t.maxID = max(t.maxID, a.ID)
		if !seen[a.Content] {
			distinct = append(distinct, a.Content)
			seen[a.Content] = true
		}
		// Normalized added tokens are matched after normalisation by
		// tokenizers; they are nearly always in the model vocabulary too,
		// so the model finds them. Only raw-text tokens are split out.
		if a.Content != "" && (!a.Normalized || a.Special) {
			t.added = append(t.added, addedToken{content: a.Content, id: a.ID, lstrip: a.LStrip, rstrip: a.RStrip, singleWord: a.SingleWord})
		}
	}
	t.vocabSize = len(distinct)
	if opts.CutRunes && opts.MaxTokens > 0 {
		t.maxChars = opts.MaxTokens * medianLength(distinct)
	}
	if opts.DropUnknown {
		t.dropID = t.unkID
	}
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		t.postErr = fmt.Errorf("tokenizer.json post_processor: %w", err)
	}
	return t, nil
}

// medianLength is int(np.median(len(token) for token in vocab)), lengths
// counted in characters.
func medianLength(vocab []string) int {
	if len(vocab) == 0 {
		return 1
	}
	lens := make([]int, len(vocab))
	for i, v := range vocab {
		lens[i] = utf8.RuneCountInString(v)
	}
	sort.Ints(lens)
	m := len(lens) / 2
	if len(lens)%2 == 1 {
		return max(lens[m], 1)
	}
	return max((lens[m-1]+lens[m])/2, 1)
}

// parseModel reads the "model" object and returns the vocabulary strings.
func (t *Tokenizer) parseModel(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return nil, errors.New("missing")
	}
	var head struct {
		Type   string          `json:"type"`
		Vocab  json.RawMessage `json:"vocab"`
		Prefix *string         `json:"continuing_subword_prefix"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	kind := head.Type
	if kind == "" { // old files have no tag; tell the models apart by shape
		switch {
		case head.Prefix != nil && len(head.Vocab) > 0 && head.Vocab[0] == '{':
			kind = "WordPiece"
		case len(head.Vocab) > 0 && head.Vocab[0] == '[':
			kind = "Unigram"
		}
	}
	switch kind {
	case "WordPiece":
		return t.parseWordPiece(raw)
	case "Unigram":
		return t.parseUnigram(raw)
	default:
		return nil, fmt.Errorf("%w: tokenizer model %q (only WordPiece and Unigram are implemented)", ErrUnsupported, kind)
	}
}

// parseWordPiece reads a "WordPiece" model.
func (t *Tokenizer) parseWordPiece(raw json.RawMessage) ([]string, error) {
	var m struct {
		UnkToken string           `json:"unk_token"`
		Prefix   *string          `json:"continuing_subword_prefix"`
		MaxChars *int             `json:"max_input_chars_per_word"`
		Vocab    map[string]int32 `json:"vocab"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("WordPiece: %w", err)
	}
	if len(m.Vocab) == 0 {
		return nil, errors.New("WordPiece vocabulary is empty")
	}
	wp := &wordPiece{vocab: m.Vocab, unk: -1, prefix: "##", maxChars: 100}
	if m.Prefix != nil {
		wp.prefix = *m.Prefix
	}
	if m.MaxChars != nil {
		wp.maxChars = *m.MaxChars
	}
	vocab := make([]string, 0, len(m.Vocab))
	for tok, id := range m.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("WordPiece token %q has id %d", tok, id)
		}
		t.maxID = max(t.maxID, id)
		vocab = append(vocab, tok)
	}
	if id, ok := m.Vocab[m.UnkToken]; ok {
		wp.unk = id
		t.unkID = id
	}
	t.model = wp
	return vocab, nil
}

// parseUnigram reads a "Unigram" model. Its vocabulary is a list of
// [piece, score] pairs whose index is the id.
func (t *Tokenizer) parseUnigram(raw json.RawMessage) ([]string, error) {
	var m struct {
		UnkID        *int     `json:"unk_id"`
		ByteFallback bool     `json:"byte_fallback"`
		Vocab        [][2]any `json:"vocab"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("Unigram: %w", err)
	}
	pieces := make([]string, len(m.Vocab))
	scores := make([]float64, len(m.Vocab))
	for i, e := range m.Vocab {
		p, ok1 := e[0].(string)
		s, ok2 := e[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("Unigram vocab entry %d is %v, want [piece, score]", i, e)
		}
		pieces[i], scores[i] = p, s
	}
	u, err := newUnigram(pieces, scores, m.UnkID, m.ByteFallback)
	if err != nil {
		return nil, err
	}
	// The unknown token of Unigram models is found by unk_id (model2vec
	// drops it too: MinishLab/model2vec#354; earlier releases kept it).
	t.unkID = u.unk
	t.maxID = max(t.maxID, int32(len(pieces)-1))
	t.model = u
	return pieces, nil
}

// isNull reports an absent or null JSON value.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}
