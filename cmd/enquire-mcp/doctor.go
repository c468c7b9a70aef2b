package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/obsidian"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Check statuses: only "fail" makes doctor exit 1.
const (
	statusOK   = "ok"
	statusInfo = "info"
	statusWarn = "warn"
	statusFail = "fail"
)

// doctorTopWarnings bounds the parse warnings listed with their paths.
const doctorTopWarnings = 5

// check is one line of the doctor's report.
type check struct {
	Name   string   `json:"name"`
	Status string   `json:"status"`
	Detail string   `json:"detail"`
	Items  []string `json:"items,omitempty"`
	Fix    string   `json:"fix,omitempty"`
}

// doctorReport is what doctor prints (--json: as is).
type doctorReport struct {
	Ready  bool    `json:"ready"`
	Vault  string  `json:"vault"`
	Checks []check `json:"checks"`
}

// doctorEnv is what doctor learns from the machine; tests inject it so
// that the report does not depend on the host.
type doctorEnv struct {
	goos, goarch, goVersion, version string
	lookPath                         func(string) (string, error)
	readFile                         func(string) ([]byte, error)
	embed                            embedFlags
	ortBuild                         bool                                    // built with the ort tag
	findORT                          func() (path, source string, err error) // models.ORTLibrary
}

func hostDoctorEnv(ef embedFlags) doctorEnv {
	return doctorEnv{goos: runtime.GOOS, goarch: runtime.GOARCH, goVersion: runtime.Version(), version: version,
		lookPath: exec.LookPath, readFile: os.ReadFile, embed: ef, ortBuild: onnx.Available,
		findORT: func() (string, string, error) { return models.ORTLibrary(ef.options()) }}
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", "--vault PATH [--json] [--include-pdfs] [--index-file F]", stderr)
	var vf vaultFlags
	vf.registerIndex(fs)
	vf.embed.register(fs, "")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if vf.vault == "" {
		return usageError("--vault is required (or set ENQUIRE_VAULT)")
	}
	vf.noteGiven(fs, contentLook)
	if err := vf.checkContent(); err != nil {
		return err
	}
	if err := vf.embed.check(); err != nil {
		return err
	}
	rep := diagnose(ctx, &vf, hostDoctorEnv(vf.embed))
	if *asJSON {
		b, err := marshalJSON(rep)
		if err != nil {
			return err
		}
		stdout.Write(b)
	} else {
		printDoctor(stdout, rep)
	}
	if !rep.Ready {
		return errNotReady
	}
	return nil
}

// errNotReady makes doctor exit 1 after its report, without another line.
var errNotReady = errors.New("not ready")

func printDoctor(w io.Writer, rep doctorReport) {
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "[%-4s] %-12s %s\n", c.Status, c.Name, c.Detail)
		for _, it := range c.Items {
			fmt.Fprintf(w, "                    %s\n", it)
		}
		if c.Fix != "" {
			fmt.Fprintf(w, "                    fix: %s\n", c.Fix)
		}
	}
	if rep.Ready {
		fmt.Fprintln(w, "ready")
	} else {
		fmt.Fprintln(w, "NOT ready: fix the [fail] lines above")
	}
}

// diagnose runs every check; it never writes anything.
func diagnose(ctx context.Context, vf *vaultFlags, env doctorEnv) doctorReport {
	rep := doctorReport{Vault: vf.vault}
	rep.Checks = runChecks(ctx, vf, env, &rep.Vault)
	rep.Ready = true
	for _, c := range rep.Checks {
		rep.Ready = rep.Ready && c.Status != statusFail
	}
	return rep
}

