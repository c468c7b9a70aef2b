package search_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// loadEngine builds an engine from the files at root.
func loadEngine(t *testing.T, root string, an *analysis.Analyzer) *search.Engine {
	t.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := search.New(ctx, snap, an, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// applyPaths brings e up to date with the files at paths, as a live
// change does.
func applyPaths(t *testing.T, e *search.Engine, paths []string) *search.Engine {
	t.Helper()
	ctx := context.Background()
	next, d, err := e.Snapshot().Update(ctx, paths, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.Update(ctx, next, d, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// encodeState is the engine's state as WriteState writes it, in memory.
func encodeState(ctx context.Context, e *search.Engine) ([]byte, error) {
	var buf bytes.Buffer
	n, err := e.WriteState(ctx, stateKey, &buf)
	if err == nil && n != int64(buf.Len()) {
		err = fmt.Errorf("WriteState says %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes(), err
}
