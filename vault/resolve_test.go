package vault

import (
	"reflect"
	"slices"
	"testing"
)

// testSnapshot parses synthetic notes (path → content) and indexes them
// with the given attachments.
func testSnapshot(t *testing.T, notes map[string]string, atts ...string) *Snapshot {
	t.Helper()
	var ns []*Note
	for p, body := range notes {
		n, warns := Parse(p, []byte(body))
		if len(warns) != 0 {
			t.Fatalf("Parse(%q): %v", p, warns)
		}
		ns = append(ns, n)
	}
	var as []Attachment
	for _, a := range atts {
		as = append(as, Attachment{Path: a, Size: 1})
	}
	return NewSnapshot("/vault", ns, as, nil)
}

// mainSnapshot is a small vault shaped like testdata/vault.
func mainSnapshot(t *testing.T) *Snapshot {
	return testSnapshot(t, map[string]string{
		"Home.md":                           "---\naliases: [Index, Start here]\n---\n# Home\n",
		"Syntax/Wikilinks.md":               "# Wikilinks\n",
		"Syntax/Relative Links.md":          "# Relative Links\n",
		"Syntax/Unicode NFD.md":             "---\ntitle: Unicode Normalisation\n---\n",
		"Science/Black Holes.md":            "# Black Holes\n",
		"Science/Plate Tectonics.md":        "# Plate Tectonics\n",
		"Software/Kubernetes.md":            "---\nalias: K8s\n---\n",
		"Cooking/Sourdough Bread.md":        "---\naliases: [Sourdough, Levain bread]\n---\n",
		"Archive/2019/Old Notes/Ancient.md": "# Ancient\n",
		"Gardening/Tomatoes.md":             "# Tomatoes\n",
		"Cafe\u0301.md":                     "NFD file name\n",
		"A/y.md":                            "---\naliases: [Twin]\n---\n",
		"B/x.md":                            "---\naliases: [twin]\n---\n",
	},
		"Attachments/diagram.png",
		"Attachments/paper.pdf",
		"Attachments/r\u00e9sum\u00e9.pdf",
		"Deep/er/diagram.png",
	)
}

type resolveCase struct {
	name         string
	target, from string
	kind         LinkKind
	path         string
}

