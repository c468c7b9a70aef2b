package tools

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/linksuggest"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// linkCache holds the derived link structures of the current engine. The
// link tools share one per server; a vault change (a new engine) builds a
// new linkTables on the next call, and calls still running keep theirs.
type linkCache struct{ perEngine[linkTables] }

// get returns the index of an engine, building (the cheap shell of) it
// when the engine changed.
func (c *linkCache) get(e *search.Engine) *linkTables { return c.derive(e, newLinkTables) }

// linkTables is everything the link tools derive from one engine. Each
// part is built once, on first use, and is immutable afterwards.
type linkTables struct {
	eng   *search.Engine
	snap  *vault.Snapshot
	g     *graph.Graph
	paths *graph.PathFinder

	tagsOnce sync.Once
	tags     *graph.TagSiblings

	missing *graph.MissingTargets
	// vaultTargets caches the targets summary of the whole vault, with
	// embeds ([1]) and without ([0]).
	vaultTargets [2]struct {
		once    sync.Once
		targets []UnresolvedTarget
		total   int
	}

	suggestOnce sync.Once
	suggester   *linksuggest.Suggester
}

func newLinkTables(e *search.Engine) *linkTables {
	g := e.Graph()
	return &linkTables{eng: e, snap: e.Snapshot(), g: g, paths: graph.NewPathFinder(g), missing: graph.NewMissingTargets(g)}
}

// tagIndex returns the tag → notes index.
func (ix *linkTables) tagSiblings() *graph.TagSiblings {
	ix.tagsOnce.Do(func() { ix.tags = graph.NewTagSiblings(ix.snap) })
	return ix.tags
}

// suggest returns up to limit note ids whose name, title or alias is
// closest to ref.
func (ix *linkTables) suggest(ref string, limit int) []int {
	ix.suggestOnce.Do(func() { ix.suggester = linksuggest.New(ix.snap) })
	return ix.suggester.Suggest(ref, limit)
}

// suggestTitles returns up to 3 distinct titles of the notes closest to a
// missing target (see linksuggest.Suggester.Titles).
func (ix *linkTables) suggestTitles(target string) []string {
	ix.suggestOnce.Do(func() { ix.suggester = linksuggest.New(ix.snap) })
	return ix.suggester.Titles(target)
}

// notFound is the tool error for a missing note, with close paths.
func (ix *linkTables) notFound(ref string) error {
	var paths []string
	for _, id := range ix.suggest(ref, 5) {
		paths = append(paths, ix.snap.Notes[id].Path)
	}
	return errNotFound(ref, paths)
}

// findNote returns the id of a note named by vault-relative path or by
// title/alias, from the snapshot: graph answers must match the graph, so
// nothing is re-read from disk.
func (ix *linkTables) findNote(p, title string) (int, error) {
	return noteID(ix.snap, p, title, ix.notFound)
}

// lookup finds a note by path, name, alias or title (see lookupNote).
func (ix *linkTables) lookup(ref string) (int, bool) { return lookupNote(ix.snap, ref) }

// noteID finds a snapshot note by vault-relative path or by title/alias
// (resolved like a wikilink); notFound makes the error for a miss. A path
// leaving the vault is reported like a missing note.
func noteID(snap *vault.Snapshot, p, title string, notFound func(ref string) error) (int, error) {
	switch {
	case p != "" && title != "":
		return 0, errors.New("give path or title, not both")
	case p != "":
		if clean, ok := vault.CleanRelPath(p); ok {
			if id, ok := snap.NoteID(clean); ok {
				return id, nil
			}
		}
		return 0, notFound(p)
	case title != "":
		if id, ok := lookupNote(snap, title); ok {
			return id, nil
		}
		return 0, notFound(title)
	}
	return 0, errors.New("give path or title")
}

