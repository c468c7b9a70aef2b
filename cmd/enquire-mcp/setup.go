package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed/models"
)

// runSetup gets a vault ready in one go: the index, then the vectors, then
// the client config to paste. Both steps are incremental, so running it
// again only does what changed.
func runSetup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("setup", "--vault PATH [--include-pdfs [--ocr]] [--embedding-model M] [--no-embeddings] [--client NAME]", stderr)
	var vf vaultFlags
	vf.registerIndex(fs)
	vf.ocr.register(fs)
	model := fs.String("embedding-model", "", "embedding model for the vectors (default: the one the index's vectors were made with, else "+models.DefaultAlias+"; see build-embeddings)")
	noEmbed := fs.Bool("no-embeddings", false, "index only, no vectors")
	client := fs.String("client", "claude-desktop", "the client whose config to print: "+strings.Join(clientNames(), ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	root, err := vf.realRoot()
	if err != nil {
		return err
	}
	// index keeps the content flags given here; build-embeddings and the
	// client's serve follow them, so neither repeats them.
	common := []string{"--vault", root}
	if vf.indexFile != "" {
		common = append(common, "--index-file", vf.indexFile)
	}
	indexArgs := slices.Clone(common)
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "vault", "index-file", "embedding-model", "no-embeddings", "client":
		case "exclude-glob", "read-paths":
			for _, g := range *f.Value.(*listFlag) {
				indexArgs = append(indexArgs, "--"+f.Name+"="+g)
			}
		default:
			indexArgs = append(indexArgs, "--"+f.Name+"="+f.Value.String())
		}
	})
	fmt.Fprintf(stdout, "1. index\n")
	if err := runIndex(ctx, indexArgs, stdout, stderr); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if !*noEmbed {
		embedArgs := slices.Clone(common)
		if *model != "" {
			embedArgs = append(embedArgs, "--embedding-model", *model)
		}
		fmt.Fprintf(stdout, "2. embeddings\n")
		if err := runBuildEmbeddings(ctx, embedArgs, stdout, stderr); err != nil {
			return fmt.Errorf("embeddings: %w", err)
		}
	}
	env, err := hostEnv()
	if err != nil {
		return err
	}
	var extra []string
	if vf.indexFile != "" {
		extra = append(extra, "--index-file", vf.indexFile)
	}
	cfg, err := buildClientConfig(*client, root, "", false, extra, env)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "done: serve finds this index by itself. Next, connect your client (other clients: enquire-mcp configure --client NAME):\n")
	printClientConfig(stdout, *client, cfg)
	return nil
}
