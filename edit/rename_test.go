package edit

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// extraNotes are added to the fixture copy for link forms it lacks.
var extraNotes = map[string]string{
	// A real link next to inline code, and the same link in fenced and
	// indented code: only the real one may change.
	"Mixed.md": "`[[Black Holes]]` and [[Black Holes]]\n\n```\n[[Black Holes]]\n```\n\n    [[Black Holes]] indented code\n",
	// Markdown links relative to the note's folder, in <…>, and with a
	// heading fragment.
	"Syntax/MD Links.md": "[w](Wikilinks.md) and [h](<../Home.md>) and [s](Wikilinks.md#Second%20section)\n",
}

func loadCopy(t *testing.T) (string, *vault.Snapshot) {
	t.Helper()
	root := vaulttest.Copy(t, "../testdata/vault")
	for rel, text := range extraNotes {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return root, snap
}

// rewrite is an expected link rewrite: file (after the rename), line,
// before, after.
type rewrite struct {
	file   string
	line   int
	before string
	after  string
}

// located is a rewrite with its 1-based byte column in the line.
type located struct {
	rewrite
	column int
}

func TestPlanRename(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           []rewrite
	}{
		{
			name: "bare, alias, embed with heading, relative, inline code",
			from: "Science/Black Holes.md", to: "Space/Dark Stars.md",
			want: []rewrite{
				{"Daily/2026-01-15.md", 8, "[[Black Holes]]", "[[Dark Stars]]"},
				{"Home.md", 18, "[[Black Holes]]", "[[Dark Stars]]"},
				{"Mixed.md", 1, "[[Black Holes]]", "[[Dark Stars]]"},
				{"Syntax/Embeds.md", 15, "![[Black Holes#Event horizon]]", "![[Dark Stars#Event horizon]]"},
				{"Syntax/Relative Links.md", 9, "[[../Science/Black Holes]]", "[[../Space/Dark Stars]]"},
				{"Syntax/Wikilinks.md", 9, "[[Black Holes|the void]]", "[[Dark Stars|the void]]"},
			},
		},
		{
			name: "path link and URL-encoded markdown link",
			from: "Science/Plate Tectonics.md", to: "Geo/Plate Tectonics 2.md",
			want: []rewrite{
				{"Home.md", 17, "[[Plate Tectonics]]", "[[Plate Tectonics 2]]"},
				{"Syntax/Wikilinks.md", 16, "[[Science/Plate Tectonics]]", "[[Geo/Plate Tectonics 2]]"},
				{"Syntax/Wikilinks.md", 17, "[tectonics](Science/Plate%20Tectonics.md)", "[tectonics](Geo/Plate%20Tectonics%202.md)"},
			},
		},
		{
			name: "block reference and embed",
			from: "Software/Rust Ownership.md", to: "Rust/Ownership.md",
			want: []rewrite{
				{"Home.md", 22, "[[Rust Ownership]]", "[[Ownership]]"},
				{"Software/Concurrency Patterns.md", 22, "[[Rust Ownership]]", "[[Ownership]]"},
				{"Syntax/Embeds.md", 18, "![[Rust Ownership#^borrow-rules]]", "![[Ownership#^borrow-rules]]"},
				{"Syntax/Wikilinks.md", 11, "[[Rust Ownership#^borrow-rules]]", "[[Ownership#^borrow-rules]]"},
			},
		},
		{
			name: "heading link, embed, escaped pipe in a table",
			from: "Software/Go Concurrency.md", to: "Software/Goroutines.md",
			want: []rewrite{
				{"Home.md", 23, "[[Go Concurrency]]", "[[Goroutines]]"},
				{"Projects/Crawler.md", 18, "[[Go Concurrency]]", "[[Goroutines]]"},
				{"Projects/Log Pipeline.md", 9, "[[Go Concurrency]]", "[[Goroutines]]"},
				{"Software/Concurrency Patterns.md", 10, "[[Go Concurrency]]", "[[Goroutines]]"},
				{"Syntax/Wikilinks.md", 26, `[[Go Concurrency\|goroutines]]`, `[[Goroutines\|goroutines]]`},
			},
		},
		{
			name: "alias links stay, name links change",
			from: "Software/Kubernetes.md", to: "Infra/Containers.md",
			want: []rewrite{
				{"Daily/2026-02-01.md", 7, "[[Kubernetes]]", "[[Containers]]"},
				{"Home.md", 25, "[[Kubernetes]]", "[[Containers]]"},
				{"Syntax/Wikilinks.md", 12, "[[Kubernetes#Pods|pods section]]", "[[Containers#Pods|pods section]]"},
			},
		},
		{
			name: "folder-relative markdown links, .md kept, fragments kept",
			from: "Syntax/Wikilinks.md", to: "Syntax/Sub/Wiki Links.md",
			want: []rewrite{
				{"Syntax/MD Links.md", 1, "[w](Wikilinks.md)", "[w](Sub/Wiki%20Links.md)"},
				{"Syntax/MD Links.md", 1, "[s](Wikilinks.md#Second%20section)", "[s](Sub/Wiki%20Links.md#Second%20section)"},
				{"Syntax/Properties.md", 2, "[[Wikilinks]]", "[[Wiki Links]]"},
				{"Syntax/Relative Links.md", 8, "[[./Wikilinks]]", "[[./Sub/Wiki Links]]"},
			},
		},
		{
			name: "the moved note's own relative links, angle-bracket destination",
			from: "Home.md", to: "Index/Home Page.md",
			want: []rewrite{
				{"Syntax/MD Links.md", 1, "[h](<../Home.md>)", "[h](<../Index/Home Page.md>)"},
				{"Syntax/Relative Links.md", 10, "[[../Home]]", "[[../Index/Home Page]]"},
			},
		},
		{
			name: "a moved note fixes its relative links",
			from: "Syntax/Relative Links.md", to: "Elsewhere/Deep/Relative Links.md",
			want: []rewrite{
				{"Elsewhere/Deep/Relative Links.md", 8, "[[./Wikilinks]]", "[[../../Syntax/Wikilinks]]"},
				{"Elsewhere/Deep/Relative Links.md", 9, "[[../Science/Black Holes]]", "[[../../Science/Black Holes]]"},
				{"Elsewhere/Deep/Relative Links.md", 10, "[[../Home]]", "[[../../Home]]"},
			},
		},
		{
			name: "a name that becomes ambiguous gets the shortest unique path",
			from: "Projects/Ideas.md", to: "Projects/Sub/Ideas.md",
			want: []rewrite{
				{"Projects/Roadmap.md", 14, "[[Ideas]]", "[[Sub/Ideas]]"},
			},
		},
		{
			name: "a link the new name would capture keeps its note",
			from: "Science/Photosynthesis.md", to: "Bio/Ideas.md",
			want: []rewrite{
				{"Gardening/Garden Log.md", 13, "[[Ideas]]", "[[Archive/Ideas]]"},
				{"Home.md", 16, "[[Photosynthesis]]", "[[Bio/Ideas]]"},
				{"Languages/中文笔记.md", 16, "[[Photosynthesis]]", "[[Bio/Ideas]]"},
				{"Syntax/CRLF Note.md", 8, "[[Photosynthesis]]", "[[Bio/Ideas]]"},
				{"Syntax/Code Fences.md", 6, "[[Photosynthesis]]", "[[Bio/Ideas]]"},
				{"Syntax/Wikilinks.md", 8, "[[Photosynthesis]]", "[[Bio/Ideas]]"},
			},
		},
		{
			name: "property links in a block list: heading, block with alias, single-quoted",
			from: "Syntax/Headings and Blocks.md", to: "Syntax/Sections.md",
			want: []rewrite{
				{"Syntax/Properties.md", 5, "[[Headings and Blocks#Heading level two]]", "[[Sections#Heading level two]]"},
				{"Syntax/Properties.md", 6, "[[Headings and Blocks#^block-two|block two]]", "[[Sections#^block-two|block two]]"},
			},
		},
		{
			name: "property links in a flow list and two in one string",
			from: "Syntax/Tags.md", to: "Syntax/Code Fences 2.md",
			want: []rewrite{
				{"Syntax/Properties.md", 3, "[[Tags|tag forms]]", "[[Code Fences 2|tag forms]]"},
			},
		},
		{
			name: "an embed in a property string",
			from: "Syntax/Relative Links.md", to: "Syntax/Relative.md",
			want: []rewrite{
				{"Syntax/Properties.md", 7, "![[Relative Links]]", "![[Relative]]"},
			},
		},
		{
			name: "partial path keeps its depth",
			from: "Archive/2019/Old Notes/Ancient.md", to: "Archive/2019/Old Notes/Antique.md",
			want: []rewrite{
				{"Archive/Old Plans.md", 9, "[[Old Notes/Ancient]]", "[[Old Notes/Antique]]"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, snap := loadCopy(t)
			plan, err := PlanRename(snap, tt.from, tt.to, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Warnings) > 0 {
				t.Errorf("warnings: %v", plan.Warnings)
			}
			var got []rewrite
			var at []located
			for _, f := range plan.Files {
				for _, c := range f.Changes {
					got = append(got, rewrite{f.Path, c.Line, c.Before, c.After})
					at = append(at, located{rewrite{f.Path, c.Line, c.Before, c.After}, c.Column})
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("rewrites:\n%v\nwant:\n%v", got, tt.want)
			}
			if plan.Total() != len(tt.want) {
				t.Fatalf("total = %d", plan.Total())
			}
			before := snapshotFiles(t, root)
			applied, err := plan.Apply()
			if err != nil || len(applied.Failed) > 0 || !applied.Moved {
				t.Fatalf("apply: %v %+v", err, applied)
			}
			checkApplied(t, root, before, tt.from, tt.to, at)
			checkResolves(t, root, tt.to, tt.want)
			noTempFiles(t, root)
		})
	}
}

// snapshotFiles reads every .md file of the vault copy.
func snapshotFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			raw, _ := os.ReadFile(p)
			files[filepath.ToSlash(rel)] = string(raw)
		}
		return nil
	})
	return files
}