// lookupNote finds a note by path, name, alias or title; a [[wikilink]]
// (brackets, |alias and #heading allowed) works too.
func lookupNote(snap *vault.Snapshot, ref string) (int, bool) {
	ref = linkTargetText(ref)
	if ref == "" {
		return 0, false
	}
	if clean, ok := vault.CleanRelPath(ref); ok {
		if id, ok := snap.NoteID(clean); ok {
			return id, true
		}
	}
	if n := snap.Lookup(ref); n != nil {
		return snap.NoteID(n.Path)
	}
	return 0, false
}

// linkTargetText strips [[ ]], a leading "!", "|alias" and "#heading"
// from a note reference, leaving the target.
func linkTargetText(ref string) string {
	ref = strings.TrimSpace(ref)
	if inner, ok := strings.CutPrefix(strings.TrimPrefix(ref, "!"), "[["); ok {
		if inner, ok = strings.CutSuffix(inner, "]]"); ok {
			ref, _, _ = strings.Cut(inner, "|")
			ref, _, _ = strings.Cut(ref, "#")
		}
	}
	return strings.TrimSpace(ref)
}

// linkLine is the text a link is shown in: its body line, or for a
// property link "key: link" (the frontmatter is not kept as text).
func linkLine(n *vault.Note, l vault.Link) string {
	if l.Property != "" {
		return l.Property + ": " + l.Raw
	}
	return linkNoteLine(n, l.Line)
}

// linkNoteLine returns line (1-based, counted in the file) of a note's body,
// or "" when the line is outside the body.
func linkNoteLine(n *vault.Note, line int) string {
	i := line - n.BodyLine
	if i < 0 {
		return ""
	}
	body := n.Body
	for ; i > 0; i-- {
		j := strings.IndexByte(body, '\n')
		if j < 0 {
			return ""
		}
		body = body[j+1:]
	}
	l, _, _ := strings.Cut(body, "\n")
	return l
}

// linkSnippetRunes is the width of a link's context snippet.
const linkSnippetRunes = 160

// linkSnippet cuts about width runes of a line around the first
// occurrence of raw, marking cuts with "…".
func linkSnippet(line, raw string, width int) string {
	line = strings.TrimSpace(line)
	total := utf8.RuneCountInString(line)
	if total <= width {
		return line
	}
	at := 0
	if i := strings.Index(line, raw); i >= 0 {
		at = utf8.RuneCountInString(line[:i])
		at = max(0, at-(width-utf8.RuneCountInString(raw))/2)
	}
	at = min(at, total-width)
	start := linkRuneOffset(line, at)
	end := start + linkRuneOffset(line[start:], width)
	s := strings.TrimSpace(line[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(line) {
		s += "…"
	}
	return s
}

// linkRuneOffset is the byte offset of the n-th rune of s (len(s) past the
// end).
func linkRuneOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// linkPage validates limit and cursor and returns the page's offset and
// size. The cursor is opaque to clients: the tool name and an offset.
func linkPage(tool string, limit, def, maxLimit int, cursor string) (offset, size int, err error) {
	switch {
	case limit == 0:
		limit = def
	case limit < 0 || limit > maxLimit:
		return 0, 0, fmt.Errorf("limit must be between 1 and %d", maxLimit)
	}
	if cursor == "" {
		return 0, limit, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(raw), tool+":"); ok {
			if off, err := strconv.Atoi(rest); err == nil && off >= 0 {
				return off, limit, nil
			}
		}
	}
	return 0, 0, errors.New("invalid cursor: pass the next_cursor of the previous page unchanged")
}

// linkNextCursor returns the cursor of the page after [offset, offset+size)
// of total items, "" at the end.
func linkNextCursor(tool string, offset, size, total int) string {
	if offset+size >= total {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(tool + ":" + strconv.Itoa(offset+size)))
}

// linkPageOf returns items[offset:offset+size], clamped.
func linkPageOf[T any](items []T, offset, size int) []T {
	offset = min(offset, len(items))
	return items[offset:min(len(items), offset+size)]
}
