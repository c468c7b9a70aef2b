package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// runPrune lists the index files in the cache dir whose vault no longer
// exists, with their sizes, and deletes them only with --yes. Files it
// cannot identify as enquire-mcp indexes are listed and never deleted.
func runPrune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("prune", "[--yes] [--cache-dir D]", stderr)
	yes := fs.Bool("yes", false, "delete the listed files (default: a dry run that only lists them)")
	dir := fs.String("cache-dir", "", "folder of the index files (default: the user cache dir's enquire-mcp)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		d, err := index.CacheDir()
		if err != nil {
			return err
		}
		*dir = d
	}
	found, err := index.List(ctx, *dir)
	if err != nil {
		return err
	}
	var stale []index.Found
	var total int64
	for _, f := range found {
		switch {
		case f.Err != nil:
			fmt.Fprintf(stdout, "skip  %s (%s): unreadable: %v\n", f.Path, humanBytes(f.Bytes), f.Err)
		case !f.Ours:
			fmt.Fprintf(stdout, "skip  %s (%s): not an enquire-mcp index\n", f.Path, humanBytes(f.Bytes))
		default:
			gone, why := vaultState(f.Settings.Vault)
			if why != "" {
				fmt.Fprintf(stdout, "skip  %s (%s): %s\n", f.Path, humanBytes(f.Bytes), why)
			}
			if gone {
				stale = append(stale, f)
				total += f.Bytes
			}
		}
	}
	if len(stale) == 0 {
		fmt.Fprintf(stdout, "nothing to prune in %s (%d index files, every vault still exists)\n", *dir, len(found))
		return nil
	}
	verb := "would remove"
	if *yes {
		verb = "removed"
	}
	var errs []error
	for _, f := range stale {
		if *yes {
			if _, err := index.Remove(ctx, f.Path); err != nil {
				errs = append(errs, err)
				fmt.Fprintf(stdout, "FAILED %s: %v\n", f.Path, err)
				continue
			}
		}
		fmt.Fprintf(stdout, "%s %s (%s): vault %s no longer exists\n", verb, f.Path, humanBytes(f.Bytes), f.Settings.Vault)
	}
	if !*yes {
		fmt.Fprintf(stdout, "dry run: %d files, %s; run \"enquire-mcp prune --yes\" to delete them\n", len(stale), humanBytes(total))
		return nil
	}
	fmt.Fprintf(stdout, "%d files, %s freed\n", len(stale)-len(errs), humanBytes(total))
	return errors.Join(errs...)
}

// vaultState says whether a vault folder is certainly gone: it does not
// exist but its parent folder does. When the parent is missing too, the
// vault may be on a disk that is not mounted right now (/Volumes/…, a
// drive letter, a network share), so its index is kept.
func vaultState(root string) (gone bool, why string) {
	if root == "" {
		return false, "records no vault"
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		return false, ""
	}
	if _, err := os.Stat(filepath.Dir(root)); err != nil {
		return false, fmt.Sprintf("vault %s and its parent folder are missing (a disk not mounted?); kept, remove it with clear-index --index-file", root)
	}
	return true, ""
}
