package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Special is what a tokenizer.json post-processor puts around encodings,
// for models that take special tokens (transformers; model2vec pools
// without them).
type Special struct {
	// CLS and SEP are the ids put before and after a sequence: [CLS] and
	// [SEP] for BERT, <s> and </s> for RoBERTa and XLM-R.
	CLS, SEP int32
	// PairSeps is the number of SEP tokens between the two sequences of a
	// pair: 1 for BERT ([CLS] A [SEP] B [SEP]), 2 for RoBERTa
	// (<s> A </s></s> B </s>).
	PairSeps int
	// SecondTypeID is the token type id of the second sequence and its
	// closing SEP: 1 for BERT, 0 for RoBERTa.
	SecondTypeID int64
}

// ErrNoSpecial is Special's error for a tokenizer.json without a
// post-processor that adds special tokens.
var ErrNoSpecial = errors.New("tokenizer.json has no post-processor adding special tokens")

// Special returns the post-processor's special tokens: an error wrapping
// ErrUnsupported for a post-processor of another shape, ErrNoSpecial
// without one. Parse does not fail on these: callers that pool without
// special tokens (model2vec) never ask.
func (t *Tokenizer) Special() (Special, error) {
	if t.postErr != nil {
		return Special{}, t.postErr
	}
	if t.post.PairSeps == 0 {
		return Special{}, ErrNoSpecial
	}
	return t.post, nil
}

// MaxID is the largest id the tokenizer can produce.
func (t *Tokenizer) MaxID() int32 { return t.maxID }

// VocabSize is the number of distinct token strings, added tokens
// included.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// UnknownID is the model's unknown token, or -1.
func (t *Tokenizer) UnknownID() int32 { return t.unkID }

// parsePostProcessor reads the "post_processor" object: BertProcessing,
// RobertaProcessing, a TemplateProcessing of the same shapes, or a
// Sequence holding one of them. Absent is not an error.
func parsePostProcessor(raw json.RawMessage) (Special, error) {
	if isNull(raw) {
		return Special{}, nil
	}
	var p struct {
		Type       string            `json:"type"`
		CLS        [2]any            `json:"cls"`
		SEP        [2]any            `json:"sep"`
		Processors []json.RawMessage `json:"processors"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return Special{}, err
	}
	switch p.Type {
	case "BertProcessing", "RobertaProcessing":
		cls, ok1 := p.CLS[1].(float64)
		sep, ok2 := p.SEP[1].(float64)
		if !ok1 || !ok2 {
			return Special{}, fmt.Errorf("%s: cls and sep must be [token, id]", p.Type)
		}
		if p.Type == "BertProcessing" {
			return Special{CLS: int32(cls), SEP: int32(sep), PairSeps: 1, SecondTypeID: 1}, nil
		}
		return Special{CLS: int32(cls), SEP: int32(sep), PairSeps: 2}, nil
	case "TemplateProcessing":
		return parseTemplate(raw)
	case "Sequence":
		for _, sub := range p.Processors {
			if s, err := parsePostProcessor(sub); err != nil || s.PairSeps > 0 {
				return s, err
			}
		}
		return Special{}, nil
	default: // ByteLevel and others add no tokens
		return Special{}, nil
	}
}

// templatePiece is one element of a TemplateProcessing template.
type templatePiece struct {
	Special *struct {
		ID     string `json:"id"`
		TypeID int64  `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int64  `json:"type_id"`
	} `json:"Sequence"`
}

// parseTemplate reads a TemplateProcessing of the form
// single = X $A Y, pair = X $A Y{1,2} $B Y, each special a single id.
func parseTemplate(raw json.RawMessage) (Special, error) {
	var tp struct {
		Single   []templatePiece `json:"single"`
		Pair     []templatePiece `json:"pair"`
		Specials map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := json.Unmarshal(raw, &tp); err != nil {
		return Special{}, err
	}
	id := func(p templatePiece) (int32, bool) {
		if p.Special == nil {
			return 0, false
		}
		st, ok := tp.Specials[p.Special.ID]
		if !ok || len(st.IDs) != 1 {
			return 0, false
		}
		return st.IDs[0], true
	}
	bad := fmt.Errorf("%w: TemplateProcessing other than [CLS] $A [SEP] (pair: [CLS] $A [SEP]+ $B [SEP])", ErrUnsupported)
	if len(tp.Single) != 3 || tp.Single[1].Sequence == nil {
		return Special{}, bad
	}
	cls, ok1 := id(tp.Single[0])
	sep, ok2 := id(tp.Single[2])
	n := len(tp.Pair)
	if !ok1 || !ok2 || (n != 5 && n != 6) || tp.Pair[1].Sequence == nil || tp.Pair[n-2].Sequence == nil {
		return Special{}, bad
	}
	for _, k := range append([]int{2, n - 1}, map[bool][]int{true: {3}}[n == 6]...) {
		if got, ok := id(tp.Pair[k]); !ok || got != sep {
			return Special{}, bad
		}
	}
	if got, ok := id(tp.Pair[0]); !ok || got != cls {
		return Special{}, errors.Join(bad, errors.New("pair template starts with another token"))
	}
	return Special{CLS: cls, SEP: sep, PairSeps: n - 4, SecondTypeID: tp.Pair[n-2].Sequence.TypeID}, nil
}
