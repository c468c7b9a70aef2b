package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/ocr/ocrtest"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// canary is the prefix of every string planted in the private notes of
// the leak test: no response and no index byte may contain it (in any
// case: tags and FTS terms are folded, and the stemmer keeps the prefix).
const canary = "qqcanary"

// leakVault is the leak test's vault. Visible notes never contain the
// canary; hidden ones hold it in every place a note can: title, alias,
// tags, body, frontmatter, headings, a PDF, a link text, a file name. They
// are hidden by each kind of rule: an exclude glob (Private/), the ignore
// file (Journal/, *.secret.md), the allow list (Outside/ is not allowed)
// and the frontmatter marker (Diary.md).
var leakVault = map[string]string{
	"Home.md":          "---\ntags: [project]\nstatus: active\n---\n# Home\n\nProject hub for the team. See [[Visible B]], [[Private/hidden-target]], [[Diary]] and [[Journal/day]].\n",
	"Visible B.md":     "# Visible B\n\nMeeting notes about the project. Back to [[Home]].\n",
	"Projects/Plan.md": "---\nstatus: active\n---\n# Plan\n\nThe plan leans on [[Private/hidden-target]] only.\n",
	"Private/hidden-target.md": "---\ntitle: qqcanarytitle Secret Title\naliases: [qqcanaryalias]\ntags: [qqcanarytag, project]\nsecretfield: qqcanaryfrontmatter\nstatus: active\n---\n" +
		"# qqcanaryheading\n\nqqcanarybody project meeting notes. Links [[Home|qqcanarylinktext]] and [[Visible B]].\n#qqcanaryinlinetag\n",
	"Private/qqcanaryfilename.md": "plain words, project, [[Visible B]] and [[Home]]\n",
	"Journal/day.md":              "# Day\n\nqqcanaryjournal project diary [[Home]]\n",
	"Notes/a.secret.md":           "qqcanarysecretfile project [[Home]]\n",
	"Outside/loose.md":            "qqcanaryoutside project [[Home]]\n",
	"Diary.md":                    "---\nprivate: true\ntags: [qqcanarydiarytag]\naliases: [qqcanarydiaryalias]\n---\n# qqcanarydiaryheading\n\nqqcanarydiary project feelings, see [[Home|qqcanarydiarylink]]\n",
}

// leakRules are the flags of every command of the leak test.
var leakRules = []string{"--exclude-glob", "Private/**", "--read-paths", "*.md", "--read-paths", "Projects/**",
	"--read-paths", "Private/**", "--read-paths", "Journal/**", "--read-paths", "Notes/**",
	"--private-key", "private"} // the marker back on: the index keeps the "" of the run without rules

// leakIgnore is the vault's .enquire/ignore in the leak test.
const leakIgnore = "# rules that travel with the vault\nJournal/\n*.secret.md\n"

// canaryWords are the queries that would surface each canary.
var canaryWords = []string{"qqcanarytitle", "qqcanaryalias", "qqcanarytag", "qqcanarybody", "qqcanaryfrontmatter",
	"qqcanaryheading", "qqcanarylinktext", "qqcanaryfilename", "qqcanarypdf", "qqcanaryjournal", "qqcanarysecretfile",
	"qqcanaryoutside", "qqcanarydiary"}

func writeLeakVault(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string][]byte{"Private/report.pdf": ocrtest.TextPDF("qqcanarypdf quarterly project figures")}
	for p, s := range leakVault {
		files[p] = []byte(s)
	}
	for p, b := range files {
		servicetest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), b)
	}
	return root
}

// serveMCP starts the binary's server and connects an MCP client to it.
func serveMCP(ctx context.Context, t *testing.T, bin string, args ...string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "leak-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	return cs, stderr
}

