package learned

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// Alias is the name users pick the vault-learned model by.
const Alias = "vault"

// TitleCopies is how many times a document's first line (the note
// title, see index.EmbedText) counts. The lexical signals weigh titles 3×
// the body; for this model 6 was better than 1 and 3 alone on
// zettelkasten and obsidian-help-en (nDCG@10 of the embeddings signal
// alone 0.43 → 0.51 → 0.53 and 0.68 → 0.71 → 0.74; docs/benchmarks.md).
const TitleCopies = 6

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

// Model is the vault-learned model: a static model whose documents count
// their first line (the note title, see index.EmbedText) titleCopies
// times, as the lexical signals weigh titles above the body.
type Model struct {
	*static.Model
	titleCopies int
}

// Embed embeds texts like the static model; a document's first line is
// repeated titleCopies times first.
func (m *Model) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	if kind == embed.Document && m.titleCopies > 1 {
		weighted := make([]string, len(texts))
		for i, t := range texts {
			title, _, _ := strings.Cut(t, "\n")
			weighted[i] = strings.Repeat(title+"\n", m.titleCopies-1) + t
		}
		texts = weighted
	}
	return m.Model.Embed(ctx, texts, kind)
}

// New returns the model of an encoded table (see [Encode]). Its ID holds
// a hash of data, so the vectors of two fits are never mixed, and texts
// are split into terms by an in query mode, as when learning.
func New(data []byte, an *analysis.Analyzer) (*Model, error) {
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
	id := fmt.Sprintf("%s:ppmi-svd-%x-t%d@%d/%d", Alias, sum[:6], TitleCopies, version, v.Table.Dim)
	m, err := static.New(id, &v.Table, tok, static.Options{RemoveComponent: v.Component})
	if err != nil {
		return nil, fmt.Errorf("learned: %w", err)
	}
	return &Model{Model: m, titleCopies: TitleCopies}, nil
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
func Load(path string, an *analysis.Analyzer) (*Model, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		var m *Model
		if m, err = New(data, an); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("learned: %w (run build-embeddings --embedding-model %s to learn it again)", err, Alias)
}