// checkApplied compares every file byte for byte with its old content,
// where only the expected links on the expected lines may differ.
func checkApplied(t *testing.T, root string, before map[string]string, from, to string, want []located) {
	t.Helper()
	after := snapshotFiles(t, root)
	if _, ok := after[from]; ok && !strings.EqualFold(from, to) {
		t.Fatalf("%s still exists", from)
	}
	expected := map[string]string{}
	for rel, text := range before {
		if rel == from {
			rel = to
		}
		expected[rel] = text
	}
	for i := len(want) - 1; i >= 0; i-- { // right to left within a line
		w := want[i]
		lines := strings.SplitAfter(expected[w.file], "\n")
		line, col := lines[w.line-1], w.column-1
		if !strings.HasPrefix(line[col:], w.before) {
			t.Fatalf("%s line %d col %d lacks %q", w.file, w.line, w.column, w.before)
		}
		lines[w.line-1] = line[:col] + w.after + line[col+len(w.before):]
		expected[w.file] = strings.Join(lines, "")
	}
	if len(after) != len(expected) {
		t.Fatalf("%d files after, %d expected", len(after), len(expected))
	}
	for rel, text := range expected {
		if after[rel] != text {
			t.Errorf("%s:\n%q\nwant:\n%q", rel, after[rel], text)
		}
	}
}

