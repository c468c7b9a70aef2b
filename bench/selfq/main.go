// Command selfq writes a vault's self-supervised known-item queries
// (selftune.Build: piped link texts, headings or aliases) as a BEIR-layout
// dataset that `enquire-mcp eval` reads: queries.jsonl, qrels/test.tsv, a
// vault file naming the vault, and sources.tsv (query id, the note the
// text came from) for experiments that drop the linking note. Write the
// sets outside the repository: they hold vault text.
//
//	go run ./bench/selfq -vault DIR -kind link -max 300 -out /tmp/sets/zk-link
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/selftune"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	dir := flag.String("vault", "", "vault folder")
	kind := flag.String("kind", selftune.KindLink, "link, heading or alias")
	max := flag.Int("max", 300, "most queries")
	out := flag.String("out", "", "output dataset folder")
	flag.Parse()
	if err := run(*dir, *kind, *max, *out); err != nil {
		fmt.Fprintln(os.Stderr, "selfq:", err)
		os.Exit(1)
	}
}

func run(dir, kind string, max int, out string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	snap, err := vault.Load(context.Background(), abs, vault.Options{})
	if err != nil {
		return err
	}
	qs := selftune.Build(snap, kind, max)
	if err := os.MkdirAll(filepath.Join(out, "qrels"), 0o755); err != nil {
		return err
	}
	qf, err := os.Create(filepath.Join(out, "queries.jsonl"))
	if err != nil {
		return err
	}
	defer qf.Close()
	rel := "query-id\tcorpus-id\tscore\n"
	src := ""
	enc := json.NewEncoder(qf)
	for i, q := range qs {
		id := fmt.Sprintf("%s%d", kind[:1], i)
		if err := enc.Encode(map[string]string{"_id": id, "text": q.Text}); err != nil {
			return err
		}
		rel += fmt.Sprintf("%s\t%s\t1\n", id, snap.Notes[q.Target].Path)
		src += fmt.Sprintf("%s\t%s\n", id, snap.Notes[q.Source].Path)
	}
	fmt.Printf("%s: %d %s queries\n", out, len(qs), kind)
	for name, text := range map[string]string{"qrels/test.tsv": rel, "sources.tsv": src, "vault": abs + "\n"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
