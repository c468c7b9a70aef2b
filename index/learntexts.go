package index

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/chunk"
)

// VaultModelPath is where the word vectors learned from the vault of the
// index at path are kept (see package embed/learned): next to it, so that
// removing an index removes them too.
func VaultModelPath(path string) string { return path + ".words" }

// EmbedTexts returns the text of every chunk of src (EmbedText, the text
// the vectors are made of) that the index would embed: notes the privacy
// rules hide, and files that cannot be read, give none. The order is the
// order of src.Files, so equal sources give equal texts.
func (v *Vectors) EmbedTexts(ctx context.Context, src Source) ([]string, error) {
	var texts []string
	for _, f := range src.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if src.Privacy != nil && src.Privacy.Excluded(f.Path) {
			continue
		}
		n, _ := safeNote(ctx, src.Note, f)
		if n == nil || (src.Privacy != nil && src.Privacy.Private(n)) {
			continue
		}
		for _, c := range chunk.Split(n, v.ix.settings.Chunk) {
			texts = append(texts, EmbedText(n, c))
		}
	}
	return texts, nil
}
