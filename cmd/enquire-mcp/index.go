package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"sync"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// maxListedWarnings bounds the warnings printed in the summary.
const maxListedWarnings = 10

func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	stderr = &syncWriter{w: stderr} // warnings and the progress lines meet there
	fs := newFlagSet("index", "--vault PATH [--include-pdfs [--ocr]] [--index-file F] [--rebuild]", stderr)
	var vf vaultFlags
	vf.registerIndex(fs)
	vf.ocr.register(fs)
	registerRemovedTuning(fs)
	rebuild := fs.Bool("rebuild", false, "delete the index and build it from scratch")
	cpuProfile := fs.String("cpu-profile", "", "write a CPU profile (go tool pprof) of the whole run to this file (diagnostics)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	stopProfile, err := startCPUOnly(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	if err := vf.checkContent(); err != nil {
		return err
	}
	vf.noteGiven(fs, contentKeep)
	root, err := vf.realRoot()
	if err != nil {
		return err
	}
	if err := vf.resolveContent(ctx, root, func(line string) { fmt.Fprintln(stderr, line) }); err != nil {
		return err
	}
	if err := vf.checkContent(); err != nil {
		return err
	}
	rules, err := vf.privacy.rules(ctx, root)
	if err != nil {
		return err
	}
	type walked struct {
		notes, atts []vault.File
		warnings    []vault.Warning
		err         error
	}
	walking := make(chan walked, 1)
	go func() { // the vault is walked while the index opens and checks itself
		var w walked
		w.notes, w.atts, w.warnings, w.err = vault.Walk(ctx, root)
		walking <- w
	}()
	// A sync that meets damage runs again on a rebuilt file: the walk is
	// read once and given to both.
	walk := sync.OnceValue(func() walked { return <-walking })
	listed := func() ([]vault.File, []vault.File, []vault.Warning, error) {
		w := walk()
		return w.notes, w.atts, w.warnings, w.err
	}
	var memo noteMemo
	wait := func(lock string) { fmt.Fprintf(stderr, "waiting: another index run holds %s\n", lock) }
	ix, src, st, err := vf.syncFile(ctx, root, rules, *rebuild, "", stderr, wait, listed, &memo)
	if index.IsCorrupt(err) && !*rebuild {
		// Damage the open-time check cannot see (inside FTS5's blocks) met
		// by the sync: rebuilt from the vault, as serve rebuilds it.
		ix, src, st, err = vf.syncFile(ctx, root, rules, true, "damaged: met by the sync (database disk image is malformed)", stderr, wait, listed, &memo)
	}
	if err != nil {
		return err
	}
	defer ix.Close()
	fmt.Fprintf(stdout, "indexed %s → %s\n", root, ix.Path())
	fmt.Fprintf(stdout, "  files: %d added, %d updated, %d renamed, %d deleted, %d unchanged\n", st.Added, st.Updated, st.Renamed, st.Deleted, st.Unchanged)
	fmt.Fprintf(stdout, "  chunks: %d; PDFs without text: %d; warnings: %d\n", st.Chunks, st.PDFsWithoutText, len(st.Warnings))
	if line := vf.ocr.summary(); line != "" {
		fmt.Fprintf(stdout, "  %s\n", line)
	}
	printPrivacy(stdout, rules, st)
	for i, w := range st.Warnings {
		if i == maxListedWarnings {
			fmt.Fprintf(stdout, "    … and %d more\n", len(st.Warnings)-i)
			break
		}
		fmt.Fprintf(stdout, "    %s\n", w)
	}
	fmt.Fprintf(stdout, "  took %s\n", st.Duration.Round(1e6))
	if vf.stateFresh(ctx, ix, root, rules, src) {
		// The saved engine state is the one a start from it would save
		// again: loading it would only confirm that.
		fmt.Fprintf(stdout, "  engine state for the next start: up to date\n")
		return ix.Close()
	}
	if st.Added+st.Updated+st.Renamed+st.Deleted+st.Purged > 0 {
		// The saved BM25 copy is stale, and the state saved below carries
		// a new one: build it from the index while the engine is built
		// from the notes (the save waits for it).
		built := make(chan struct{})
		go func() { defer close(built); ix.BM25().EnsurePostings(ctx) }()
		defer func() { <-built }()
	}
	vf.synced, vf.reuse = ix, memo.reuse
	how, err := vf.prepareState(ctx, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  engine state for the next start: %s\n", how)
	return nil
}

// syncFile opens the index (rebuild: from scratch) and syncs it with the
// vault that walk lists, saying on stderr why the index is rebuilt (why,
// else what the open found); memo keeps the parsed notes for the engine.
// On an error the index is closed.
func (vf *vaultFlags) syncFile(ctx context.Context, root string, rules *privacy.Rules, rebuild bool, why string, stderr io.Writer, wait func(string),
	walk func() ([]vault.File, []vault.File, []vault.Warning, error), memo *noteMemo) (*index.Index, index.Source, index.Stats, error) {
	ix, err := vf.openIndex(ctx, root, rebuild, errorLogger(io.Discard), wait)
	if err != nil {
		return nil, index.Source{}, index.Stats{}, err
	}
	if why == "" {
		why = ix.Rebuilt
	}
	if why != "" {
		fmt.Fprintf(stderr, "rebuilding the index: %s\n", why)
	}
	warn := func(msg string) { fmt.Fprintf(stderr, "warning: %s\n", msg) }
	src, err := ix.DiskSourceWalked(ctx, vf.maxFileSize, vf.reader(ix, warn), walk)
	if err != nil {
		return nil, index.Source{}, index.Stats{}, errors.Join(err, ix.Close())
	}
	src.Privacy = service.IndexPrivacy(rules)
	src.Note = memo.wrap(src.Note)
	bar := newProgress(stderr, len(src.Files), "indexing", "files")
	st, err := ix.Sync(ctx, src, bar.Set)
	bar.Done()
	if err != nil {
		return nil, index.Source{}, st, errors.Join(err, ix.Close())
	}
	return ix, src, st, nil
}

// prepareState brings the engine state up to date after an index run, so
// that the next serve or search resumes from it (see
// service.Vault.PrepareState), and says how. Damage its loading meets is
// rebuilt and the state made again on the rebuilt index.
func (v *vaultFlags) prepareState(ctx context.Context, stderr io.Writer) (how string, err error) {
	how, rebuilt, err := v.prepareStateOnce(ctx, stderr)
	if err == nil && rebuilt {
		fmt.Fprintln(stderr, "index rebuilt after damage; engine state made again")
		how, _, err = v.prepareStateOnce(ctx, stderr)
	}
	return how, err
}

// prepareStateOnce is one pass of prepareState.
func (v *vaultFlags) prepareStateOnce(ctx context.Context, stderr io.Writer) (how string, rebuilt bool, err error) {
	l, err := v.load(ctx, errorLogger(stderr))
	if err != nil {
		return "", false, err
	}
	defer l.Close()
	return l.PrepareState(ctx)
}
