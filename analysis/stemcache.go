package analysis

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// stemShards is the number of independently locked parts of a stemCache.
const stemShards = 64

// stemCache maps folded words to stems for every ranker, the snippet
// highlighter and feedback, so it is read on every word of every query and
// feedback note. It is a set of mutex-guarded Go maps picked by a hash of
// the word: under many concurrent searches over a vault-sized vocabulary a
// sync.Map lookup (a hash-trie walk over interface keys) cost several
// times more.
type stemCache struct {
	seed   maphash.Seed
	n      atomic.Int64 // entries, bounded by maxCached
	shards [stemShards]struct {
		mu sync.RWMutex
		m  map[string]string
	}
}

func newStemCache() *stemCache {
	c := &stemCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = map[string]string{}
	}
	return c
}

// get returns the cached stem of word.
func (c *stemCache) get(word string) (string, bool) {
	sh := &c.shards[maphash.String(c.seed, word)%stemShards]
	sh.mu.RLock()
	s, ok := sh.m[word]
	sh.mu.RUnlock()
	return s, ok
}

// put caches stem for word unless the cache is full.
func (c *stemCache) put(word, stem string) {
	if c.n.Load() >= maxCached {
		return
	}
	sh := &c.shards[maphash.String(c.seed, word)%stemShards]
	sh.mu.Lock()
	if _, ok := sh.m[word]; !ok {
		sh.m[word] = stem
		c.n.Add(1)
	}
	sh.mu.Unlock()
}