// runChecks runs the checks in order, stopping after a vault that cannot
// be read; root receives the vault's real path.
func runChecks(ctx context.Context, vf *vaultFlags, env doctorEnv, root *string) []check {
	var out []check
	add := func(c check) { out = append(out, c) }
	add(check{Name: "environment", Status: statusInfo, Detail: fmt.Sprintf("enquire-mcp %s, %s %s/%s", env.version, env.goVersion, env.goos, env.goarch)})

	real, err := vf.realRoot()
	if err != nil {
		add(check{Name: "vault", Status: statusFail, Detail: err.Error(), Fix: "pass the folder that holds your notes (the one with .obsidian in it) with --vault"})
		return out
	}
	*root = real
	// Doctor judges the vault as the index keeps it, changed by the flags
	// given here (writing nothing).
	vf.content.mode = contentLook
	if err := vf.resolveContent(ctx, real, func(string) {}); err != nil {
		add(check{Name: "settings", Status: statusFail, Detail: err.Error()})
		return out
	}
	rules, err := vf.privacy.rules(ctx, real)
	if err != nil {
		add(check{Name: "privacy", Status: statusFail, Detail: err.Error(), Fix: "correct the pattern named above"})
		return out
	}
	snap, err := vault.Load(ctx, real, vault.Options{MaxFileSize: vf.maxFileSize, Filter: service.VaultFilter(rules)})
	if err != nil {
		add(check{Name: "vault", Status: statusFail, Detail: err.Error(), Fix: "check the folder's permissions"})
		return out
	}
	add(check{Name: "vault", Status: statusOK, Detail: "readable"})
	notes := check{Name: "notes", Status: statusOK, Detail: fmt.Sprintf("%d notes, %d attachments", len(snap.Notes), len(snap.Attachments))}
	if len(snap.Notes) == 0 {
		notes.Status, notes.Fix = statusFail, "no .md notes found: is this the vault folder?"
	}
	add(notes)
	obs, cfg := obsidianCheck(snap)
	add(parseWarnings(snap.Warnings, cfg))
	add(obs)

	files := map[string]vault.File{}
	pdfs := 0
	for _, n := range snap.Notes {
		files[n.Path] = vault.File{Path: n.Path, Size: n.Size, ModTime: n.ModTime}
	}
	for _, a := range snap.Attachments {
		if strings.EqualFold(path.Ext(a.Path), ".pdf") {
			pdfs++
			if vf.pdfs {
				files[a.Path] = vault.File{Path: a.Path, Size: a.Size, ModTime: a.ModTime}
			}
		}
	}
	info, ixChecks := indexChecks(ctx, vf, real, files, env)
	for _, c := range ixChecks {
		add(c)
	}
	add(pdfCheck(vf, real, pdfs, info))
	add(ocrCheck(env, info))
	add(watchCheck(env, snap))
	add(cacheCheck(env))
	add(ortCheck(env))
	return out
}

// parseWarnings reports the notes that could not be parsed whole. The
// templates folder's are only counted: template syntax such as {{date}}
// in a property is rarely valid YAML, and is not meant to be.
func parseWarnings(all []vault.Warning, cfg obsidian.Config) check {
	c := check{Name: "parsing", Status: statusOK, Detail: "no warnings"}
	var ws []vault.Warning
	templates := 0
	for _, w := range all {
		if cfg.Excluded(w.Path) == "templates" {
			templates++
			continue
		}
		ws = append(ws, w)
	}
	if templates > 0 {
		c.Detail = fmt.Sprintf("no warnings outside the templates folder (%d in it, template syntax)", templates)
	}
	if len(ws) == 0 {
		return c
	}
	c.Status, c.Detail = statusWarn, fmt.Sprintf("%d warnings", len(ws))
	for i, w := range ws {
		if i == doctorTopWarnings {
			c.Items = append(c.Items, fmt.Sprintf("… and %d more (enquire-mcp index lists them)", len(ws)-i))
			break
		}
		c.Items = append(c.Items, w.Path+": "+w.Message)
	}
	c.Fix = "the notes are still served (malformed YAML as body only); fix the files to get their frontmatter"
	return c
}

