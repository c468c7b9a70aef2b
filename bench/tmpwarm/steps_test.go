package main

import (
	"context"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestSteps(t *testing.T) {
	ctx := context.Background()
	snap, _ := vault.Load(ctx, "/tmp/zk", vault.Options{MaxFileSize: vault.DefaultMaxFileSize})
	for r := 0; r < 3; r++ {
		s := time.Now()
		ns := vault.NewSnapshot(snap.Root, snap.Notes, snap.Attachments, nil)
		t.Log("snapshot+resolve", time.Since(s))
		s = time.Now()
		chunks := make([][]chunk.Chunk, len(snap.Notes))
		for i, n := range snap.Notes {
			chunks[i] = chunk.Split(n, chunk.DefaultOptions)
		}
		t.Log("chunks", time.Since(s))
		s = time.Now()
		rankers.NewTFIDF(ctx, analysis.New(), snap.Notes, chunks, rankers.DefaultFieldWeights)
		t.Log("tfidf", time.Since(s))
		s = time.Now()
		graph.New(ns)
		t.Log("graph", time.Since(s))
		s = time.Now()
		vault.Load(ctx, "/tmp/zk", vault.Options{MaxFileSize: vault.DefaultMaxFileSize})
		t.Log("load", time.Since(s))
		s = time.Now()
		snap.Changed(ctx)
		t.Log("changed(walk)", time.Since(s))
	}
}