// runBin runs the built binary and fails the test on a non-zero exit.
func runBin(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("enquire-mcp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// scanWritten walks dirs (the folders the program writes: its cache,
// model and index folders) and returns every file whose bytes hold the
// canary, in any case, and every file it read.
func scanWritten(t *testing.T, dirs ...string) (leaks, files []string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, p)
			if bytes.Contains(bytes.ToLower(raw), []byte(canary)) {
				leaks = append(leaks, p)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	return leaks, files
}

// userDirs points the user's home, cache, config, data and state folders
// at a fresh folder, so that every file the program writes by default
// lands in it, and returns it.
func userDirs(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for v, d := range map[string]string{"XDG_CACHE_HOME": ".cache", "XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share", "XDG_STATE_HOME": ".local/state"} {
		t.Setenv(v, filepath.Join(home, d))
	}
	return home
}

// wantEngineState fails the test unless files include an engine state
// (the file that held hidden paths): a scan without it proves little.
func wantEngineState(t *testing.T, files []string) {
	t.Helper()
	if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".engine") }) {
		t.Fatalf("no engine state among the files written: %v", files)
	}
}

// noCanary fails the test when a file under dirs holds a canary (after
// says when) or no engine state was written; it returns the files.
func noCanary(t *testing.T, after string, dirs ...string) []string {
	t.Helper()
	leaks, files := scanWritten(t, dirs...)
	wantEngineState(t, files)
	if len(leaks) > 0 {
		t.Fatalf("canaries in %v after %s", leaks, after)
	}
	return files
}

