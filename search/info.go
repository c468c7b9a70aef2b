package search

import (
	"context"
	"errors"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Info describes what an engine was built with, for status reports.
type Info struct {
	// PersistentIndex is true when a persistent (SQLite FTS5) index feeds
	// the BM25 signal.
	PersistentIndex bool
	// Chunks is the number of chunks (passages) over every note.
	Chunks int
	// EmbeddingModel and EmbeddingAlias identify the loaded vectors'
	// model; Vectors counts them (0 and "" without embeddings).
	EmbeddingModel, EmbeddingAlias string
	Vectors                        int
	// SignalErrors maps a configured signal that cannot run to why.
	SignalErrors map[string]string
}

// Info reports the engine's index, chunks, embeddings and broken signals.
func (e *Engine) Info() Info {
	info := Info{PersistentIndex: e.opts.Index != nil}
	for i := range e.chunks {
		info.Chunks += len(e.chunks[i])
	}
	if emb := e.dense(); emb != nil {
		m := emb.Model()
		info.EmbeddingModel, info.EmbeddingAlias, info.Vectors = m.ID, m.Alias, emb.Len()
	}
	for _, r := range e.rankers {
		if !rankers.IsUnavailable(r) {
			continue
		}
		if _, err := r.Rank(context.Background(), rankers.Request{}); err != nil && !errors.Is(err, context.Canceled) {
			if info.SignalErrors == nil {
				info.SignalErrors = map[string]string{}
			}
			info.SignalErrors[r.Name()] = err.Error()
		}
	}
	return info
}

// RemoteEmbeddings names the embedding server that every search query's
// text is sent to, when the embeddings signal runs on a remote model
// (ollama:, openai:): its model ID, which holds the host. It is "" when
// no text leaves the machine (no embeddings, the built-in model or a
// model2vec model).
func (e *Engine) RemoteEmbeddings() string {
	emb := e.dense()
	if emb == nil {
		return ""
	}
	m := emb.Model()
	for _, p := range []string{"ollama:", "openai:"} {
		if strings.HasPrefix(m.ID, p) || strings.HasPrefix(m.Alias, p) {
			return m.ID
		}
	}
	return ""
}
