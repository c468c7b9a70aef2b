package vaulttest

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Mutator changes a vault copy at random, the way a person and their
// tools do: notes created, edited, deleted and renamed, aliases and links
// changed, folders created and moved, attachments added and removed. The
// same seed makes the same changes, so a failure can be replayed.
type Mutator struct {
	tb   testing.TB
	root string
	rng  *rand.Rand
	n    int
}

// NewMutator changes the vault at root with the given seed.
func NewMutator(tb testing.TB, root string, seed uint64) *Mutator {
	return &Mutator{tb: tb, root: root, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// words make note text; some are shared with names so links and searches
// find them.
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
	"juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
	"sourdough", "hydration", "garden", "tomato", "python", "graph", "search", "index", "watch", "café"}

// Step makes one random change and returns the vault-relative paths it
// touched (for a folder, the folder).
func (m *Mutator) Step() []string {
	m.n++
	notes, folders := m.list()
	op := m.rng.IntN(100)
	switch {
	case op < 25 || len(notes) < 3:
		return m.create(folders)
	case op < 55:
		return m.edit(notes)
	case op < 65:
		return m.remove(notes)
	case op < 77:
		return m.rename(notes, folders)
	case op < 82:
		return m.moveFolder(folders)
	case op < 88:
		return m.attachment()
	case op < 94:
		return m.aliases(notes)
	default:
		return m.newFolder()
	}
}

func (m *Mutator) pick(s []string) string { return s[m.rng.IntN(len(s))] }

// text is a random note: frontmatter sometimes (with a property link),
// words, links to names that exist or not, tags, a heading.
func (m *Mutator) text(notes []string) string {
	var b strings.Builder
	if m.rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "---\naliases: [%s%d]\ntags: [t%d]\n%s---\n", m.pick(words), m.rng.IntN(20), m.rng.IntN(5), m.propertyLink(notes))
	}
	fmt.Fprintf(&b, "# %s %s\n\n", m.pick(words), m.pick(words))
	for range 5 + m.rng.IntN(30) {
		b.WriteString(m.pick(words))
		b.WriteByte(' ')
		switch m.rng.IntN(12) {
		case 0:
			if len(notes) > 0 {
				fmt.Fprintf(&b, "[[%s]] ", strings.TrimSuffix(filepath.Base(m.pick(notes)), ".md"))
			}
		case 1:
			fmt.Fprintf(&b, "[[%s%d]] ", m.pick(words), m.rng.IntN(20))
		case 2:
			fmt.Fprintf(&b, "#tag%d ", m.rng.IntN(6))
		case 3:
			if len(notes) > 0 {
				fmt.Fprintf(&b, "[[%s|shown]] ", strings.TrimSuffix(m.pick(notes), ".md"))
			}
		case 4:
			fmt.Fprintf(&b, "![[img%d.png]] ", m.rng.IntN(4))
		}
	}
	b.WriteString("\n")
	return b.String()
}

func (m *Mutator) create(folders []string) []string {
	notes, _ := m.list()
	dir := m.pick(append(folders, ""))
	name := fmt.Sprintf("%s%d.md", m.pick(words), m.rng.IntN(20))
	p := filepath.ToSlash(filepath.Join(dir, name))
	m.write(p, m.text(notes))
	return []string{p}
}

func (m *Mutator) edit(notes []string) []string {
	p := m.pick(notes)
	if m.rng.IntN(2) == 0 {
		m.write(p, m.text(notes))
		return []string{p}
	}
	f, err := os.OpenFile(m.abs(p), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		m.tb.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "\nappended %s [[%s%d]] %d\n", m.pick(words), m.pick(words), m.rng.IntN(20), m.n); err != nil {
		m.tb.Fatal(err)
	}
	return []string{p}
}

func (m *Mutator) remove(notes []string) []string {
	p := m.pick(notes)
	if err := os.Remove(m.abs(p)); err != nil {
		m.tb.Fatal(err)
	}
	return []string{p}
}