// TestPrivacyLeak is the privacy boundary's proof. It indexes the vault
// (text and embeddings) without rules, checks that the canaries are then
// in the index file, its engine state and the vault-learned model, adds
// the rules, reindexes, and checks that no byte of any file the program
// wrote (the index, its WAL and shared memory, the engine state, the
// vault model, the user's cache and model folders) holds a canary any
// more. Then it serves the vault with the rules, every signal and the write
// tools, and calls every registered tool (enumerated from the server: a
// tool without argument sets fails the test), reads every resource and
// gets every prompt, with arguments that would surface the canaries if
// the rules were ignored; no answer may contain one.
func TestPrivacyLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	home := userDirs(t)
	root := writeLeakVault(t)
	ixFile := filepath.Join(t.TempDir(), "index.db")
	written := []string{home, filepath.Dir(ixFile)}
	common := []string{"--vault", root, "--index-file", ixFile, "--include-pdfs"}

	// Without rules (marker off): the canaries are indexed, so the byte
	// scan below can see them.
	runBin(t, bin, append([]string{"index", "--private-key", ""}, common...)...)
	runBin(t, bin, append([]string{"build-embeddings", "--private-key", "", "--embedding-model", "vault"}, common...)...)
	runBin(t, bin, append([]string{"build-embeddings", "--private-key", "", "--embedding-model", "builtin"}, common...)...)
	leaks, files := scanWritten(t, written...)
	wantEngineState(t, files)
	for _, f := range []string{ixFile, ixFile + ".engine", ixFile + ".words"} {
		if !slices.Contains(leaks, f) {
			t.Fatalf("the canaries are not in %s built without rules (only in %v): the scan would prove nothing", f, leaks)
		}
	}
	raw, _ := os.ReadFile(ixFile)
	if !bytes.Contains(raw, []byte("qqcanarypdf")) {
		t.Fatal("the PDF's canary was not indexed without rules: the PDF part would prove nothing")
	}

	// With the rules: everything hidden is purged from every file.
	if err := os.MkdirAll(filepath.Join(root, ".enquire"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".enquire", "ignore"), []byte(leakIgnore), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runBin(t, bin, append(append([]string{"index"}, common...), leakRules...)...)
	if !strings.Contains(out, "files purged") || !strings.Contains(out, "index file rewritten") {
		t.Errorf("index did not report the purge:\n%s", out)
	}
	if strings.Contains(strings.ToLower(out), canary) {
		t.Errorf("index output names a hidden file:\n%s", out)
	}
	if leaks, _ := scanWritten(t, written...); len(leaks) > 0 {
		t.Fatalf("canaries left in %v after index with rules", leaks)
	}
	runBin(t, bin, append(append([]string{"build-embeddings", "--embedding-model", "builtin"}, common...), leakRules...)...)
	if leaks, _ := scanWritten(t, written...); len(leaks) > 0 {
		t.Fatalf("canaries left in %v after build-embeddings with rules", leaks)
	}

	// Served with the rules, every signal and the write tools; the same
	// vault without its hidden files, served plainly, is the reference of
	// what "missing" looks like.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, stderr := serveMCP(ctx, t, bin, append(append([]string{"serve", "--enable-write", "--persistent-index"}, common...), leakRules...)...)
	plain := t.TempDir()
	for p, body := range leakVault {
		if !slices.Contains(hiddenPaths, p) {
			servicetest.WriteFile(t, filepath.Join(plain, filepath.FromSlash(p)), []byte(body))
		}
	}
	ref, _ := serveMCP(ctx, t, bin, "serve", "--enable-write", "--vault", plain)
	checkNoLeaks(ctx, t, cs)
	checkMissingLikeHidden(ctx, t, cs, ref)
	ref.Close()
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if log := strings.ToLower(stderr.String()); strings.Contains(log, canary) {
		t.Errorf("the server log names a hidden file:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "privacy rules") || !strings.Contains(stderr.String(), "hidden_notes=7") {
		t.Errorf("the server log does not report the rules and the hidden count:\n%s", stderr.String())
	}
	noCanary(t, "serving", written...)
}

// TestPrivacyLeakFirstRun: with the rules active from the first run, no
// file the program writes (the index, engine state and vault-learned
// model in the default cache folder, which is the model folder too) ever
// holds a canary: not after index and build-embeddings, nor after a serve
// during which a note marked itself private and an excluded file
// appeared.
func TestPrivacyLeakFirstRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	home := userDirs(t)
	root := writeLeakVault(t)
	servicetest.WriteFile(t, filepath.Join(root, ".enquire", "ignore"), []byte(leakIgnore))
	common := append([]string{"--vault", root, "--include-pdfs"}, leakRules...)
	runBin(t, bin, append([]string{"index"}, common...)...)
	runBin(t, bin, append([]string{"build-embeddings", "--embedding-model", "vault"}, common...)...)
	runBin(t, bin, append([]string{"build-embeddings", "--embedding-model", "builtin"}, common...)...)
	files := noCanary(t, "index and build-embeddings", home)
	if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".words") }) {
		t.Fatalf("no vault-learned model among the files written: %v", files)
	}

	// A new excluded file, found by serve's start; a note that marks
	// itself private, written through the server (its reload is at once).
	servicetest.WriteFile(t, filepath.Join(root, "Private", "qqcanarylatername.md"), []byte("project\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, stderr := serveMCP(ctx, t, bin, append([]string{"serve", "--persistent-index", "--enable-write"}, common...)...)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_create_note",
		Arguments: map[string]any{"path": "qqcanarylater.md", "content": "---\nprivate: true\n---\nqqcanarylatertext project\n"}})
	if err != nil || res.IsError {
		t.Fatalf("create_note: %v %+v", err, res)
	}
	got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "obsidian://vault/info"})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(got); !strings.Contains(string(raw), `hidden_notes\": 9`) {
		t.Fatalf("the new hidden files are not counted: %s\n%s", raw, stderr.String())
	}
	if err := cs.Close(); err != nil { // the server saves its engine state as it ends
		t.Logf("close: %v", err)
	}
	noCanary(t, "serving", home)
}

