package learned

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// Alias is the name users pick the vault-learned model by.
const Alias = "vault"

// version counts changes to how vectors are learned or texts embedded:
// bump it so vectors of an older learner are never mixed with new ones.
const version = 1

// Encode returns v in the static vectors file format.
func Encode(v *static.Vectors) ([]byte, error) {
	var b bytes.Buffer
	if err := static.Encode(&b, v); err != nil {
		return nil, fmt.Errorf("learned: %w", err)
	}
	return b.Bytes(), nil
}

// New returns the model of an encoded table (see [Encode]). Its ID holds
// a hash of data, so the vectors of two fits are never mixed, and texts
// are split into terms by an in query mode, as when learning.
func New(data []byte, an *analysis.Analyzer) (*static.Model, error) {
	v, err := static.Decode(string(data))
	if err != nil {
		return nil, fmt.Errorf("learned: %w", err)
	}
	rows := make(map[string]int, len(v.Words))
	for r, w := range v.Words {
		if _, dup := rows[w]; !dup {
			rows[w] = r
		}
	}
	tok := func(text string, emit func(int)) {
		an.Each(text, analysis.Query, func(term string, _, _ int) {
			if r, ok := rows[term]; ok {
				emit(r)
			}
		})
	}
	sum := sha256.Sum256(data)
	id := fmt.Sprintf("%s:ppmi-svd-%x@%d/%d", Alias, sum[:6], version, v.Table.Dim)
	m, err := static.New(id, &v.Table, tok, static.Options{RemoveComponent: v.Component})
	if err != nil {
		return nil, fmt.Errorf("learned: %w", err)
	}
	return m, nil
}

// Save writes an encoded table to path atomically (a temporary file
// renamed over it), readable by the user only.
func Save(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("learned: save: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("learned: save: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("learned: save %s: %w", path, err)
	}
	return nil
}

// Load opens the model saved at path.
func Load(path string, an *analysis.Analyzer) (*static.Model, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		var m *static.Model
		if m, err = New(data, an); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("learned: %w (run build-embeddings --embedding-model %s to learn it again)", err, Alias)
}
