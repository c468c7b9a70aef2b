package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// pageCacheSize is how many fused lists an engine keeps for cursors. A
// page after the first is cut from the cached list instead of re-running
// the rankers; an evicted list (or one of an older engine: the vault
// changed) is computed again, and the page then comes from the new list.
const pageCacheSize = 16

// A cursor is base64url of: the request's 16-byte fingerprint (query and
// everything that shapes the fused list), then the offset of the next
// hit (uvarint). A cursor of another query or other filters fails the
// fingerprint check.
const fingerprintLen = 16

// page is where a search starts in its fused list.
type page struct {
	key    [fingerprintLen]byte
	offset int
	paging bool // the request carried a cursor: say where to go on
}

// pageCache is a small LRU of fused lists, most recently used last.
type pageCache struct {
	mu      sync.Mutex
	entries []pageEntry
}

type pageEntry struct {
	key  [fingerprintLen]byte
	list *fusedList
}

func (c *pageCache) get(key [fingerprintLen]byte) *fusedList {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, en := range c.entries {
		if en.key == key {
			c.entries = append(slices.Delete(c.entries, i, i+1), en)
			return en.list
		}
	}
	return nil
}

func (c *pageCache) put(key [fingerprintLen]byte, l *fusedList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(en pageEntry) bool { return en.key == key })
	if len(c.entries) >= pageCacheSize {
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	c.entries = append(c.entries, pageEntry{key: key, list: l})
}

// fingerprint identifies what the fused list depends on; limit,
// max_passages and expand only shape the page, so they may change from
// page to page.
func fingerprint(req Request) [fingerprintLen]byte {
	shape := struct {
		Q, Folder, Tag, Granularity, Model string
		MinSignals                         int
		Boost                              bool
		Frontmatter                        map[string]any
		Signals                            []string
		Weights                            map[string]float64
		MinSimilarity                      float64
		Recency, Importance                *float64
		Types                              []string
		Rerank                             *bool
		IncludeExcluded                    bool
	}{req.Query, req.Folder, req.Tag, req.Granularity, req.EmbeddingModel, req.MinSignals, req.GraphBoost,
		req.Frontmatter, req.Signals, req.Weights, req.MinSimilarity, req.RecencyWeight, req.ImportanceWeight, req.Types, req.Rerank,
		req.IncludeExcluded}
	raw, _ := json.Marshal(shape) // maps marshal with sorted keys
	sum := sha256.Sum256(raw)
	var key [fingerprintLen]byte
	copy(key[:], sum[:])
	return key
}

// openPage reads the request's cursor.
func (e *Engine) openPage(req Request) (page, error) {
	p := page{key: fingerprint(req), paging: req.Cursor != nil}
	if req.Cursor == nil || *req.Cursor == "" {
		return p, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*req.Cursor)
	if err != nil || len(raw) <= fingerprintLen {
		return p, invalid("cursor %s is not a next_cursor this server returned", quoted(*req.Cursor))
	}
	if !bytes.Equal(raw[:fingerprintLen], p.key[:]) {
		return p, invalid("cursor belongs to another query or other filters: pass it with the same query, folder, tag, filter_frontmatter, min_signals, granularity, graph_boost, min_similarity, recency_weight, importance_weight, types and rerank, or start again without it")
	}
	off, n := binary.Uvarint(raw[fingerprintLen:])
	if n <= 0 || n != len(raw)-fingerprintLen || off > 1<<20 {
		return p, invalid("cursor %s is not a next_cursor this server returned", quoted(*req.Cursor))
	}
	p.offset = int(off)
	return p, nil
}

// fusedFor returns the fused list of a request: from the cache when a
// later page asks for it, else computed (and cached when paging).
func (e *Engine) fusedFor(ctx context.Context, req Request, filter FrontmatterFilter, p page) (*fusedList, error) {
	if p.paging {
		if l := e.pages.get(p.key); l != nil {
			return l, nil
		}
	}
	l, err := e.fuse(ctx, req, filter)
	if err == nil && p.paging {
		e.pages.put(p.key, l)
	}
	return l, err
}

// cut returns a copy of the page's part of the fused list (callers
// annotate it in place; the cached list stays as it was) and sets the
// result's NextCursor when paging and more remain.
func (p page) cut(fused []rankers.Fused, limit int, res *Result) []rankers.Fused {
	lo := min(p.offset, len(fused))
	hi := min(lo+limit, len(fused))
	if p.paging && hi < len(fused) {
		buf := binary.AppendUvarint(p.key[:], uint64(hi))
		res.NextCursor = base64.RawURLEncoding.EncodeToString(buf)
	}
	return slices.Clone(fused[lo:hi])
}