// TestPrivacyLeakStaleState: the engine state saved before the rules
// existed holds the canaries; a serve with the rules that is killed right
// after it started (before it saves its own state) leaves no file that
// holds one.
func TestPrivacyLeakStaleState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	home := userDirs(t)
	root := writeLeakVault(t)
	ixFile := filepath.Join(t.TempDir(), "index.db")
	written := []string{home, filepath.Dir(ixFile)}
	common := []string{"--vault", root, "--index-file", ixFile, "--include-pdfs"}
	runBin(t, bin, append([]string{"index", "--private-key", ""}, common...)...)
	if leaks, _ := scanWritten(t, written...); !slices.Contains(leaks, ixFile+".engine") {
		t.Fatalf("the canaries are not in the engine state saved without rules (only in %v): the test would prove nothing", leaks)
	}
	servicetest.WriteFile(t, filepath.Join(root, ".enquire", "ignore"), []byte(leakIgnore))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, append(append([]string{"serve"}, common...), leakRules...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "leak-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // before its first save
		t.Fatal(err)
	}
	// The transport waits for the killed process; a second Wait here
	// would race with it.
	_ = cs.Close()
	if leaks, _ := scanWritten(t, written...); len(leaks) > 0 {
		t.Fatalf("canaries in %v after a start with the rules\n%s", leaks, stderr.String())
	}
}

