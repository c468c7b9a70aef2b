package model2vec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnknownAlias is returned by Install for an alias not in Aliases().
var ErrUnknownAlias = errors.New("unknown model alias")

// Alias is a model Install knows how to fetch.
type Alias struct {
	// Name is the alias, also the folder name under <cache>/models.
	Name string
	// Repo is the Hugging Face repository.
	Repo string
	// Dim is the published vector dimension.
	Dim int
	// Description is a one-line summary for listings.
	Description string
}

// aliasFile is a file of a model repository. SHA256, when set, pins the
// exact content; a mismatch fails the install.
type aliasFile struct {
	name   string
	sha256 string
}

// aliasEntry is a row of the alias table.
type aliasEntry struct {
	Alias
	files []aliasFile
}

// modelFiles are the files every model2vec repository has. No digests are
// pinned: they could not be fetched when this table was written (no
// network). Install verifies against the digest Hugging Face announces
// for LFS files and records what it got in the manifest either way.
var modelFiles = []aliasFile{{name: modelFile}, {name: tokenizerFile}, {name: configFile}}

// aliasTable lists the known models.
var aliasTable = [...]aliasEntry{
	{Alias{"potion-base-8M", "minishlab/potion-base-8M", 256, "English, 8M parameters, small and fast"}, modelFiles},
	{Alias{"potion-base-32M", "minishlab/potion-base-32M", 512, "English, 32M parameters, larger vocabulary"}, modelFiles},
	{Alias{"potion-retrieval-32M", "minishlab/potion-retrieval-32M", 512, "English, 32M parameters, tuned for retrieval"}, modelFiles},
	{Alias{"potion-multilingual-128M", "minishlab/potion-multilingual-128M", 256, "101 languages, 128M parameters"}, modelFiles},
}

// Aliases lists the models Install knows.
func Aliases() []Alias {
	out := make([]Alias, len(aliasTable))
	for i, a := range aliasTable {
		out[i] = a.Alias
	}
	return out
}