func (m *Mutator) rename(notes, folders []string) []string {
	from := m.pick(notes)
	dir := m.pick(append(folders, ""))
	to := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("%s%d.md", m.pick(words), m.rng.IntN(20))))
	if _, err := os.Stat(m.abs(to)); err == nil || to == from {
		return nil
	}
	if err := os.Rename(m.abs(from), m.abs(to)); err != nil {
		m.tb.Fatal(err)
	}
	return []string{from, to}
}

func (m *Mutator) moveFolder(folders []string) []string {
	if len(folders) == 0 {
		return m.newFolder()
	}
	from := m.pick(folders)
	to := fmt.Sprintf("moved%d", m.n)
	if err := os.Rename(m.abs(from), m.abs(to)); err != nil {
		m.tb.Fatal(err)
	}
	return []string{from, to}
}

func (m *Mutator) newFolder() []string {
	notes, _ := m.list()
	dir := fmt.Sprintf("folder%d", m.n)
	for i := range 1 + m.rng.IntN(4) {
		m.write(fmt.Sprintf("%s/sub/%s%d.md", dir, m.pick(words), i), m.text(notes))
	}
	return []string{dir}
}

func (m *Mutator) attachment() []string {
	p := fmt.Sprintf("img%d.png", m.rng.IntN(4))
	if _, err := os.Stat(m.abs(p)); err == nil {
		if err := os.Remove(m.abs(p)); err != nil {
			m.tb.Fatal(err)
		}
		return []string{p}
	}
	m.write(p, "\x89PNG fake")
	return []string{p}
}

func (m *Mutator) aliases(notes []string) []string {
	p := m.pick(notes)
	m.write(p, fmt.Sprintf("---\naliases: [%s%d, %s]\n%s---\nNow known by another name.\n", m.pick(words), m.rng.IntN(20), m.pick(words), m.propertyLink(notes)))
	return []string{p}
}

// propertyLink is a frontmatter line linking to a note (or to a name that
// may not exist), in one of the YAML forms Obsidian writes. It is chosen
// from the step count, not the random source, so that the sequence of
// changes a seed makes stays what it was without property links.
func (m *Mutator) propertyLink(notes []string) string {
	name := fmt.Sprintf("%s%d", words[m.n%len(words)], m.n%20)
	if len(notes) > 0 && m.n%4 != 0 {
		name = strings.TrimSuffix(filepath.Base(notes[m.n%len(notes)]), ".md")
	}
	switch m.n % 3 {
	case 0:
		return fmt.Sprintf("up: \"[[%s]]\"\n", name)
	case 1:
		return fmt.Sprintf("related: [\"[[%s|shown]]\", \"[[%s]]\"]\n", name, words[m.n%len(words)])
	}
	return fmt.Sprintf("people:\n  - \"[[%s#Part]]\"\n", name)
}

func (m *Mutator) write(p, text string) {
	abs := m.abs(p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		m.tb.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		m.tb.Fatal(err)
	}
}

func (m *Mutator) abs(p string) string { return filepath.Join(m.root, filepath.FromSlash(p)) }

// list returns the vault's notes and folders (vault-relative, sorted),
// leaving out the folders a vault load skips.
func (m *Mutator) list() (notes, folders []string) {
	err := filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			folders = append(folders, rel)
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(rel, ".md") {
			notes = append(notes, rel)
		}
		return nil
	})
	if err != nil {
		m.tb.Fatal(err)
	}
	slices.Sort(notes)
	slices.Sort(folders)
	return notes, folders
}

// Generate writes a vault of n notes with links, aliases and tags under
// root (for tests that need more notes than testdata/vault has).
func Generate(tb testing.TB, root string, n int, seed uint64) {
	tb.Helper()
	m := NewMutator(tb, root, seed)
	var names []string
	for i := range n {
		dir := fmt.Sprintf("f%d", i%7)
		if i%5 == 0 {
			dir = fmt.Sprintf("f%d/deep%d", i%7, i%3)
		}
		p := fmt.Sprintf("%s/%s %d.md", dir, m.pick(words), i)
		names = append(names, p)
		m.write(p, m.text(names))
	}
}
