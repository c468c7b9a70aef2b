package tools

import (
	"sync"

	"github.com/enquire-mcp/enquire-mcp/fmsearch"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/textsearch"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// metaCache holds what the metadata and text tools derive from one
// engine's snapshot (tag counts, the frontmatter index, vault stats,
// the text search index). Each part is built on first use, once per engine:
// a write swaps in a new engine and the next call rebuilds for it.
type metaCache struct{ perEngine[metaDerived] }

// metaDerived is the derived data of one engine; immutable once built.
type metaDerived struct {
	eng *search.Engine

	tagsOnce sync.Once
	tags     *vault.Tags

	fmOnce sync.Once
	fm     *fmsearch.Searcher

	statsOnce sync.Once
	stats     *vaultStats

	textOnce sync.Once
	text     *textsearch.Searcher
}

// get returns the derived data of e, replacing the cached engine's.
func (c *metaCache) get(e *search.Engine) *metaDerived {
	return c.derive(e, func(e *search.Engine) *metaDerived { return &metaDerived{eng: e} })
}

// tagIndex counts the snapshot's tags.
func (d *metaDerived) tagIndex() *vault.Tags {
	d.tagsOnce.Do(func() { d.tags = vault.NewTags(d.eng.Snapshot()) })
	return d.tags
}

// frontmatterIndex returns the frontmatter search index of the snapshot.
func (d *metaDerived) frontmatterIndex() *fmsearch.Searcher {
	d.fmOnce.Do(func() { d.fm = fmsearch.New(d.eng.Snapshot()) })
	return d.fm
}

// vaultStats computes the snapshot's statistics.
func (d *metaDerived) vaultStats() *vaultStats {
	d.statsOnce.Do(func() { d.stats = computeStats(d.eng, d.tagIndex()) })
	return d.stats
}

// textIndex returns the text search index of the snapshot.
func (d *metaDerived) textIndex() *textsearch.Searcher {
	d.textOnce.Do(func() { d.text = textsearch.New(d.eng.Snapshot()) })
	return d.text
}