// indexChecks reports the index (present, schema, settings, how many files
// changed since its last sync, size), its vectors and their model.
func indexChecks(ctx context.Context, vf *vaultFlags, root string, files map[string]vault.File, env doctorEnv) (*index.Info, []check) {
	idx := "enquire-mcp index " + shellJoin(append(vf.locationArgs(root), vf.changeArgs()...))
	p, err := vf.indexPath(root)
	if err != nil {
		return nil, []check{{Name: "index", Status: statusFail, Detail: err.Error(), Fix: "pass an --index-file outside the vault"}}
	}
	info, err := index.Inspect(ctx, p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, []check{{Name: "index", Status: statusWarn, Detail: "none: search uses TF-IDF only (no BM25, no embeddings)", Fix: idx}}
	case err != nil:
		return nil, []check{{Name: "index", Status: statusFail, Detail: firstLine(err) + " (--rebuild replaces the file)", Fix: idx + " --rebuild"}}
	case !info.Ours:
		return nil, []check{{Name: "index", Status: statusFail, Detail: p + " is not an enquire-mcp index", Fix: "pass another --index-file"}}
	}
	want := index.NewSettings(root, vf.pdfs, chunk.DefaultOptions)
	c := check{Name: "index", Status: statusOK, Detail: fmt.Sprintf("%s, %d files, %d chunks, schema %d", humanBytes(info.Bytes), info.Files, info.Chunks, info.SchemaVersion)}
	switch {
	case !info.Current:
		c.Status, c.Fix = statusWarn, idx
		c.Detail += fmt.Sprintf("; schema %d is not this version's %d (index rebuilds it)", info.SchemaVersion, index.SchemaVersion)
	case info.Settings.PDFs != want.PDFs:
		c.Status, c.Fix = statusWarn, idx
		c.Detail += fmt.Sprintf("; built with PDFs included = %v (this fix changes that for every command)", info.Settings.PDFs)
	case info.Settings != want:
		c.Status, c.Fix = statusWarn, idx
		c.Detail += "; built with other settings"
	default:
		if n := changedSince(info.Stamps, files); n > 0 {
			c.Status = statusWarn
			c.Detail += fmt.Sprintf("; %d files changed since the last sync (serve resyncs them at start; the fix does it now)", n)
			c.Fix = idx
		} else {
			c.Detail += "; up to date"
		}
	}
	checks := []check{c}
	if vf.content.found {
		checks = append(checks, check{Name: "settings", Status: statusInfo, Detail: "kept in the index, followed by every command: " + vf.content.stored.describe()})
	}
	if info.EmbeddingModel == "" {
		checks = append(checks, check{Name: "embeddings", Status: statusInfo, Detail: "none (optional: a third signal)",
			Fix: "enquire-mcp build-embeddings " + shellJoin(vf.locationArgs(root))})
		return &info, checks
	}
	emb := check{Name: "embeddings", Status: statusOK, Detail: fmt.Sprintf("%d of %d chunks have vectors of %s (%d dimensions)", info.Vectors, info.Chunks, info.EmbeddingAlias, info.EmbeddingDim)}
	if info.Vectors < info.Chunks {
		emb.Status, emb.Fix = statusWarn, "enquire-mcp build-embeddings "+shellJoin(append(vf.locationArgs(root), "--embedding-model", info.EmbeddingAlias))
	}
	checks = append(checks, emb, modelCheck(ctx, info.EmbeddingAlias, env))
	return &info, checks
}

// changedSince counts files added, changed (size or mtime) or deleted
// since the index's last sync.
func changedSince(stamps map[string]index.Stamp, files map[string]vault.File) int {
	n := 0
	for p, f := range files {
		s, ok := stamps[p]
		if !ok || s.Size != f.Size || s.ModTime != f.ModTime.UnixNano() {
			n++
		}
	}
	for p := range stamps {
		if _, ok := files[p]; !ok {
			n++
		}
	}
	return n
}

// modelCheck loads the embedding model the vectors were made with (a
// local model only: doctor never calls a remote service).
func modelCheck(ctx context.Context, alias string, env doctorEnv) check {
	c := check{Name: "model", Status: statusOK}
	if service.RemoteModel(alias) {
		c.Status, c.Detail = statusInfo, alias+" is remote: not contacted by doctor"
		return c
	}
	m, err := env.embed.open(ctx, alias)
	if err != nil {
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s cannot be loaded: %v", alias, err)
		c.Fix = "enquire-mcp install-model " + alias + ", or enquire-mcp clear-embeddings to serve without vectors"
		return c
	}
	c.Detail = alias + " loads (" + m.ID() + ")"
	return c
}

func pdfCheck(vf *vaultFlags, root string, pdfs int, info *index.Info) check {
	c := check{Name: "pdfs", Status: statusInfo}
	switch {
	case pdfs == 0:
		c.Detail = "no PDFs in the vault"
	case !vf.pdfs:
		c.Detail = fmt.Sprintf("%d PDFs, not searched", pdfs)
		c.Detail += " (the fix includes them for every command)"
		c.Fix = "enquire-mcp index " + shellJoin(append(vf.locationArgs(root), "--include-pdfs"))
	case info == nil || !info.Settings.PDFs:
		c.Detail = fmt.Sprintf("%d PDFs, not indexed yet", pdfs)
		c.Fix = "enquire-mcp index " + shellJoin(append(vf.locationArgs(root), "--include-pdfs"))
	default:
		c.Status = statusOK
		c.Detail = fmt.Sprintf("%d PDFs indexed: %d with text, %d without a text layer (scanned; found by name only)", info.PDFs, info.PDFs-info.PDFsWithoutText, info.PDFsWithoutText)
		if info.PDFsWithoutText > 0 {
			c.Status = statusWarn
			c.Detail += "; the fix reads their pages (needs pdftoppm and tesseract; see the ocr line)"
			c.Fix = "enquire-mcp index " + shellJoin(append(vf.locationArgs(root), "--ocr"))
		}
	}
	return c
}