// leakCalls are the argument sets of every tool: each would surface a
// canary if the rules were ignored. A registered tool missing here fails
// the test.
func leakCalls() map[string][]map[string]any {
	calls := map[string][]map[string]any{}
	for _, w := range canaryWords {
		for _, tool := range []string{"obsidian_search", "obsidian_full_text_search", "obsidian_embeddings_search", "obsidian_search_text"} {
			calls[tool] = append(calls[tool], map[string]any{"query": w})
		}
		calls["obsidian_context_pack"] = append(calls["obsidian_context_pack"], map[string]any{"query": w + " project", "budget_tokens": 4000})
		calls["obsidian_read_note"] = append(calls["obsidian_read_note"], map[string]any{"title": w})
		calls["obsidian_resolve_wikilink"] = append(calls["obsidian_resolve_wikilink"], map[string]any{"wikilink": "[[" + w + "]]"})
	}
	calls["obsidian_search"] = append(calls["obsidian_search"],
		map[string]any{"query": "project meeting notes", "limit": 50},
		map[string]any{"query": "project", "tag": "qqcanarytag"},
		map[string]any{"query": "project", "folder": "Private"})
	calls["obsidian_context_pack"] = append(calls["obsidian_context_pack"], map[string]any{"query": "project meeting notes", "budget_tokens": 8000})
	for _, w := range canaryWords { // passages, related notes and paging
		calls["obsidian_search"] = append(calls["obsidian_search"], map[string]any{"query": w + " project", "max_passages": 10, "expand": true, "cursor": ""})
	}
	for _, p := range append(slices.Clone(hiddenPaths), "Home.md", "Visible B.md", "Projects/Plan.md") {
		calls["obsidian_get_chunk"] = append(calls["obsidian_get_chunk"], map[string]any{"chunk_id": p + "#0@00000000", "context": 10})
	}
	for _, tool := range []string{"obsidian_embeddings_search", "obsidian_full_text_search", "obsidian_search_text"} {
		calls[tool] = append(calls[tool], map[string]any{"query": "project meeting notes feelings quarterly figures diary", "limit": 50})
	}
	for _, p := range hiddenPaths {
		calls["obsidian_read_note"] = append(calls["obsidian_read_note"], map[string]any{"path": p})
		calls["obsidian_get_backlinks"] = append(calls["obsidian_get_backlinks"], map[string]any{"path": p})
		calls["obsidian_get_outbound_links"] = append(calls["obsidian_get_outbound_links"], map[string]any{"path": p})
		calls["obsidian_get_note_neighbors"] = append(calls["obsidian_get_note_neighbors"], map[string]any{"path": p})
		calls["obsidian_find_similar"] = append(calls["obsidian_find_similar"], map[string]any{"path": p})
		calls["obsidian_resolve_wikilink"] = append(calls["obsidian_resolve_wikilink"], map[string]any{"wikilink": "[[" + strings.TrimSuffix(p, ".md") + "]]"})
	}
	for _, p := range []string{"Home.md", "Visible B.md", "Projects/Plan.md"} {
		calls["obsidian_read_note"] = append(calls["obsidian_read_note"], map[string]any{"path": p})
		calls["obsidian_get_backlinks"] = append(calls["obsidian_get_backlinks"], map[string]any{"path": p})
		calls["obsidian_get_outbound_links"] = append(calls["obsidian_get_outbound_links"], map[string]any{"path": p})
		calls["obsidian_get_note_neighbors"] = append(calls["obsidian_get_note_neighbors"], map[string]any{"path": p, "max_per_bucket": 50})
		calls["obsidian_find_similar"] = append(calls["obsidian_find_similar"], map[string]any{"path": p})
	}
	calls["obsidian_read_note"] = append(calls["obsidian_read_note"], map[string]any{"path": "Home.md", "format": "map"})
	calls["obsidian_list_notes"] = []map[string]any{{}, {"folder": "Private"}, {"folder": "Journal"}, {"limit": 100, "include_pdfs": true}, {"tag": "qqcanarytag"}}
	calls["obsidian_get_recent_edits"] = []map[string]any{{"limit": 50, "include_pdfs": true}}
	calls["obsidian_get_unresolved_wikilinks"] = []map[string]any{{}, {"include_embeds": true, "limit": 500}}
	calls["obsidian_find_path"] = []map[string]any{
		{"from": "Projects/Plan.md", "to": "Visible B.md"},
		{"from": "Projects/Plan.md", "to": "Home.md"},
		{"from": "Home.md", "to": "Private/hidden-target.md"},
	}
	calls["obsidian_list_tags"] = []map[string]any{{}, {"prefix": "qqcanary"}}
	calls["obsidian_frontmatter_search"] = []map[string]any{{"key": "secretfield"}, {"key": "private", "equals": true}, {"key": "status", "equals": "active"}}
	calls["obsidian_stats"] = []map[string]any{{}}
	calls["obsidian_dataview_query"] = []map[string]any{
		{"query": `TABLE secretfield, file.name FROM "Private"`},
		{"query": `LIST FROM #qqcanarytag`},
		{"query": `TABLE file.name, file.tags, file.aliases, file.outlinks, file.inlinks FROM ""`},
		{"query": `TABLE rows.file.name GROUP BY status`},
	}
	// Write tools: each must refuse, and answer hidden paths as missing.
	calls["obsidian_create_note"] = []map[string]any{
		{"path": "Private/new.md", "content": "x"},
		{"path": "Diary.md", "content": "x", "overwrite": true},
		{"path": "Journal/new.md", "content": "x"},
		{"path": "Outside/new.md", "content": "x"},
	}
	calls["obsidian_append_to_note"] = []map[string]any{{"path": "Diary.md", "content": "x"}, {"path": "Private/hidden-target.md", "content": "x"}, {"title": "qqcanaryalias", "content": "x"}}
	calls["obsidian_set_frontmatter"] = []map[string]any{{"path": "Diary.md", "set": map[string]any{"private": false}}, {"path": "Journal/day.md", "set": map[string]any{"x": 1}}}
	calls["obsidian_rename_note"] = []map[string]any{
		{"path": "Home.md", "new_path": "Private/Home.md"},
		{"path": "Private/hidden-target.md", "new_path": "Visible C.md"},
		{"path": "Visible B.md", "new_path": "Visible C.md", "dry_run": true},
	}
	calls["obsidian_patch_note"] = []map[string]any{
		{"path": "Diary.md", "key": "private", "operation": "delete"},
		{"path": "Private/hidden-target.md", "heading": "A", "operation": "replace", "content": "x"},
		{"path": "Home.md", "key": "x", "operation": "set", "value": 1, "dry_run": true},
	}
	calls["obsidian_replace_in_note"] = []map[string]any{
		{"path": "Diary.md", "find": "a", "replace": "b"},
		{"path": "Journal/day.md", "find": "a", "replace": "b", "dry_run": true},
		{"path": "Home.md", "find": "qqcanary", "replace": "b", "dry_run": true},
	}
	calls["obsidian_delete_note"] = []map[string]any{
		{"path": "Diary.md"},
		{"path": "Private/hidden-target.md", "dry_run": true},
		{"path": "Visible B.md", "dry_run": true},
	}
	calls["obsidian_tag_note"] = []map[string]any{
		{"path": "Diary.md", "add": []any{"x"}},
		{"path": "Private/hidden-target.md", "remove": []any{"qqcanarytag"}},
		{"path": "Home.md", "add": []any{"x"}, "dry_run": true},
	}
	calls["obsidian_rename_tag"] = []map[string]any{
		{"from": "qqcanarytag", "to": "renamed", "dry_run": true},
		{"from": "qqcanarytag", "to": "renamed"},
	}
	calls["obsidian_read_notes"] = []map[string]any{
		{"paths": []any{"Home.md", "Visible B.md", "Projects/Plan.md"}},
		{"paths": []any{"Diary.md", "Private/hidden-target.md", "Journal/day.md", "Home.md"}},
	}
	// Memory tools: keys that name hidden notes are refused or unknown
	// (the memory folder is Memory/), and a real memory changes nothing
	// of what the hidden notes answer.
	calls["obsidian_remember"] = []map[string]any{
		{"key": "../Private/hidden-target", "fact": "x"},
		{"key": "qqcanaryfilename", "fact": " "},
		{"key": "leak-check", "fact": "project meeting notes", "source": "Home.md"},
	}
	calls["obsidian_forget"] = []map[string]any{{"key": "hidden-target"}, {"key": "../Journal/day"}, {"key": "Diary"}}
	return calls
}