func runResolve(t *testing.T, s *Snapshot, tests []resolveCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, p := s.Resolve(tt.target, tt.from)
			if kind != tt.kind || p != tt.path {
				t.Errorf("Resolve(%q, %q) = %s %q, want %s %q", tt.target, tt.from, kind, p, tt.kind, tt.path)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	const rel = "Syntax/Relative Links.md"
	runResolve(t, mainSnapshot(t), []resolveCase{
		// ./ and ../ are relative to the source note's folder.
		{"dot slash", "./Wikilinks", rel, LinkNote, "Syntax/Wikilinks.md"},
		{"dot slash with .md", "./Wikilinks.md", rel, LinkNote, "Syntax/Wikilinks.md"},
		{"up and across", "../Science/Black Holes", rel, LinkNote, "Science/Black Holes.md"},
		{"up to root", "../Home", rel, LinkNote, "Home.md"},
		{"dot then up", "./../Home", rel, LinkNote, "Home.md"},
		{"relative is case-insensitive", "../science/BLACK holes", rel, LinkNote, "Science/Black Holes.md"},
		{"relative attachment", "../Attachments/diagram.png", rel, LinkAttachment, "Attachments/diagram.png"},
		{"escaping the vault", "../../Home", rel, LinkUnresolved, ""},
		{"escaping from the root", "../Home", "Home.md", LinkUnresolved, ""},
		{"escaping after a detour", "../Syntax/../../Home", rel, LinkUnresolved, ""},
		{"relative does not fall back to names", "./Home", rel, LinkUnresolved, ""},
		{"relative missing", "./Missing", rel, LinkUnresolved, ""},

		// Exact vault paths.
		{"exact path", "Science/Plate Tectonics", rel, LinkNote, "Science/Plate Tectonics.md"},
		{"exact path with .md", "Science/Plate Tectonics.md", rel, LinkNote, "Science/Plate Tectonics.md"},
		{"exact path any case", "science/PLATE tectonics", rel, LinkNote, "Science/Plate Tectonics.md"},
		{"leading slash", "/Science/Plate Tectonics", rel, LinkNote, "Science/Plate Tectonics.md"},
		{"exact attachment path", "Attachments/diagram.png", rel, LinkAttachment, "Attachments/diagram.png"},
		{"exact attachment path any case", "attachments/DIAGRAM.png", rel, LinkAttachment, "Attachments/diagram.png"},
		{"missing path", "Science/Missing", rel, LinkUnresolved, ""},

		// Path suffixes.
		{"suffix", "Old Notes/Ancient", "Archive/Old Plans.md", LinkNote, "Archive/2019/Old Notes/Ancient.md"},
		{"longer suffix with .md", "2019/Old Notes/Ancient.md", "Home.md", LinkNote, "Archive/2019/Old Notes/Ancient.md"},
		{"suffix any case", "old notes/ANCIENT", "Home.md", LinkNote, "Archive/2019/Old Notes/Ancient.md"},
		{"suffix must start at a folder boundary", "Notes/Ancient", "Home.md", LinkUnresolved, ""},
		{"attachment suffix", "er/diagram.png", "Home.md", LinkAttachment, "Deep/er/diagram.png"},

		// Bare names.
		{"bare name", "Tomatoes", "Home.md", LinkNote, "Gardening/Tomatoes.md"},
		{"bare name any case", "tOMATOES", "Home.md", LinkNote, "Gardening/Tomatoes.md"},
		{"bare name with .md", "Tomatoes.md", "Home.md", LinkNote, "Gardening/Tomatoes.md"},
		{"bare name with .MD", "Tomatoes.MD", "Home.md", LinkNote, "Gardening/Tomatoes.md"},
		{"surrounding spaces", "  Tomatoes ", "Home.md", LinkNote, "Gardening/Tomatoes.md"},
		{"root note by name", "Home", rel, LinkNote, "Home.md"},
		{"unknown name", "Nonexistent Note", "Home.md", LinkUnresolved, ""},

		// Aliases, only when nothing matches by name or path.
		{"alias", "K8s", "Home.md", LinkNote, "Software/Kubernetes.md"},
		{"alias any case", "k8S", "Home.md", LinkNote, "Software/Kubernetes.md"},
		{"list alias", "Start here", rel, LinkNote, "Home.md"},
		{"second list alias", "levain BREAD", rel, LinkNote, "Cooking/Sourdough Bread.md"},
		{"alias is not a path", "Software/K8s", "Home.md", LinkUnresolved, ""},
		{"shared alias: shortest then lexical", "Twin", "Home.md", LinkNote, "A/y.md"},
		{"shared alias: same folder", "TWIN", "B/z.md", LinkNote, "B/x.md"},

		// Attachments match by full file name.
		{"attachment by name", "diagram.png", "Home.md", LinkAttachment, "Attachments/diagram.png"},
		{"attachment in the same folder wins", "diagram.png", "Deep/er/x.md", LinkAttachment, "Deep/er/diagram.png"},
		{"attachment any case", "DIAGRAM.PNG", "Home.md", LinkAttachment, "Attachments/diagram.png"},
		{"pdf", "paper.pdf", "Home.md", LinkAttachment, "Attachments/paper.pdf"},
		{"attachment needs its extension", "diagram", "Home.md", LinkUnresolved, ""},
		{"NFD attachment name", "r\u0065\u0301sume\u0301.pdf", "Home.md", LinkAttachment, "Attachments/r\u00e9sum\u00e9.pdf"},

		// Unicode normalisation.
		{"NFD target, NFD file", "Cafe\u0301", "Home.md", LinkNote, "Caf\u00e9.md"},
		{"NFC target, NFD file", "Caf\u00e9", "Home.md", LinkNote, "Caf\u00e9.md"},
		{"upper-case accented", "CAF\u00c9", "Home.md", LinkNote, "Caf\u00e9.md"},

		// An empty target is the note itself.
		{"self", "", "Syntax/Wikilinks.md", LinkNote, "Syntax/Wikilinks.md"},
		{"self at root", "  ", "Home.md", LinkNote, "Home.md"},
		{"self of an unknown note", "", "Missing.md", LinkUnresolved, ""},
	})
}

func TestResolveTieBreaks(t *testing.T) {
	s := testSnapshot(t, map[string]string{
		"Ideas.md":           "",
		"Projects/Ideas.md":  "",
		"Archive/Ideas.md":   "",
		"A/Dup.md":           "",
		"B/C/Dup.md":         "",
		"aaaaaaaaaa/Deep.md": "",
		"x/y/Deep.md":        "",
		"Long/Same.md":       "",
		"X/Same.md":          "",
		"B/Tie.md":           "",
		"A/Tie.md":           "",
		"P/Sub/N.md":         "",
		"Longer/Sub/N.md":    "",
		"Sub/M.md":           "",
		"Q/Sub/M.md":         "",
		"Other/Plan.md":      "",
		"Docs/Spec.md":       "",
	}, "Plan", "Docs/Spec")
	runResolve(t, s, []resolveCase{
		{"same folder beats a root note", "Ideas", "Projects/Roadmap.md", LinkNote, "Projects/Ideas.md"},
		{"same folder beats a root note (2)", "ideas", "Archive/Old Plans.md", LinkNote, "Archive/Ideas.md"},
		{"fewest folders", "Ideas", "Gardening/Garden Log.md", LinkNote, "Ideas.md"},
		{"root note from the root", "Ideas", "Home.md", LinkNote, "Ideas.md"},
		{"same folder beats fewer folders", "Dup", "B/C/x.md", LinkNote, "B/C/Dup.md"},
		{"fewer folders", "Dup", "Z/x.md", LinkNote, "A/Dup.md"},
		{"a parent folder is not the same folder", "Dup", "B/x.md", LinkNote, "A/Dup.md"},
		{"folders count before characters", "Deep", "Home.md", LinkNote, "aaaaaaaaaa/Deep.md"},
		{"shorter path", "Same", "Home.md", LinkNote, "X/Same.md"},
		{"lexically first", "Tie", "Home.md", LinkNote, "A/Tie.md"},
		{"suffix candidates: shorter", "Sub/N", "Home.md", LinkNote, "P/Sub/N.md"},
		{"path relative to the note's folder before suffixes", "Sub/N", "Longer/q.md", LinkNote, "Longer/Sub/N.md"},
		{"exact vault path beats the note's folder", "Sub/M", "Q/x.md", LinkNote, "Sub/M.md"},
		{"note beats an attachment in the same folder", "Plan", "Home.md", LinkNote, "Other/Plan.md"},
		{"note beats an attachment at the same path", "Docs/Spec", "Home.md", LinkNote, "Docs/Spec.md"},
	})
}

func TestNewSnapshotResolvesLinks(t *testing.T) {
	s := testSnapshot(t, map[string]string{
		"Q/x.md":                     "[[Sub/M]]\n[m](Sub/M.md)\n[r](../Sub/M.md)\n[[#Top]]\n[[Gone]]\n![[pic.png]]\n[t](Science/Plate%20Tectonics.md)\n[u](./Sub/M.md#^blk)\n",
		"Sub/M.md":                   "",
		"Q/Sub/M.md":                 "",
		"Science/Plate Tectonics.md": "",
		"Z/pic.png.txt.md":           "",
	}, "Z/pic.png")
	type res struct {
		kind LinkKind
		path string
	}
	want := []res{
		{LinkNote, "Sub/M.md"},                   // wikilink path: exact vault path first (rule 4)
		{LinkNote, "Q/Sub/M.md"},                 // markdown link: the note's folder first (rule 7)
		{LinkNote, "Sub/M.md"},                   // explicit ../
		{LinkNote, "Q/x.md"},                     // [[#Top]] is the note itself
		{LinkUnresolved, ""},                     // missing
		{LinkAttachment, "Z/pic.png"},            // attachment
		{LinkNote, "Science/Plate Tectonics.md"}, // not in Q/, so the vault root
		{LinkNote, "Q/Sub/M.md"},                 // explicit ./
	}
	n := s.Note("Q/x.md")
	if n == nil {
		t.Fatal("Q/x.md not indexed")
	}
	var got []res
	for _, l := range n.Links {
		got = append(got, res{l.Kind, l.Resolved})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resolved links =\n%v\nwant\n%v", got, want)
	}
	if !slices.IsSortedFunc(s.Notes, func(a, b *Note) int {
		if a.Path < b.Path {
			return -1
		}
		return 1
	}) {
		t.Errorf("Notes not sorted by path")
	}
}

func TestSnapshotIndex(t *testing.T) {
	s := mainSnapshot(t)
	tests := []struct {
		in   string
		want string // "" = not found
	}{
		{"Home.md", "Home.md"},
		{"Home", "Home.md"},
		{"home.MD", "Home.md"}, // the extension is case-insensitive too
		{"/Home.md", "Home.md"},
		{"science/black holes.md", "Science/Black Holes.md"},
		{"Cafe\u0301.md", "Caf\u00e9.md"},
		{"Black Holes.md", ""}, // Index is by path only
		{"Attachments/diagram.png", ""},
	}
	for _, tt := range tests {
		n := s.Note(tt.in)
		got := ""
		if n != nil {
			got = n.Path
			if i, ok := s.NoteID(tt.in); !ok || s.Notes[i] != n {
				t.Errorf("Index(%q) = %d, %v; disagrees with Note", tt.in, i, ok)
			}
		}
		if got != tt.want {
			t.Errorf("Note(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSnapshotLookup(t *testing.T) {
	s := mainSnapshot(t)
	tests := []struct {
		name, ref, want string
	}{
		{"path", "Science/Plate Tectonics.md", "Science/Plate Tectonics.md"},
		{"path without extension", "science/plate tectonics", "Science/Plate Tectonics.md"},
		{"path with leading slash", "/Home.md", "Home.md"},
		{"name", "Tomatoes", "Gardening/Tomatoes.md"},
		{"name any case", "black holes", "Science/Black Holes.md"},
		{"path suffix", "Old Notes/Ancient", "Archive/2019/Old Notes/Ancient.md"},
		{"alias", "K8s", "Software/Kubernetes.md"},
		{"list alias", "Index", "Home.md"},
		{"frontmatter title", "Unicode Normalisation", "Syntax/Unicode NFD.md"},
		{"title any case and spaces", "  unicode NORMALISATION ", "Syntax/Unicode NFD.md"},
		{"NFD name", "Cafe\u0301", "Caf\u00e9.md"},
		{"unknown", "Nothing Like This", ""},
		{"attachment is not a note", "diagram.png", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if n := s.Lookup(tt.ref); n != nil {
				got = n.Path
			}
			if got != tt.want {
				t.Errorf("Lookup(%q) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

func TestSnapshotSuggest(t *testing.T) {
	s := mainSnapshot(t)
	tests := []struct {
		name  string
		ref   string
		limit int
		want  []string
	}{
		{"typo", "Kubernets", 1, []string{"Software/Kubernetes.md"}},
		{"typo with extension and folder", "Gardens/Tomatos.md", 1, []string{"Gardening/Tomatoes.md"}},
		{"alias typo", "K9s", 1, []string{"Software/Kubernetes.md"}},
		{"fragment of a title", "normalisation", 1, []string{"Syntax/Unicode NFD.md"}},
		{"fragment of a name", "Holes", 1, []string{"Science/Black Holes.md"}},
		{"exact alias first, then path order", "twin", 5, []string{"A/y.md", "B/x.md"}},
		{"nothing close", "zzzzzzzzzzzzzzzz", 5, nil},
		{"zero limit", "Tomatoes", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Suggest(tt.ref, tt.limit)
			if !eqList(got, tt.want) {
				t.Errorf("Suggest(%q, %d) = %q, want %q", tt.ref, tt.limit, got, tt.want)
			}
		})
	}
	t.Run("limit and determinism", func(t *testing.T) {
		all := s.Suggest("e", 100)
		if len(all) < 3 {
			t.Fatalf("Suggest(e) = %q, want several", all)
		}
		two := s.Suggest("e", 2)
		if !reflect.DeepEqual(two, all[:2]) {
			t.Errorf("Suggest(e, 2) = %q, want the first two of %q", two, all)
		}
		if again := s.Suggest("e", 100); !reflect.DeepEqual(again, all) {
			t.Errorf("Suggest not deterministic: %q vs %q", again, all)
		}
	})
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"café", "cafe", 1}, // runes, not bytes
		{"日本語", "日本", 1},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
