package search_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/statefile/statefiletest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestRestoreStateFile: an engine restored from a mapped state file (and
// the engines updated from it) answers exactly as the saved engine, with
// snippets, passages and chunks, and the passage and chunk text it shows
// was read from the file, not through the mapping.
func TestRestoreStateFile(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	for name, root := range stateVaults(t) {
		t.Run(name, func(t *testing.T) {
			saved := loadEngine(t, root, an)
			f := writeStateFile(t, saved)
			got, err := search.RestoreStateFile(ctx, f, stateKey, saved.Snapshot().Root, nil, an, search.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f.Evict()
			if d := exactDiff(ctx, got, saved); d != "" {
				t.Fatal(d)
			}
			if d := passageDiff(ctx, f, got, saved); d != "" {
				t.Fatal(d)
			}
			// Live changes: unchanged notes still live in the mapping.
			m := vaulttest.NewMutator(t, root, 7)
			paths := append(m.Step(), m.Step()...)
			got, saved = applyPaths(t, got, paths), applyPaths(t, saved, paths)
			if d := enginetest.Diff(ctx, got, saved, enginetest.Queries); d != "" {
				t.Fatal(d)
			}
			if d := passageDiff(ctx, f, got, saved); d != "" {
				t.Fatal("after live changes: " + d)
			}
		})
	}
}

func writeStateFile(t *testing.T, e *search.Engine) *statefile.File {
	t.Helper()
	data, err := encodeState(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	f := statefiletest.Open(t, data)
	return f
}

// passageDiff compares got's and want's hits with passages and every
// passage's chunk, and checks that no text got shows lies in f's mapping.
func passageDiff(ctx context.Context, f *statefile.File, got, want *search.Engine) string {
	three, shown := 3, 0
	for _, q := range enginetest.Queries {
		req := search.Request{Query: q, Limit: 10, Granularity: search.GranularityNote, MaxPassages: &three}
		a, errA := got.Search(ctx, req)
		b, errB := want.Search(ctx, req)
		if errA != nil || errB != nil {
			return fmt.Sprintf("query %q: %v, %v", q, errA, errB)
		}
		if !reflect.DeepEqual(a.Hits, b.Hits) {
			return fmt.Sprintf("query %q: hits with passages differ", q)
		}
		for _, h := range a.Hits {
			for _, p := range h.Passages {
				ca, errA := got.GetChunk(ctx, p.ChunkID, 1)
				cb, errB := want.GetChunk(ctx, p.ChunkID, 1)
				if errA != nil || errB != nil || !reflect.DeepEqual(ca, cb) {
					return fmt.Sprintf("chunk %s: %v, %v, or the views differ", p.ChunkID, errA, errB)
				}
				for _, s := range []string{p.Text, ca.Text} {
					if inMapping(f, s) {
						return fmt.Sprintf("query %q: passage text of %s read through the mapping", q, h.Path)
					}
				}
				shown++
			}
		}
	}
	if shown == 0 {
		return "no passage shown: the test proves nothing"
	}
	return ""
}

func inMapping(f *statefile.File, s string) bool {
	if len(s) == 0 || len(f.Data) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(&f.Data[0]))
	return p >= base && p < base+uintptr(len(f.Data))
}

// TestRestoreStateFileRejects: a damaged or truncated state file (the
// checksum read from the file, not the mapping) is statefile.ErrCorrupt.
func TestRestoreStateFileRejects(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	eng := loadEngine(t, vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")), an)
	data, err := encodeState(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		b := append([]byte(nil), data...)
		b[at] ^= 0x10
		return b
	}
	cases := map[string][]byte{
		"bit flipped in the notes": flip(len(data) / 3),
		"bit flipped near the end": flip(len(data) - 6),
		"checksum flipped":         flip(len(data) - 1),
		"truncated by 1":           data[:len(data)-1],
		"truncated by half":        data[:len(data)/2],
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			f := statefiletest.Open(t, b)
			if _, err := search.RestoreStateFile(ctx, f, stateKey, eng.Snapshot().Root, nil, an, search.Options{}); !errors.Is(err, statefile.ErrCorrupt) {
				t.Fatalf("got %v, want statefile.ErrCorrupt", err)
			}
		})
	}
}
