package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	ctx := context.Background()
	root, ixp := os.Args[1], os.Args[2]
	if len(os.Args) > 3 {
		f, _ := os.Create(os.Args[3])
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	t := time.Now()
	lap := func(s string) { fmt.Printf("%-10s %v\n", s, time.Since(t)); t = time.Now() }
	ix, err := index.Open(ctx, ixp, index.NewSettings(root, false, chunk.DefaultOptions), false)
	if err != nil {
		panic(err)
	}
	lap("open")
	snap, err := vault.Load(ctx, root, vault.Options{MaxFileSize: vault.DefaultMaxFileSize})
	if err != nil {
		panic(err)
	}
	lap("load")
	st, err := ix.Sync(ctx, index.SnapshotSource(snap), nil)
	if err != nil {
		panic(err)
	}
	_ = st
	lap("sync")
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{Chunk: chunk.DefaultOptions, Index: ix})
	if err != nil {
		panic(err)
	}
	lap("engine")
	_, err = eng.Search(ctx, search.Request{Query: "zettelkasten method"})
	lap("search")
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	fmt.Println("heap MiB", m.HeapInuse>>20, err)
}
