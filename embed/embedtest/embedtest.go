// Package embedtest provides a deterministic toy embedder for tests: a few
// concepts, each a dimension, with synonyms mapped onto it, so that
// "automobile" finds a note about cars where no word is shared.
package embedtest

import (
	"context"
	"hash/fnv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Concepts maps words to the dimension of their concept.
var concepts = map[string]int{
	"car": 0, "cars": 0, "automobile": 0, "vehicle": 0,
	"bread": 1, "sourdough": 1, "levain": 1, "loaf": 1, "baking": 1,
	"earthquake": 2, "earthquakes": 2, "tectonic": 2, "tectonics": 2, "subduction": 2, "quake": 2,
	"goroutine": 3, "goroutines": 3, "concurrency": 3, "threads": 3, "parallelism": 3,
	"star": 4, "galaxy": 4, "cosmos": 4, "holes": 4, "spacetime": 4,
}

// Dim is the dimension of Model's vectors.
const Dim = 12

// Model is the toy embedder. Name changes its ID (two "different models").
// Like every Embedder it is safe for concurrent use; set the fields before
// sharing it.
type Model struct {
	Name string
	// Calls counts Embed calls; read it with Calls.Load().
	Calls atomic.Int64
	// Fail, when set, is returned by Embed.
	Fail error
	// WrongDim makes Embed return vectors of this dimension.
	WrongDim int
}

// ID implements embed.Embedder.
func (m *Model) ID() string { return "test:" + m.Name + "/12" }

// Dim implements embed.Embedder.
func (m *Model) Dim() int { return Dim }

// Embed implements embed.Embedder: concept words count fully, other words
// are hashed into the remaining dimensions with a small weight.
func (m *Model) Embed(ctx context.Context, texts []string, _ embed.Kind) ([][]float32, error) {
	m.Calls.Add(1)
	if m.Fail != nil {
		return nil, m.Fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		dim := Dim
		if m.WrongDim > 0 {
			dim = m.WrongDim
		}
		v := make([]float32, dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if c, ok := concepts[w]; ok && c < dim {
				v[c]++
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[(5+int(h.Sum32()%uint32(max(1, dim-5))))%dim] += 0.05
		}
		embed.Normalize(v)
		out[i] = v
	}
	return out, ctx.Err()
}
