package privacy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadReadsIgnoreFile: .enquire/ignore is read from the vault, its
// errors name the line, and a symlink out of the vault is refused.
func TestLoadReadsIgnoreFile(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".enquire/ignore": "Journal/\n"})
	r, err := Load(ctx, root, Config{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Excluded("Journal/a.md") || r.Excluded("a.md") || !r.PathRules() {
		t.Error("ignore file not applied")
	}

	writeFiles(t, root, map[string]string{".enquire/ignore": "ok\nbad[x\n"})
	if _, err := Load(ctx, root, Config{}, false); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: err = %v", err)
	}

	none := t.TempDir()
	r, err = Load(ctx, none, Config{MarkerKey: "private"}, false)
	if err != nil || r.PathRules() || !r.Active() {
		t.Errorf("no ignore file: %v, path rules %v", err, r.PathRules())
	}

	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"ignore": "x\n"})
	linked := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(linked, ".enquire")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := Load(ctx, linked, Config{}, false); err == nil {
		t.Error("an ignore file reached through a symlink out of the vault was read")
	}
}

func TestCaseInsensitive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Vault")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(dir), "vAULT"))
	if got, want := CaseInsensitive(dir), err == nil; got != want {
		t.Errorf("CaseInsensitive = %v, but the flipped name resolves: %v", got, want)
	}
}