// lookupAlias finds an alias, ignoring case.
func lookupAlias(name string) (aliasEntry, bool) {
	for _, a := range aliasTable {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return aliasEntry{}, false
}

// Progress reports download progress to InstallOptions.Progress.
type Progress struct {
	// File is the file being downloaded; Index counts files from 1 to Files.
	File         string
	Index, Files int
	// Done is the number of bytes of File on disk, Total its size, or -1
	// while unknown.
	Done, Total int64
}

// InstallOptions tune Install. The zero value downloads from Hugging Face.
type InstallOptions struct {
	// BaseURL replaces https://huggingface.co; files are fetched from
	// <BaseURL>/<repo>/resolve/<Revision>/<file>.
	BaseURL string
	// Revision is the branch, tag or commit; default "main".
	Revision string
	// Client performs the requests. The default has connect, TLS and
	// response-header timeouts but no overall one, as files are large.
	Client *http.Client
	// Progress, if set, is called as bytes arrive (at most every 256 KiB
	// per file, and when a file completes).
	Progress func(Progress)
	// StallTimeout aborts a transfer when no byte arrives for this long;
	// default 60s.
	StallTimeout time.Duration
	// Retries is how many times an interrupted transfer is resumed before
	// Install gives up; default 3. A negative value disables retries.
	Retries int
	// MaxModelBytes caps the size of model.safetensors (default
	// DefaultMaxModelBytes, 4 GiB) and MaxFileBytes that of every other
	// file (default DefaultMaxFileBytes, 64 MiB), counted as bytes arrive,
	// so a server that announces no length (or a wrong one) cannot fill
	// the disk. A file over its limit fails the install with ErrTooLarge
	// and its partial file is deleted. Load reads tokenizer.json and
	// config.json only up to DefaultMaxFileBytes, whatever this says.
	MaxModelBytes, MaxFileBytes int64
}

// Default size limits of InstallOptions.
const (
	DefaultMaxModelBytes = 4 << 30
	DefaultMaxFileBytes  = 64 << 20
)

// withDefaults fills in the zero fields.
func (o InstallOptions) withDefaults() InstallOptions {
	if o.BaseURL == "" {
		o.BaseURL = "https://huggingface.co"
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Revision == "" {
		o.Revision = "main"
	}
	if o.Client == nil {
		o.Client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			ForceAttemptHTTP2:     true,
		}}
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 60 * time.Second
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.MaxModelBytes <= 0 {
		o.MaxModelBytes = DefaultMaxModelBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	return o
}

// limit is the size limit of a file: the model's or another's.
func (o InstallOptions) limit(model bool) int64 {
	if model {
		return o.MaxModelBytes
	}
	return o.MaxFileBytes
}

// Install downloads the model of a known alias into
// <cacheDir>/models/<alias>/ (folders 0700, files 0600) and returns that
// folder. Each file is fetched into a .part file, resumed with HTTP Range
// requests after an interruption (within this call, and by a later call)
// as long as the server still has the same version of it (If-Range with
// the first response's ETag or Last-Modified; a server that sends neither
// makes an interrupted file start over), checked, then renamed into
// place. A file is checked against the digest pinned in the alias table
// if any, else against the SHA-256 Hugging Face announces for LFS files
// (X-Linked-Etag); its digest is recorded in manifest.json either way, and
// Load verifies it. Files already installed with a matching digest are
// not downloaded again. manifest.json is removed before the first file is
// replaced and written last, so a failed install leaves no folder Find
// accepts. The manifest records BaseURL without user information or query.
func Install(ctx context.Context, alias, cacheDir string, opts InstallOptions) (string, error) {
	a, ok := lookupAlias(alias)
	if !ok {
		return "", fmt.Errorf("model2vec: install %q: %w (known: %s)", alias, ErrUnknownAlias, aliasNames())
	}
	return install(ctx, a, modelFile, cacheDir, opts)
}

// Repository is a model repository of another layout that
// InstallRepository fetches the same way as Install (the transformer
// models of package embed/onnx use it).
type Repository struct {
	// Name is the folder name under <cache>/models; Repo the Hugging Face
	// repository.
	Name, Repo string
	// Files are paths inside the repository ("onnx/model.onnx"); the first
	// is the model, limited by MaxModelBytes, the others by MaxFileBytes.
	Files []string
}

// InstallRepository is Install for a Repository.
func InstallRepository(ctx context.Context, r Repository, cacheDir string, opts InstallOptions) (string, error) {
	if r.Name == "" || len(r.Files) == 0 {
		return "", errors.New("model2vec: install: repository without a name or files")
	}
	a := aliasEntry{Alias: Alias{Name: r.Name, Repo: r.Repo}}
	for _, f := range r.Files {
		a.files = append(a.files, aliasFile{name: f})
	}
	return install(ctx, a, r.Files[0], cacheDir, opts)
}

// FindRepository is Find for a Repository: every one of its files must
// be installed, with the size the manifest records.
func FindRepository(r Repository, cacheDir string) (string, bool) {
	return find(r.Name, cacheDir, r.Files)
}

// install fetches a's files; large is the one MaxModelBytes limits.
func install(ctx context.Context, a aliasEntry, large, cacheDir string, opts InstallOptions) (string, error) {
	if cacheDir == "" {
		return "", errors.New("model2vec: install: no cache folder given")
	}
	opts = opts.withDefaults()
	dir := filepath.Join(cacheDir, "models", a.Name)
	for i, d := range []string{cacheDir, filepath.Join(cacheDir, "models"), dir} {
		if err := mkdirPrivate(d, i > 0); err != nil {
			return "", fmt.Errorf("model2vec: install %s: %w", a.Name, err)
		}
	}
	old, _ := readManifest(dir) // a damaged manifest only costs a re-download
	man := &Manifest{Alias: a.Name, Repo: a.Repo, Revision: opts.Revision, Source: sourceURL(opts.BaseURL)}
	unlisted := false // manifest.json removed: the folder is being changed
	for i, f := range a.files {
		dest := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := mkdirPrivate(filepath.Dir(dest), true); err != nil {
			return "", fmt.Errorf("model2vec: install %s: %w", a.Name, err)
		}
		if entry := old.file(f.name); entry != nil && (f.sha256 == "" || f.sha256 == entry.SHA256) {
			if sum, size, err := hashFile(ctx, dest); err == nil && sum == entry.SHA256 && size == entry.Size {
				man.Files = append(man.Files, *entry)
				report(opts, Progress{File: f.name, Index: i + 1, Files: len(a.files), Done: size, Total: size})
				continue
			}
		}
		if !unlisted {
			if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("model2vec: install %s: %w", a.Name, err)
			}
			syncDir(dir)
			unlisted = true
		}
		u := opts.BaseURL + "/" + a.Repo + "/resolve/" + url.PathEscape(opts.Revision) + "/" + f.name
		d := &download{url: u, dest: dest, name: f.name, pinned: f.sha256, limit: opts.limit(f.name == large), opts: opts,
			progress: Progress{File: f.name, Index: i + 1, Files: len(a.files)}}
		res, err := d.run(ctx)
		if err != nil {
			return "", fmt.Errorf("model2vec: install %s: %w", a.Name, err)
		}
		man.Files = append(man.Files, res)
	}
	man.Installed = time.Now().UTC()
	if err := WriteManifest(dir, man); err != nil {
		return "", err
	}
	return dir, nil
}

// sourceURL is base as the manifest records it: without user information
// (credentials) or query.
func sourceURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	u.User = nil
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.String()
}

// aliasNames lists the aliases for error messages.
func aliasNames() string {
	names := make([]string, len(aliasTable))
	for i, a := range aliasTable {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// mkdirPrivate creates dir, and missing parents, with mode 0700. With
// fix, an existing dir is also set to 0700 (for the folders Install owns).
func mkdirPrivate(dir string, fix bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if fix {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// report calls the progress callback if there is one.
func report(opts InstallOptions, p Progress) {
	if opts.Progress != nil {
		opts.Progress(p)
	}
}

// hashFile returns the SHA-256 and size of a file.
func hashFile(ctx context.Context, path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read fails with the context's error once it is done.
func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Find returns the folder of an installed model and whether it is usable:
// the manifest.json Install writes last is there, model.safetensors and
// tokenizer.json exist, and every file the manifest lists has its
// recorded size. So a half-finished or failed install is not found. It
// never touches the network; Load does the full checksum verification.
// A model copied by hand has no manifest: open it by its folder (Load).
func Find(alias, cacheDir string) (string, bool) {
	if cacheDir == "" || alias == "" || alias == "." || alias == ".." || strings.ContainsAny(alias, `/\`) {
		return "", false
	}
	name := alias
	if a, ok := lookupAlias(alias); ok {
		name = a.Name
	}
	return find(name, cacheDir, []string{modelFile, tokenizerFile})
}

// find checks the folder of name for the required files and the
// manifest's sizes.
func find(name, cacheDir string, required []string) (string, bool) {
	if cacheDir == "" || name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", false
	}
	dir := filepath.Join(cacheDir, "models", name)
	for _, f := range required {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil || !st.Mode().IsRegular() {
			return "", false
		}
	}
	man, err := readManifest(dir)
	if err != nil {
		return "", false
	}
	for _, f := range man.Files {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Name))); err != nil || !st.Mode().IsRegular() || st.Size() != f.Size {
			return "", false
		}
	}
	return dir, true
}