// ocrCheck looks for the external OCR tools.
func ocrCheck(env doctorEnv, info *index.Info) check {
	var missing []string
	for _, tool := range []string{"pdftoppm", "tesseract"} {
		if _, err := env.lookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	c := check{Name: "ocr", Status: statusOK, Detail: "pdftoppm and tesseract found"}
	if len(missing) == 0 {
		return c
	}
	c.Status, c.Detail = statusInfo, "not found: "+strings.Join(missing, ", ")
	if info != nil && info.PDFsWithoutText > 0 {
		c.Status = statusWarn
	}
	switch env.goos {
	case "darwin":
		c.Fix = "brew install poppler tesseract"
	case "windows":
		c.Fix = "install Poppler and Tesseract (e.g. winget install UB-Mannheim.TesseractOCR; choco install poppler) and put them on PATH"
	default:
		c.Detail += " (on other distributions: their poppler and tesseract packages)"
		c.Fix = "apt-get install poppler-utils tesseract-ocr tesseract-ocr-eng"
	}
	return c
}

// watchCheck compares the vault's folders with the inotify watch limit:
// live mode watches each folder, and past the limit changes go unseen.
func watchCheck(env doctorEnv, snap *vault.Snapshot) check {
	dirs := map[string]bool{".": true}
	addDirs := func(p string) {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, n := range snap.Notes {
		addDirs(n.Path)
	}
	for _, a := range snap.Attachments {
		addDirs(a.Path)
	}
	c := check{Name: "live-mode", Status: statusInfo, Detail: fmt.Sprintf("%d folders to watch", len(dirs))}
	if env.goos != "linux" {
		c.Status = statusOK
		return c
	}
	raw, err := env.readFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		c.Detail += "; inotify limit unknown"
		return c
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		c.Detail += "; inotify limit unknown"
		return c
	}
	c.Status = statusOK
	c.Detail += fmt.Sprintf(", inotify max_user_watches %d", limit)
	// Other programs (editors, sync clients) use watches too: warn early.
	if len(dirs) > limit/2 {
		c.Status = statusWarn
		c.Fix = fmt.Sprintf("raise the limit: sudo sysctl fs.inotify.max_user_watches=%d (and in /etc/sysctl.d/ to keep it)", max(524288, 4*len(dirs)))
	}
	return c
}

// cacheCheck verifies the cache dir is private (0700; index files 0600).
func cacheCheck(env doctorEnv) check {
	c := check{Name: "cache-dir", Status: statusOK}
	dir, err := index.CacheDir()
	if err != nil {
		c.Status, c.Detail, c.Fix = statusWarn, err.Error(), "set XDG_CACHE_HOME (or pass --index-file)"
		return c
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Detail = "not created yet (the first index makes it, mode 0700)"
		return c
	case err != nil:
		c.Status, c.Detail = statusFail, err.Error()
		return c
	}
	c.Detail = "private (0700, files 0600)"
	if env.goos == "windows" {
		c.Detail = "present (private by the user profile's permissions)"
		return c
	}
	var loose []string
	if st.Mode().Perm()&0o077 != 0 {
		loose = append(loose, fmt.Sprintf("%s is %#o", dir, st.Mode().Perm()))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			loose = append(loose, fmt.Sprintf("%s is %#o", filepath.Join(dir, e.Name()), fi.Mode().Perm()))
		}
	}
	if len(loose) > 0 {
		c.Status, c.Detail, c.Items = statusWarn, "readable by others", loose
		c.Fix = "chmod 700 " + shellQuote(dir) + " && chmod 600 " + shellQuote(dir) + "/*"
	}
	return c
}

// firstLine is an error's first line (SQLite repeats itself on a second).
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
