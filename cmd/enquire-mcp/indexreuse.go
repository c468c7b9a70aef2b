package main

import (
	"context"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// noteMemo keeps the Markdown notes the index command's sync read, so
// that the engine built after it (prepareState) takes them instead of
// reading and parsing every file a second time.
type noteMemo struct {
	mu    sync.Mutex
	notes map[string]memoNote
}

type memoNote struct {
	file  vault.File
	note  *vault.Note
	warns []vault.Warning
}

// wrap records what read returns for each Markdown file.
func (m *noteMemo) wrap(read func(context.Context, vault.File) (*vault.Note, []vault.Warning)) func(context.Context, vault.File) (*vault.Note, []vault.Warning) {
	return func(ctx context.Context, f vault.File) (*vault.Note, []vault.Warning) {
		n, w := read(ctx, f)
		if vault.IsNote(f.Path) {
			m.mu.Lock()
			if m.notes == nil {
				m.notes = map[string]memoNote{}
			}
			m.notes[f.Path] = memoNote{f, n, w}
			m.mu.Unlock()
		}
		return n, w
	}
}

// reuse is vault.Options.Reuse: the recorded note of f when the file
// still has the size and time it had when it was read.
func (m *noteMemo) reuse(f vault.File) (*vault.Note, []vault.Warning, bool) {
	m.mu.Lock()
	got, ok := m.notes[f.Path]
	m.mu.Unlock()
	if !ok || got.file.Size != f.Size || !got.file.ModTime.Equal(f.ModTime) {
		return nil, nil, false
	}
	return got.note, got.warns, true
}

// stateFresh reports whether the engine state next to ix is current for
// the vault as src walked it and the index as it is now: then a start
// from it reads no file, syncs nothing and has nothing to save, and the
// index command need not load it to find that out (only its header is
// read).
func (v *vaultFlags) stateFresh(ctx context.Context, ix *index.Index, root string, rules *privacy.Rules, src index.Source) bool {
	mem, vectors, err := ix.Stamps(ctx)
	if err != nil || mem == "" {
		return false
	}
	key := service.StateKey(root, vault.Options{MaxFileSize: v.maxFileSize, PDFs: v.pdfs, Filter: service.VaultFilter(rules)}, search.Options{Chunk: chunk.DefaultOptions}, v.ocr.key())
	fresh := search.FreshStamp(src.WalkedNotes, src.WalkedAttachments, mem, vectors)
	ok, err := search.StateFresh(index.StatePath(ix.Path()), key, fresh)
	return err == nil && ok
}
