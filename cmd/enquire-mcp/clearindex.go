package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// runClearIndex deletes one vault's index file (text, PDF text and
// vectors); the vault itself is never touched. The next "index" or
// "serve --persistent-index" builds it again from scratch.
func runClearIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	path, err := indexFileFlag("clear-index", args, stderr)
	if err != nil {
		return err
	}
	freed, err := index.Remove(ctx, path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "no index to clear: %s does not exist\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "removed %s (%s)\n", path, humanBytes(freed))
	return nil
}

// indexFileFlag parses the flags of a command that acts on one vault's
// index file (--vault or --index-file) and returns that file.
func indexFileFlag(name string, args []string, stderr io.Writer) (string, error) {
	fs := newFlagSet(name, "--vault PATH [--index-file F]", stderr)
	var vf vaultFlags
	fs.StringVar(&vf.vault, "vault", envVault(), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	fs.StringVar(&vf.indexFile, "index-file", "", "index file (default: the vault's in the user cache dir)")
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	return vf.indexFileOf()
}

// indexFileOf is the index file of --vault (or --index-file). The vault
// need not exist any more (clear-index of a deleted vault): the default
// path is then computed from its absolute path.
func (v *vaultFlags) indexFileOf() (string, error) {
	if v.indexFile != "" {
		return userPath(v.indexFile)
	}
	if v.vault == "" {
		return "", usageError("--vault is required (or set ENQUIRE_VAULT)")
	}
	root, err := v.realRoot()
	if err != nil {
		return "", err
	}
	return index.DefaultPath(root)
}

// humanBytes prints a size the way people read it.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