// hiddenPaths are the hidden notes and PDF, by path.
var hiddenPaths = []string{"Private/hidden-target.md", "Private/qqcanaryfilename.md", "Private/report.pdf", "Journal/day.md",
	"Notes/a.secret.md", "Outside/loose.md", "Diary.md"}

// scrub removes the caller's own argument values from an answer: an error
// that echoes a requested name is not a leak.
func scrub(answer string, args map[string]any) string {
	answer = strings.ToLower(answer)
	for _, v := range args {
		if s, ok := v.(string); ok && s != "" {
			for _, form := range []string{s, strings.TrimSuffix(s, ".md"), strings.Trim(s, "[]"), jsonString(s)} {
				answer = strings.ReplaceAll(answer, strings.ToLower(form), "")
			}
		}
	}
	return answer
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func checkNoLeaks(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	calls := leakCalls()
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed.Tools) < 20 {
		t.Fatalf("only %d tools registered", len(listed.Tools))
	}
	for _, tool := range listed.Tools {
		sets, ok := calls[tool.Name]
		if !ok {
			t.Errorf("tool %s has no argument set in the leak test: add calls that would surface a hidden note", tool.Name)
			continue
		}
		for _, args := range sets {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil {
				t.Errorf("%s(%v): protocol error %v", tool.Name, args, err)
				continue
			}
			raw, _ := json.Marshal(res)
			if strings.Contains(scrub(string(raw), args), canary) {
				t.Errorf("LEAK: %s(%v) answered %s", tool.Name, args, raw)
			}
		}
	}
	checkFindPathAvoidsHidden(ctx, t, cs)

	// Every resource, on every page, and the hidden notes' URIs.
	var uris []string
	var cursor string
	for {
		page, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(page)
		if strings.Contains(strings.ToLower(string(raw)), canary) {
			t.Errorf("LEAK: resources/list %s", raw)
		}
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(uris) != 4 { // vault info and the three visible notes
		t.Errorf("resources/list lists %d resources, want 4: %v", len(uris), uris)
	}
	for _, p := range hiddenPaths {
		uris = append(uris, "obsidian://note/"+p)
	}
	for _, uri := range uris {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		answer := fmt.Sprint(err)
		if err == nil {
			raw, _ := json.Marshal(got)
			answer = string(raw)
		}
		if strings.Contains(scrub(answer, map[string]any{"uri": uri, "path": strings.TrimPrefix(uri, "obsidian://note/")}), canary) {
			t.Errorf("LEAK: read %s: %s", uri, answer)
		}
		if uri == "obsidian://vault/info" && (!strings.Contains(answer, `privacy_rules\": true`) || !strings.Contains(answer, `hidden_notes\": 7`)) {
			t.Errorf("vault info does not report the rules and the count: %s", answer)
		}
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err == nil {
		raw, _ := json.Marshal(templates)
		if strings.Contains(strings.ToLower(string(raw)), canary) {
			t.Errorf("LEAK: resource templates %s", raw)
		}
	}

	// Every prompt, its arguments set to canary words.
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		for _, w := range []string{"project", "qqcanarybody", "qqcanarytag", "Private/hidden-target.md"} {
			args := map[string]string{}
			echo := map[string]any{}
			for _, a := range p.Arguments {
				args[a.Name] = w
				echo[a.Name] = w
			}
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
			answer := fmt.Sprint(err)
			if err == nil {
				raw, _ := json.Marshal(got)
				answer = string(raw)
			}
			if strings.Contains(scrub(answer, echo), canary) {
				t.Errorf("LEAK: prompt %s(%v): %s", p.Name, args, answer)
			}
		}
	}
}

// checkMissingLikeHidden: a hidden note, asked for by path or title,
// answers exactly as it does on a vault where it never existed (ref).
func checkMissingLikeHidden(ctx context.Context, t *testing.T, cs, ref *mcp.ClientSession) {
	t.Helper()
	answer := func(cs *mcp.ClientSession, tool string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err.Error()
		}
		raw, _ := json.Marshal(res)
		return string(raw)
	}
	var asks []map[string]any
	for _, p := range hiddenPaths {
		asks = append(asks, map[string]any{"path": p})
	}
	asks = append(asks, map[string]any{"title": "qqcanaryalias"}, map[string]any{"title": "Diary"}, map[string]any{"title": "qqcanarytitle Secret Title"})
	for _, args := range asks {
		for _, tool := range []string{"obsidian_read_note", "obsidian_get_backlinks", "obsidian_get_outbound_links", "obsidian_find_similar",
			"obsidian_append_to_note", "obsidian_set_frontmatter", "obsidian_rename_note",
			"obsidian_patch_note", "obsidian_replace_in_note", "obsidian_delete_note", "obsidian_tag_note"} {
			a := maps.Clone(args)
			switch tool {
			case "obsidian_patch_note":
				a["key"], a["operation"] = "x", "delete"
			case "obsidian_replace_in_note":
				a["find"], a["replace"], a["dry_run"] = "a", "b", true
			case "obsidian_delete_note":
				a["dry_run"] = true
			case "obsidian_tag_note":
				a["add"], a["dry_run"] = []any{"x"}, true
			case "obsidian_append_to_note":
				a["content"] = "x"
			case "obsidian_set_frontmatter":
				a["set"] = map[string]any{"x": 1}
			case "obsidian_rename_note":
				a["new_path"] = "Elsewhere.md"
			}
			if hidden, absent := answer(cs, tool, a), answer(ref, tool, a); hidden != absent {
				t.Errorf("%s(%v): a hidden note answers unlike a missing one:\n hidden  %s\n missing %s", tool, a, hidden, absent)
			}
		}
	}
}

