package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("search", `--vault PATH "query" [flags]`, stderr)
	var vf vaultFlags
	vf.register(fs)
	var in tools.SearchInput
	fs.IntVar(&in.Limit, "limit", search.DefaultLimit, "number of hits (1-100)")
	fs.StringVar(&in.Folder, "folder", "", "only notes under this vault-relative folder")
	fs.IntVar(&in.MinSignals, "min-signals", 1, "only hits found by at least this many signals")
	fs.StringVar(&in.Granularity, "granularity", search.GranularityNote, "note or block")
	boost := fs.Bool("graph-boost", true, "boost notes linked from other top hits")
	filter := fs.String("filter-frontmatter", "", `JSON object, e.g. '{"status":"done"}'`)
	asJSON := fs.Bool("json", false, "print the obsidian_search JSON instead of a table")
	fs.BoolVar(&in.IncludeExcluded, "include-excluded", false, "also search Obsidian's excluded files and the templates folder")
	var importance unitFlag
	fs.Var(&importance, "importance-weight", "blend the frontmatter importance (0-10, missing = 5) into the score, 0-1 (default 0)")
	var tf typesFlags
	tf.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError(`missing query: enquire-mcp search --vault PATH "query"`)
	}
	in.Query = strings.Join(pos, " ")
	in.GraphBoost = boost
	in.ImportanceWeight = importance.ptr()
	if in.Types, err = tf.list(); err != nil {
		return err
	}
	if *filter != "" {
		if err := json.Unmarshal([]byte(*filter), &in.FilterFrontmatter); err != nil {
			return usageError("--filter-frontmatter: %v", err)
		}
	}
	// A bad --limit or --granularity is the user's to fix (exit 2), and
	// is said before a large vault is loaded.
	if err := in.Request().Validate(); err != nil {
		return usageError("%v", err)
	}
	vf.keepState = true
	vf.noteGiven(fs, contentOneCall)
	root, err := vf.realRoot()
	if err != nil {
		return err
	}
	if err := vf.resolveContent(ctx, root, func(line string) { fmt.Fprintln(stderr, line) }); err != nil {
		return err
	}
	leaveOut, err := vf.oneCallFilter(ctx, root)
	if err != nil {
		return err
	}
	l, err := vf.load(ctx, errorLogger(stderr))
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := searchLeavingOut(ctx, l.Engine(), in.Request(), leaveOut)
	if errors.Is(err, search.ErrInvalid) {
		return usageError("%v", err)
	}
	if err != nil {
		return err
	}
	out := tools.NewSearchOutput(res)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printTable(stdout, out)
	return nil
}

// printTable shows hits for humans: rank, path, lines, signals and age,
// with the snippet underneath.
func printTable(w io.Writer, out tools.SearchOutput) {
	if len(out.Matches) == 0 {
		fmt.Fprintf(w, "no matches for %q (signals: %s)\n", out.Query, strings.Join(out.SignalsUsed, ", "))
	}
	for i, m := range out.Matches {
		age := fmt.Sprintf("%dd old", m.AgeDays)
		if m.Stale {
			age += ", stale"
		}
		fmt.Fprintf(w, "%2d. %s  (%s; %s; %s; score %.4f)\n", i+1, m.Path, lines(m), signals(m.PerSignal), age, m.Score)
		if m.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", m.Snippet)
		}
	}
	fmt.Fprintf(w, "%d of %d candidates; signals: %s\n", len(out.Matches), out.TotalCandidates, strings.Join(out.SignalsUsed, ", "))
	keys := make([]string, 0, len(out.SignalErrors))
	for k := range out.SignalErrors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "signal %s: %s\n", k, out.SignalErrors[k])
	}
}

func lines(m tools.SearchMatch) string {
	switch {
	case m.Page > 0 && m.OCR:
		return fmt.Sprintf("page %d, OCR", m.Page)
	case m.Page > 0:
		return fmt.Sprintf("page %d", m.Page)
	case m.LineStart == 0:
		return "-"
	}
	return fmt.Sprintf("lines %d-%d", m.LineStart, m.LineEnd)
}

func signals(p tools.PerSignal) string {
	var parts []string
	add := func(name string, s *tools.SignalRank) {
		if s != nil {
			parts = append(parts, fmt.Sprintf("%s#%d", name, s.Rank))
		}
	}
	add("bm25", p.BM25)
	add("tfidf", p.TFIDF)
	add("emb", p.Embeddings)
	add("feedback", p.Feedback)
	add("proximity", p.Proximity)
	add("rerank", p.Rerank)
	if len(parts) == 0 {
		return "-"
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// searchLeavingOut is eng.Search without the hits leaveOut names (nil:
// none), paging on so that the answer still has up to Limit hits in the
// order of the unfiltered list: a one-off filter of this call, applied
// without changing the shared index.
func searchLeavingOut(ctx context.Context, eng *search.Engine, req search.Request, leaveOut func(path, kind string, n *vault.Note) bool) (*search.Result, error) {
	if leaveOut == nil {
		return eng.Search(ctx, req)
	}
	if req.Cursor == nil {
		req.Cursor = new(string)
	}
	notes := eng.Snapshot().Notes
	var out *search.Result
	left := 0
	for {
		res, err := eng.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = res
			out.Hits = nil
		}
		for _, h := range res.Hits {
			var n *vault.Note
			if h.ResultType != "memory" && h.Note >= 0 && h.Note < len(notes) {
				n = notes[h.Note]
			}
			if len(out.Hits) < req.Limit && (n == nil || !leaveOut(h.Path, h.Kind, n)) {
				out.Hits = append(out.Hits, h)
			} else if len(out.Hits) < req.Limit {
				left++
			}
		}
		if len(out.Hits) >= req.Limit || res.NextCursor == "" {
			break
		}
		*req.Cursor = res.NextCursor
	}
	out.NextCursor = ""
	out.TotalCandidates = max(0, out.TotalCandidates-left)
	return out, nil
}