// checkResolves reloads the vault and checks each rewritten link resolves
// where the plan said.
func checkResolves(t *testing.T, root, to string, want []rewrite) {
	t.Helper()
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		n := snap.Note(w.file)
		found := false
		for _, l := range n.Links {
			if l.Line == w.line && l.Raw == w.after {
				found = true
				if l.Kind == vault.LinkUnresolved {
					t.Errorf("%s line %d: %s is unresolved after the rename", w.file, w.line, w.after)
				}
			}
		}
		if !found {
			t.Errorf("%s line %d: %s not parsed after the rename", w.file, w.line, w.after)
		}
	}
}

func TestPlanRenameLeavesCodeAlone(t *testing.T) {
	root, snap := loadCopy(t)
	// The fenced "fake" links would resolve to the new name: still untouched.
	plan, err := PlanRename(snap, "Science/Photosynthesis.md", "Science/Fake Link In Code.md", false)
	if err != nil {
		t.Fatal(err)
	}
	before := readRel(t, root, "Syntax/Code Fences.md")
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	after := readRel(t, root, "Syntax/Code Fences.md")
	if want := strings.Replace(before, "[[Photosynthesis]]", "[[Fake Link In Code]]", 1); after != want {
		t.Fatalf("Code Fences.md:\n%s", after)
	}
	if strings.Count(after, "[[Fake Link In Code]]") != 3 { // line 6 plus the two fenced ones, as they were
		t.Fatalf("fenced links changed:\n%s", after)
	}
	crlf := readRel(t, root, "Syntax/CRLF Note.md")
	if strings.Count(crlf, "\r\n") != 12 || strings.Count(crlf, "\n") != 12 || !strings.Contains(crlf, "[[Fake Link In Code]] like any other note.\r\n") {
		t.Fatalf("CRLF note lost its line endings: %q", crlf)
	}
}

