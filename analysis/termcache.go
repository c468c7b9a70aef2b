package analysis

// TermCache remembers the term of every word it has analysed, so that
// text whose words repeat (a search reading a hundred notes) normalises
// and stems each distinct word once. It holds on to the words it has
// seen (substrings of the texts given), so it is meant for one task; it
// is not safe for concurrent use.
type TermCache struct {
	an    *Analyzer
	terms map[string]string // word as written → Term(word)
}

// NewTermCache returns an empty cache over a.
func (a *Analyzer) NewTermCache() *TermCache {
	return &TermCache{an: a, terms: map[string]string{}}
}

// Each is [Analyzer.Each], with the same terms in the same order.
func (c *TermCache) Each(text string, mode Mode, fn func(term string, start, end int)) {
	c.an.each(text, mode, c.term, fn)
}

func (c *TermCache) term(word string) string {
	if t, ok := c.terms[word]; ok {
		return t
	}
	t := c.an.Term(word)
	c.terms[word] = t
	return t
}
