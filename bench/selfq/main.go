// Command selfq writes a vault's self-supervised known-item queries
// (selftune.Build: piped link texts, headings or aliases; or, for
// experiments, queries taken from each note's own text: title, sentence,
// span, terms, rsent) as a BEIR-layout
// dataset that `enquire-mcp eval` reads: queries.jsonl, qrels/test.tsv, a
// vault file naming the vault, and sources.tsv (query id, the note the
// text came from) for experiments that drop the linking note. Write the
// sets outside the repository: they hold vault text. With -mask the
// vault file names a copy of the vault's notes written under the output
// folder, each query's text cut out of its answer note (held-out span
// queries, inverse-cloze style).
//
//	go run ./bench/selfq -vault DIR -kind link -max 300 -out /tmp/sets/zk-link
//	go run ./bench/selfq -vault DIR -kind rsent -mask -out /tmp/sets/zk-rsent
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/selftune"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	dir := flag.String("vault", "", "vault folder")
	kind := flag.String("kind", selftune.KindLink, "link, heading, alias, title, sentence, span, terms or rsent")
	mask := flag.Bool("mask", false, "write a copy of the notes with each query cut out of its answer (vaultcopy/) and evaluate on it")
	max := flag.Int("max", 300, "most queries")
	out := flag.String("out", "", "output dataset folder")
	flag.Parse()
	if err := run(*dir, *kind, *max, *out, *mask); err != nil {
		fmt.Fprintln(os.Stderr, "selfq:", err)
		os.Exit(1)
	}
}

func run(dir, kind string, max int, out string, mask bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	snap, err := vault.Load(context.Background(), abs, vault.Options{})
	if err != nil {
		return err
	}
	qs := selftune.Build(snap, kind, max)
	if slices.Contains(bodyKinds, kind) {
		qs = buildBody(snap, kind, max)
	}
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
	if mask {
		copyDir, err := filepath.Abs(filepath.Join(out, "vaultcopy"))
		if err != nil {
			return err
		}
		if err := writeMasked(snap, abs, copyDir, qs); err != nil {
			return err
		}
		abs = copyDir
	}
	for name, text := range map[string]string{"qrels/test.tsv": rel, "sources.tsv": src, "vault": abs + "\n"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