func TestPlanRenameRefusals(t *testing.T) {
	_, snap := loadCopy(t)
	for _, tt := range []struct {
		name, from, to string
		want           error
		msg            string
	}{
		{"existing destination", "Home.md", "Misc/Orphan.md", fs.ErrExist, ""},
		{"missing note", "Nope.md", "X.md", fs.ErrNotExist, ""},
		{"same path", "Home.md", "Home.md", nil, "current path"},
		{"name breaks links", "Home.md", "Home#1.md", ErrRefused, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PlanRename(snap, tt.from, tt.to, false)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestRenameOverwrite(t *testing.T) {
	root, snap := loadCopy(t)
	plan, err := PlanRename(snap, "Archive/Ideas.md", "Projects/Ideas.md", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "Projects/Ideas.md"); !strings.Contains(got, "typewriter") {
		t.Fatalf("Projects/Ideas.md = %q", got)
	}
	// [[Ideas]] from Archive/Old Plans and Gardening/Garden Log now has one
	// candidate, the moved note: it stays bare.
	if got := readRel(t, root, "Archive/Old Plans.md"); !strings.Contains(got, "[[Ideas]]") {
		t.Fatalf("Old Plans = %q", got)
	}
}

func TestRenameApplyReportsConflicts(t *testing.T) {
	root, snap := loadCopy(t)
	plan, err := PlanRename(snap, "Science/Black Holes.md", "Space/Black Hole.md", false)
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits a backlink after the plan was made.
	p := filepath.Join(root, "Home.md")
	if err := os.WriteFile(p, []byte(readRel(t, root, "Home.md")+"edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	applied, err := plan.Apply()
	if err != nil || !applied.Moved {
		t.Fatalf("apply: %v", err)
	}
	if _, ok := applied.Failed["Home.md"]; !ok || len(applied.Failed) != 1 {
		t.Fatalf("failed = %v", applied.Failed)
	}
	if len(applied.Updated) != len(plan.Files)-1 {
		t.Fatalf("updated = %v", applied.Updated)
	}
	if !strings.HasSuffix(readRel(t, root, "Home.md"), "edited\n") {
		t.Fatal("the edited file was overwritten")
	}
}

// TestRenamePreservesEveryLink plans renaming every note of the fixture
// three ways (another folder, a new name, a name another note has) and
// checks, on the vault as the plan would leave it, that every link still
// resolves to what it meant before, with the renamed note's path mapped
// to its new one. (TestPlanRename applies plans on disk.)
func TestRenamePreservesEveryLink(t *testing.T) {
	root, snap := loadCopy(t)
	for _, n := range snap.Notes {
		for _, to := range []string{"Moved/Deeper/" + n.Name() + ".md", strings.TrimSuffix(n.Path, ".md") + " renamed.md", "Elsewhere/Ideas.md"} {
			t.Run(n.Path+"→"+to, func(t *testing.T) {
				plan, err := PlanRename(snap, n.Path, to, false)
				if err != nil {
					t.Fatal(err)
				}
				if len(plan.Warnings) > 0 {
					t.Errorf("warnings: %v", plan.Warnings)
				}
				sameLinks(t, snap, afterPlan(t, root, snap, plan), n.Path, to)
			})
		}
	}
}

// afterPlan is the snapshot of the vault as the plan would leave it,
// built in memory.
func afterPlan(t *testing.T, root string, snap *vault.Snapshot, plan *RenamePlan) *vault.Snapshot {
	t.Helper()
	rewritten := map[string][]byte{}
	for _, f := range plan.Files {
		rewritten[f.OldPath] = f.after
	}
	var notes []*vault.Note
	for _, n := range snap.Notes {
		raw, ok := rewritten[n.Path]
		if !ok {
			raw = []byte(readRel(t, root, n.Path))
		}
		p := n.Path
		if p == plan.From {
			p = plan.To
		}
		parsed, _ := vault.Parse(p, raw)
		notes = append(notes, parsed)
	}
	return vault.NewSnapshot(root, notes, slices.Clone(snap.Attachments), nil)
}

// sameLinks checks that every link of before resolves to the same place
// in after (from mapped to to); an unresolved link may only have become a
// link to the renamed note.
func sameLinks(t *testing.T, before, after *vault.Snapshot, from, to string) {
	t.Helper()
	mapped := func(p string) string {
		if p == from {
			return to
		}
		return p
	}
	for _, n := range before.Notes {
		m := after.Note(mapped(n.Path))
		if m == nil || m.Path != mapped(n.Path) {
			t.Fatalf("%s missing after the rename", mapped(n.Path))
		}
		if len(m.Links) != len(n.Links) {
			t.Fatalf("%s: %d links, had %d", m.Path, len(m.Links), len(n.Links))
		}
		for i, l := range n.Links {
			got := m.Links[i]
			if got.Line != l.Line || got.Heading != l.Heading || got.Block != l.Block || got.Alias != l.Alias || got.Embed != l.Embed {
				t.Errorf("%s: link %s became %s", m.Path, l.Raw, got.Raw)
			}
			if l.Kind == vault.LinkUnresolved {
				if got.Kind != vault.LinkUnresolved && got.Resolved != to {
					t.Errorf("%s: unresolved %s now resolves to %s", m.Path, l.Raw, got.Resolved)
				}
				continue
			}
			if got.Kind != l.Kind || got.Resolved != mapped(l.Resolved) {
				t.Errorf("%s L%d: %s → %s, was %s → %s", m.Path, l.Line, got.Raw, got.Resolved, l.Raw, l.Resolved)
			}
		}
	}
}
