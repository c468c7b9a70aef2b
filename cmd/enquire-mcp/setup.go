package main

import (
	"context"
	"fmt"
	"io"
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
	model := fs.String("embedding-model", models.DefaultAlias, "embedding model for the vectors (see build-embeddings)")
	noEmbed := fs.Bool("no-embeddings", false, "index only, no vectors")
	client := fs.String("client", "claude-desktop", "the client whose config to print: "+strings.Join(clientNames(), ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := vf.checkContent(); err != nil {
		return err
	}
	root, err := vf.realRoot()
	if err != nil {
		return err
	}
	common := []string{"--vault", root, "--max-file-size", fmt.Sprint(vf.maxFileSize)}
	if vf.indexFile != "" {
		common = append(common, "--index-file", vf.indexFile)
	}
	if vf.pdfs {
		common = append(common, "--include-pdfs")
	}
	ocrArgs := vf.ocr.args()
	common = append(common, ocrArgs...)
	fmt.Fprintf(stdout, "1. index\n")
	if err := runIndex(ctx, common, stdout, stderr); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if !*noEmbed {
		fmt.Fprintf(stdout, "2. embeddings (%s)\n", *model)
		if err := runBuildEmbeddings(ctx, append(common, "--embedding-model", *model), stdout, stderr); err != nil {
			return fmt.Errorf("embeddings: %w", err)
		}
	}
	env, err := hostEnv()
	if err != nil {
		return err
	}
	var extra []string
	if vf.pdfs {
		extra = append(extra, "--include-pdfs")
	}
	extra = append(extra, ocrArgs...)
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
