package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Size of the synthetic vault: the zettelkasten benchmark vault has
// 13,415 notes and about 33k resolved links, 12% of them embeds, and 201
// tags.
const (
	benchNotes = 13415
	benchLinks = 33000
	benchTags  = 201
)

// syntheticGraph builds a vault of benchNotes notes with benchLinks links
// whose targets are skewed towards a few hubs (as in real vaults), some
// embeds, and one to three tags per note from a skewed tag list.
func syntheticGraph(b testing.TB) *Graph {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	notes := make([]*vault.Note, benchNotes)
	name := func(i int) string { return fmt.Sprintf("n%05d", i) }
	skewed := func(n int) int { x := r.Float64(); return int(x * x * x * float64(n)) }
	for i := range notes {
		notes[i] = &vault.Note{Path: fmt.Sprintf("f%02d/%s.md", i%50, name(i)), Kind: vault.KindMarkdown, BodyLine: 1}
		for range 1 + r.IntN(3) {
			notes[i].Tags = append(notes[i].Tags, fmt.Sprintf("tag%03d", skewed(benchTags)))
		}
	}
	for range benchLinks {
		from := r.IntN(benchNotes)
		to := skewed(benchNotes)
		if r.IntN(2) == 0 {
			to = r.IntN(benchNotes)
		}
		l := vault.Link{Raw: "[[" + name(to) + "]]", Target: name(to), Line: len(notes[from].Links) + 1}
		if r.IntN(8) == 0 {
			l.Embed, l.Raw = true, "!"+l.Raw
		}
		notes[from].Links = append(notes[from].Links, l)
	}
	for _, n := range notes {
		n.Tags = uniqueTags(n.Tags)
	}
	return New(vault.NewSnapshot(b.TempDir(), notes, nil, nil))
}

func uniqueTags(ts []string) []string {
	var out []string
	for _, t := range ts {
		dup := false
		for _, o := range out {
			dup = dup || o == t
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// BenchmarkShortestPaths searches between random pairs of the synthetic
// vault at depth 5.
func BenchmarkShortestPaths(b *testing.B) {
	g := syntheticGraph(b)
	r := rand.New(rand.NewPCG(3, 4))
	pairs := make([][2]int, 1024)
	for i := range pairs {
		pairs[i] = [2]int{r.IntN(benchNotes), r.IntN(benchNotes)}
	}
	for _, bc := range []struct {
		name string
		opt  PathOptions
	}{
		{"outbound", PathOptions{MaxDepth: 5, FollowEmbeds: true}},
		{"outbound-no-embeds", PathOptions{MaxDepth: 5}},
		{"any", PathOptions{MaxDepth: 5, Undirected: true, FollowEmbeds: true}},
		{"any-alternatives", PathOptions{MaxDepth: 5, Undirected: true, FollowEmbeds: true, MaxPaths: 11}},
		{"outbound-depth10", PathOptions{MaxDepth: 10, FollowEmbeds: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := NewPathFinder(g)
			p.ShortestPaths(0, 1, bc.opt) // build the adjacency outside the timing
			found := 0
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				pr := pairs[i%len(pairs)]
				i++
				if p.ShortestPaths(pr[0], pr[1], bc.opt).Hops >= 0 {
					found++
				}
			}
			b.ReportMetric(float64(found)/float64(i), "found/op")
		})
	}
}

// BenchmarkPathFinderBuild measures deriving the adjacency lists (once per
// snapshot and variant).
func BenchmarkPathFinderBuild(b *testing.B) {
	g := syntheticGraph(b)
	b.ReportAllocs()
	for b.Loop() {
		p := NewPathFinder(g)
		p.adjacency(dirOut, true)
		p.adjacency(dirIn, true)
	}
}

// BenchmarkTagSiblings ranks the tag siblings of random notes.
func BenchmarkTagSiblings(b *testing.B) {
	g := syntheticGraph(b)
	ix := NewTagSiblings(g.Snapshot())
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		ix.Siblings((i*7919)%benchNotes, 20)
		i++
	}
}