// checkFindPathAvoidsHidden: Plan links only to a hidden note, so no path
// leads from it to the rest of the vault.
func checkFindPathAvoidsHidden(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_find_path", Arguments: map[string]any{"from": "Projects/Plan.md", "to": "Visible B.md"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"found":false`) {
		t.Errorf("find_path routed through a hidden note: %s", raw)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_get_backlinks", Arguments: map[string]any{"path": "Home.md"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(res.StructuredContent)
	if strings.Contains(string(raw), "Private/") || strings.Contains(string(raw), "Diary") || strings.Contains(string(raw), "Journal/") {
		t.Errorf("backlinks of Home report a hidden note: %s", raw)
	}
}

// TestPrivacyRuleErrors: a bad rule stops every command at start with an
// error naming the pattern and its position.
func TestPrivacyRuleErrors(t *testing.T) {
	badIgnore := t.TempDir()
	servicetest.WriteFile(t, filepath.Join(badIgnore, "a.md"), []byte("a"))
	servicetest.WriteFile(t, filepath.Join(badIgnore, ".enquire", "ignore"), []byte("# ok\nJournal/\nbad[x\n"))
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"search bad exclude", []string{"search", "--vault", fixtureVault, "--exclude-glob", "Private/**", "--exclude-glob", "a/[x", "q"}, 2, []string{"--exclude-glob #2", `"a/[x"`}},
		{"index bad allow", []string{"index", "--vault", fixtureVault, "--index-file", ixFile, "--read-paths", "{a,b"}, 2, []string{"--read-paths #1", `"{a,b"`}},
		{"build-embeddings bad exclude", []string{"build-embeddings", "--vault", fixtureVault, "--index-file", ixFile, "--exclude-glob", "x\\"}, 2, []string{"--exclude-glob #1"}},
		{"serve bad ignore line", []string{"serve", "--vault", badIgnore}, 1, []string{".enquire/ignore line 3", `"bad[x"`}},
		{"search bad ignore line", []string{"search", "--vault", badIgnore, "q"}, 1, []string{".enquire/ignore line 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// TestPrivacyAllExcluded: rules that hide the whole vault still start the
// server, which says so once and answers empty results.
func TestPrivacyAllExcluded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	code, stdout, stderr := runCLI(t, "search", "--vault", fixtureVault, "--read-paths", "Nothing/**", "sourdough")
	if code != 0 || !strings.Contains(stdout, "no matches") {
		t.Errorf("search over an all-hidden vault: exit %d\n%s%s", code, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, log := serveMCP(ctx, t, bin, "serve", "--vault", fixtureVault, "--exclude-glob", "**")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": "sourdough"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"matches":[]`) {
		t.Errorf("matches in an all-hidden vault: %s", raw)
	}
	cs.Close()
	if n := strings.Count(log.String(), "hide every note"); n != 1 {
		t.Errorf("the all-hidden warning appears %d times, want once:\n%s", n, log.String())
	}
}

// TestPrintPrivacyPurge: the summary speaks of a purge only when one
// removed files; new rules that found nothing to purge say just the rules.
func TestPrintPrivacyPurge(t *testing.T) {
	rules, err := privacy.Compile(privacy.Config{Exclude: []string{"Private/**"}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		st      index.Stats
		want    string
		without string
	}{
		{"nothing purged, file scrubbed for new rules", index.Stats{PurgedFile: true}, "  privacy: " + rules.Describe() + "\n", "purged"},
		{"nothing purged", index.Stats{}, "  privacy: " + rules.Describe() + "\n", "purged"},
		{"files purged", index.Stats{Purged: 2, PurgedFile: true}, "; 2 files purged; index file rewritten without their text\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printPrivacy(&b, rules, tt.st)
			if !strings.HasSuffix(b.String(), tt.want) || (tt.without != "" && strings.Contains(b.String(), tt.without)) {
				t.Fatalf("got %q, want it to end in %q without %q", b.String(), tt.want, tt.without)
			}
		})
	}
}