// TestLoaderHidesWhatRulesHide loads a vault with every kind of rule and
// checks the snapshot: hidden notes, PDFs and attachments are absent,
// links to them unresolved, warnings about them gone, counts reported.
func TestLoaderHidesWhatRulesHide(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"Home.md":           "[[Secret]] [[Diary]] [[Open]] ![[scan.png]]",
		"Open.md":           "visible",
		"Private/Secret.md": "---\naliases: [hush]\n---\nsecret",
		"Private/scan.png":  "png",
		"Private/paper.pdf": "not really a pdf",
		"Diary.md":          "---\nprivate: true\n---\ndear diary",
		// Malformed YAML is dropped whole (as Obsidian does), marker included:
		// the note stays visible and the load warns (see README, Privacy).
		// Malformed YAML is dropped whole, marker included (as in Obsidian):
		// the note stays visible with a warning (README, Privacy).
		"Broken.md":           "---\nprivate: true\nx: [\n---\nmalformed yaml",
		"Journal/2026.md":     "journal",
		".enquire/ignore":     "Journal/\n",
		"Attachments/img.png": "png",
	})
	rules, err := Load(ctx, root, Config{Exclude: []string{"Private/**"}, MarkerKey: DefaultMarkerKey}, false)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(ctx, root, vault.Options{Filter: rules, PDFs: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range snap.Notes {
		paths = append(paths, n.Path)
	}
	if want := []string{"Broken.md", "Home.md", "Open.md"}; !slices.Equal(paths, want) {
		t.Errorf("notes %v, want %v", paths, want)
	}
	if len(snap.Attachments) != 1 || snap.Attachments[0].Path != "Attachments/img.png" {
		t.Errorf("attachments %+v", snap.Attachments)
	}
	// Secret.md, paper.pdf (a document with PDFs on), Journal/2026.md, Diary.md.
	if snap.Privacy.HiddenNotes != 4 || snap.Privacy.HiddenFiles != 1 {
		t.Errorf("hidden %d notes, %d files; want 4 and 1", snap.Privacy.HiddenNotes, snap.Privacy.HiddenFiles)
	}
	home := snap.Note("Home.md")
	for _, l := range home.Links {
		if l.Target != "Open" && l.Resolved != "" {
			t.Errorf("link %s resolved to hidden %s", l.Target, l.Resolved)
		}
	}
	if snap.Lookup("hush") != nil || len(snap.Suggest("Secret", 5)) != 0 {
		t.Error("a hidden note is found by alias or suggested")
	}
	for _, w := range snap.Warnings {
		if strings.Contains(w.Path, "Private") || strings.Contains(w.Path, "Diary") {
			t.Errorf("warning about a hidden file: %v", w)
		}
	}
	for _, p := range []string{"Private/Secret.md", "Diary.md", "Journal/2026.md"} {
		if !snap.Hides(p) {
			t.Errorf("Hides(%s) = false", p)
		}
	}
	if snap.Hides("Open.md") {
		t.Error("Hides(Open.md)")
	}
}

// FuzzRulesAgreeWithLoader generates random rule sets (the fuzzer's
// globs and ignore text) and a random vault (from seed), and checks that
// the loaded snapshot holds exactly the notes and attachments the matcher
// shows, that Snapshot.Hides agrees, and that the hidden counts add up.
func FuzzRulesAgreeWithLoader(f *testing.F) {
	f.Add(uint64(1), "Private/**", "Journal/\n!Journal/keep.md\n", "")
	f.Add(uint64(2), "**/*.md", "", "a/**")
	f.Add(uint64(3), "", "*\n!*/\n!*.md\n", "")
	f.Add(uint64(4), "{a,b}/*", "/c\n**/x*\n", "**")
	f.Add(uint64(5), "[ab]*/**", "b/\n", "*/*.md")
	f.Fuzz(func(t *testing.T, seed uint64, exclude, ignore, allow string) {
		if strings.Count(exclude+allow, "{") > 4 {
			return // brace alternatives multiply: a few dozen make any glob matcher crawl
		}
		cfg := Config{MarkerKey: DefaultMarkerKey}
		if exclude != "" {
			cfg.Exclude = strings.Split(exclude, ";")
		}
		if allow != "" {
			cfg.Allow = strings.Split(allow, ";")
		}
		var ig []byte
		if ignore != "" {
			ig = []byte(ignore)
		}
		rules, err := Compile(cfg, ig, false)
		if err != nil {
			return // invalid rules are refused at start, never applied
		}
		root := t.TempDir()
		files := randomVault(seed)
		writeFiles(t, root, files)
		snap, err := vault.Load(context.Background(), root, vault.Options{Filter: rules})
		if err != nil {
			t.Fatal(err)
		}
		var gotNotes, gotAtts []string
		for _, n := range snap.Notes {
			gotNotes = append(gotNotes, n.Path)
		}
		for _, a := range snap.Attachments {
			gotAtts = append(gotAtts, a.Path)
		}
		var wantNotes, wantAtts []string
		hidden := 0
		for p, body := range files {
			shown := !rules.Excluded(p) && !(vault.IsNote(p) && strings.Contains(body, "private: true"))
			switch {
			case shown && vault.IsNote(p):
				wantNotes = append(wantNotes, p)
			case shown:
				wantAtts = append(wantAtts, p)
			case vault.IsNote(p):
				hidden++
			}
			if snap.Hides(p) == shown {
				t.Errorf("Hides(%q) = %v, matcher shows it: %v", p, !shown, shown)
			}
		}
		slices.Sort(wantNotes)
		slices.Sort(wantAtts)
		if !slices.Equal(gotNotes, wantNotes) || !slices.Equal(gotAtts, wantAtts) {
			t.Errorf("rules %+v ignore %q\nnotes %v\nwant  %v\natts %v\nwant %v", cfg, ignore, gotNotes, wantNotes, gotAtts, wantAtts)
		}
		if snap.Privacy.HiddenNotes != hidden {
			t.Errorf("HiddenNotes = %d, want %d", snap.Privacy.HiddenNotes, hidden)
		}
	})
}

// randomVault returns up to 12 files under a few folders, some marked
// private, from a fixed alphabet of names.
func randomVault(seed uint64) map[string]string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dirs := []string{"", "a/", "b/", "a/b/", "Journal/", "Private/", "c d/", "x1/"}
	names := []string{"keep.md", "x.md", "a.md", "Note.md", "c", "img.png", "doc.pdf", "b.md", "x y.md", "é.md"}
	files := map[string]string{}
	for i := range 1 + rng.IntN(12) {
		p := dirs[rng.IntN(len(dirs))] + names[rng.IntN(len(names))]
		body := fmt.Sprintf("note %d", i)
		if rng.IntN(4) == 0 {
			body = "---\nprivate: true\n---\n" + body
		}
		files[p] = body
	}
	return files
}
