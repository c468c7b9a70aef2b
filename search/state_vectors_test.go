package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/statefile/statefiletest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// vectorQueries are searched on the engines compared below: words of the
// generated vault and the fixture, for the dense signal alone and fused.
var vectorQueries = []string{"garden tomato", "river stone", "meeting notes", "the", "alpha beta gamma", "sourdough"}

// TestWarmStartVectors saves an engine with its vectors, damages the
// state's vector section or changes the index's vectors, and restores it
// as a warm start does (restore, adopt the vectors before any sync,
// update): the saved vectors are taken only when they are intact and the
// index's vectors unchanged, and whichever way, the engine answers as
// one built from the index now, to the bit.
func TestWarmStartVectors(t *testing.T) {
	cases := []struct {
		name string
		// section edits the state's vector section (nil: left as saved).
		section func(sec []byte, rows int) []byte
		// change edits the index after the save (nil: left as it was).
		change func(t *testing.T, ix *index.Index)
		why    string // substring of why the vectors were not adopted ("": adopted)
	}{
		{name: "saved"},
		{name: "missing", section: func([]byte, int) []byte { return nil }, why: "none saved"},
		{name: "truncated", section: func(sec []byte, _ int) []byte { return sec[:len(sec)/2] }, why: "damaged"},
		{name: "another layout", section: func(sec []byte, _ int) []byte {
			c := slices.Clone(sec)
			c[0] = 99
			return c
		}, why: "damaged"},
		{name: "row of no note", section: func(sec []byte, rows int) []byte {
			c := slices.Clone(sec)
			notes := len(c) - rows*(12+embedtest.Dim) + 4*rows
			binary.LittleEndian.PutUint32(c[notes:], 1<<30)
			return c
		}, why: "no chunk"},
		{name: "row of no chunk", section: func(sec []byte, rows int) []byte {
			c := slices.Clone(sec)
			chunks := len(c) - rows*(12+embedtest.Dim) + 8*rows
			binary.LittleEndian.PutUint32(c[chunks+4*(rows-1):], 1<<20)
			return c
		}, why: "no chunk"},
		{name: "vectors rewritten", change: negateVectors, why: "changed"},
		{name: "vectors cleared", change: func(t *testing.T, ix *index.Index) {
			if _, err := ix.Vectors().Prune(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Vectors().Clear(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, why: "changed"},
	}
	ctx := context.Background()
	an := analysis.New()
	m := &embedtest.Model{Name: "a"}
	for _, tc := range cases {
		for _, viaFile := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "/bytes", true: "/file"}[viaFile], func(t *testing.T) {
				root := t.TempDir()
				vaulttest.Generate(t, root, 120, 7)
				saved := embeddedEngine(t, root, m, m, Options{})
				ix := saved.opts.Index
				emb := saved.dense()
				if emb == nil || emb.Len() == 0 || emb.Stamp() == "" {
					t.Fatalf("no vectors, or no stamp, to save: %v", emb)
				}
				data := stateWithVectors(t, saved, func(sec []byte) []byte {
					if tc.section == nil {
						return sec
					}
					return tc.section(sec, emb.Len())
				})
				if tc.change != nil {
					tc.change(t, ix)
				}
				restored := restoreForTest(t, data, viaFile, saved.snap.Root, an)
				why := restored.AdoptSavedVectors(ctx, ix, m, "toy")
				if (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
					t.Fatalf("adopted: %q, want %q", why, tc.why)
				}
				snap, d, err := restored.Snapshot().Update(ctx, nil, vault.Options{})
				if err != nil {
					t.Fatal(err)
				}
				opts := Options{Index: ix, Embedder: m, EmbedderAlias: "toy"}
				warm, err := restored.Update(ctx, snap, d, opts)
				if err != nil {
					t.Fatal(err)
				}
				want, err := New(ctx, snap, an, opts)
				if err != nil {
					t.Fatal(err)
				}
				if diff := searchDiff(t, warm, want); diff != "" {
					t.Fatal(diff)
				}
				if tc.change != nil && searchDiff(t, saved, want) == "" {
					t.Fatal("the index change changed no answer: the case proves nothing")
				}
				if got, w := stampOf(warm), stampOf(want); got != w {
					t.Fatalf("stamp after the warm start %q, a fresh engine's %q", got, w)
				}
			})
		}
	}
}

// stampOf is the engine's vector stamp ("" without vectors).
func stampOf(e *Engine) string {
	if emb := e.dense(); emb != nil {
		return emb.Stamp()
	}
	return ""
}

// stateWithVectors is e's state with its vector section replaced by what
// edit makes of it (the checksum made again).
func stateWithVectors(t *testing.T, e *Engine, edit func([]byte) []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := e.WriteState(context.Background(), "k", &buf); err != nil {
		t.Fatal(err)
	}
	r := statefile.NewReader(buf.Bytes()[:buf.Len()-4])
	r.Raw(len(stateMagic))
	r.Uint()
	r.Text()
	fresh := r.Text()
	secs := [][]byte{r.Section(), r.Section(), r.Section(), r.Section()}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	if len(secs[3]) == 0 {
		t.Fatal("the state carries no vectors")
	}
	secs[3] = edit(secs[3])
	var out bytes.Buffer
	if _, err := writeSections(&out, "k", fresh, secs); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// restoreForTest restores data as RestoreState or, viaFile, from a state
// file as a server does.
func restoreForTest(t *testing.T, data []byte, viaFile bool, root string, an *analysis.Analyzer) *Engine {
	t.Helper()
	ctx := context.Background()
	var (
		e   *Engine
		err error
	)
	if viaFile {
		f := statefiletest.Open(t, data)
		e, err = RestoreStateFile(ctx, f, "k", root, nil, an, Options{})
	} else {
		e, err = RestoreState(ctx, data, "k", root, nil, an, Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// negateVectors stores every vector of the index negated: every cosine
// changes sign, so the dense signal ranks in reverse.
func negateVectors(t *testing.T, ix *index.Index) {
	t.Helper()
	ctx := context.Background()
	seen := map[string]bool{}
	var hashes []string
	var vecs [][]float32
	err := ix.Vectors().Each(ctx, func(ref index.ChunkRef, scale float32, vec []int8) error {
		if seen[ref.Hash] {
			return nil
		}
		seen[ref.Hash] = true
		v := make([]float32, len(vec))
		for i, x := range vec {
			v[i] = -scale * float32(x)
		}
		hashes, vecs = append(hashes, ref.Hash), append(vecs, v)
		return nil
	})
	if err == nil {
		err = ix.Vectors().Put(ctx, hashes, vecs)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// searchDiff compares the two engines' answers to vectorQueries, dense
// signal alone and fused, by note and by block: "" when equal to the bit.
func searchDiff(t *testing.T, got, want *Engine) string {
	t.Helper()
	for _, q := range vectorQueries {
		for _, req := range []Request{
			{Query: q, Limit: 30, Signals: []string{rankers.SignalEmbeddings}},
			{Query: q, Limit: 30, Signals: []string{rankers.SignalEmbeddings}, Granularity: GranularityBlock},
			{Query: q, Limit: 10},
		} {
			g, w := mustSearch(t, got, req), mustSearch(t, want, req)
			if !reflect.DeepEqual(g, w) {
				return "query " + q + ": answers differ"
			}
		}
	}
	return ""
}
