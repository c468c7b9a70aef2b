package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
)

// indexChoice says whether serve and search open the persistent index,
// and why (the ready line reports it).
type indexChoice struct {
	use bool
	why string
}

// chooseIndex decides whether to open the persistent index: always when
// asked for (--persistent-index, --index-file), never with --no-index,
// and otherwise when "enquire-mcp index" already made one at the default
// location with settings this run can use as they are. An index that
// would have to be rebuilt (other schema, PDFs on/off) is left alone with
// a warning saying how to use it: rebuilding a big index is never done
// behind the user's back. A damaged one is used: opening it rebuilds it
// from the vault, as every command does (index.Healable).
func (v *vaultFlags) chooseIndex(ctx context.Context, root string, logger *slog.Logger) (indexChoice, error) {
	switch {
	case v.noIndex && (v.persistent || v.indexFile != ""):
		return indexChoice{}, usageError("--no-index contradicts --persistent-index and --index-file")
	case v.noIndex:
		return indexChoice{false, "--no-index"}, nil
	case v.indexFile != "":
		return indexChoice{true, "--index-file"}, nil
	case v.persistent:
		return indexChoice{true, "--persistent-index"}, nil
	}
	path, err := index.DefaultPath(root)
	if err != nil {
		return indexChoice{false, "no cache dir"}, nil
	}
	info, err := index.Inspect(ctx, path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return indexChoice{false, "none yet (run enquire-mcp index)"}, nil
	case err != nil && index.Healable(path, err):
		// Damage heals as in the index command: the open rebuilds it
		// and says so.
		return indexChoice{true, "found at the default location"}, nil
	case err != nil:
		logger.Warn("existing index unreadable; serving without it (enquire-mcp index --rebuild replaces it)", "file", path, "err", err)
		return indexChoice{false, "unreadable"}, nil
	case !info.Ours:
		return indexChoice{false, "not an enquire-mcp index"}, nil
	}
	want := index.NewSettings(root, v.pdfs, chunk.DefaultOptions)
	switch {
	case !info.Current:
		logger.Warn("existing index is of another version; serving without it (enquire-mcp index updates it)", "file", path, "schema", info.SchemaVersion, "want", index.SchemaVersion)
		return indexChoice{false, "other schema version"}, nil
	case info.Settings.PDFs != want.PDFs && v.content.found && v.content.mode == contentKeep:
		// A flag given here changed the kept PDF setting (and said so):
		// the open rebuilds the index with it.
		return indexChoice{true, "found at the default location"}, nil
	case info.Settings.PDFs != want.PDFs:
		hint := "add --include-pdfs to use it"
		if !info.Settings.PDFs {
			hint = "run enquire-mcp index --include-pdfs, or drop --include-pdfs"
		}
		logger.Warn("existing index was built with other PDF settings; serving without it ("+hint+")", "file", path, "index_pdfs", info.Settings.PDFs)
		return indexChoice{false, "PDF settings differ"}, nil
	case info.Settings != want:
		logger.Warn("existing index was built with other settings; serving without it (enquire-mcp index updates it)", "file", path)
		return indexChoice{false, "settings differ"}, nil
	}
	return indexChoice{true, "found at the default location"}, nil
}
