package model2vec

import (
	"context"
	"errors"
	"fmt"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const testAlias, testRepo = "potion-base-8M", "minishlab/potion-base-8M"

// hub is a fake Hugging Face: /<repo>/resolve/main/<file> serves a file,
// through a redirect carrying X-Linked-Etag when one is set, with Range
// and If-Range support (a strong ETag, the SHA-256 of the content, and a
// Last-Modified date per version) and scripted failures.
type hub struct {
	mu            sync.Mutex
	files         map[string][]byte
	version       map[string]int    // file → times it was replaced (Last-Modified)
	requests      []string          // "file range [if-range]" per request that reached a file
	linked        map[string]string // file → X-Linked-Etag on the redirect
	dropAfter     map[string]int    // file → cut the connection after n bytes, once
	onDrop        func()            // called under mu after a drop
	blockAt       map[string]int    // file → stall after n bytes until the client leaves
	missing       map[string]bool   // file → 404
	chunked       map[string]bool   // file → no Content-Length
	validator     map[string]string // file → "etag" (default), "date", "weak" or "none"
	ignoreIfRange bool              // serve ranges of whatever version there is
}

func newHub(files map[string][]byte) *hub {
	return &hub{files: files, version: map[string]int{}, linked: map[string]string{}, dropAfter: map[string]int{},
		blockAt: map[string]int{}, missing: map[string]bool{}, chunked: map[string]bool{}, validator: map[string]string{}}
}

// replace changes a file on the server; the caller holds mu.
func (h *hub) replace(name string, data []byte) {
	h.files[name] = data
	h.version[name]++
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if name, ok := strings.CutPrefix(r.URL.Path, "/"+testRepo+"/resolve/main/"); ok {
		h.mu.Lock()
		_, exists := h.files[name]
		missing, linked := h.missing[name], h.linked[name]
		h.mu.Unlock()
		if missing || !exists {
			http.NotFound(w, r)
			return
		}
		if linked != "" {
			w.Header().Set("X-Linked-Etag", `"`+linked+`"`)
			http.Redirect(w, r, "/cdn/"+name, http.StatusFound)
			return
		}
		h.serve(w, r, name)
		return
	}
	if name, ok := strings.CutPrefix(r.URL.Path, "/cdn/"); ok {
		h.serve(w, r, name)
		return
	}
	http.NotFound(w, r)
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request, name string) {
	rng, ifRange := r.Header.Get("Range"), r.Header.Get("If-Range")
	h.mu.Lock()
	data := h.files[name]
	h.requests = append(h.requests, strings.TrimSpace(name+" "+rng+" "+ifRange))
	drop, dropping := h.dropAfter[name]
	delete(h.dropAfter, name)
	block, blocking := h.blockAt[name]
	chunked, kind := h.chunked[name], h.validator[name]
	etag := `"` + sha256Hex(data) + `"`
	date := time.Date(2025, 1, 1, 0, 0, h.version[name], 0, time.UTC).Format(http.TimeFormat)
	h.mu.Unlock()

	switch kind {
	case "", "etag":
		w.Header().Set("ETag", etag)
	case "weak":
		w.Header().Set("ETag", "W/"+etag)
	case "date":
		w.Header().Set("Last-Modified", date)
	}
	if ifRange != "" && ifRange != etag && ifRange != date && !h.ignoreIfRange {
		rng = "" // another version: send it whole
	}
	start := 0
	if v, ok := strings.CutPrefix(rng, "bytes="); ok {
		start, _ = strconv.Atoi(strings.TrimSuffix(v, "-"))
		if start >= len(data) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
	}
	body := data[start:]
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	if rng != "" {
		w.WriteHeader(http.StatusPartialContent)
	}
	switch {
	case dropping:
		w.Write(body[:min(drop, len(body))])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		h.mu.Lock()
		if h.onDrop != nil {
			h.onDrop()
		}
		h.mu.Unlock()
	case blocking:
		w.Write(body[:min(block, len(body))])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case chunked:
		for len(body) > 0 {
			n := min(16, len(body))
			w.Write(body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	default:
		w.Write(body)
	}
}

func (h *hub) log() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.requests...)
}

// installFixture serves a tiny model and returns the hub, its server and
// the files.
func installFixture(t *testing.T) (*hub, *httptest.Server, map[string][]byte) {
	t.Helper()
	files := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32")
	h := newHub(files)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv, files
}

func fastOptions(srv *httptest.Server) InstallOptions {
	return InstallOptions{BaseURL: srv.URL, Client: srv.Client(), StallTimeout: 5 * time.Second}
}

func TestInstallFullDownload(t *testing.T) {
	h, srv, files := installFixture(t)
	h.linked[modelFile] = sha256Hex(files[modelFile])
	cache := filepath.Join(t.TempDir(), "cache")
	var mu sync.Mutex
	last := map[string]Progress{}
	opts := fastOptions(srv)
	opts.Progress = func(p Progress) {
		mu.Lock()
		last[p.File] = p
		mu.Unlock()
	}
	dir, err := Install(context.Background(), testAlias, cache, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "models", testAlias); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(data) {
			t.Errorf("%s: content differs (%v)", name, err)
		}
		p := last[name]
		if p.Done != int64(len(data)) || p.Total != int64(len(data)) || p.Files != 3 {
			t.Errorf("%s: last progress %+v", name, p)
		}
	}
	for _, name := range []string{modelFile, tokenizerFile, configFile, manifestName} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v)", name, st.Mode(), err)
		}
	}
	for _, d := range []string{filepath.Join(cache, "models"), dir} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v)", d, st.Mode(), err)
		}
	}
	man, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f := man.file(modelFile); f == nil || f.Verified != verifiedServer || f.SHA256 != sha256Hex(files[modelFile]) {
		t.Errorf("model entry %+v", f)
	}
	if f := man.file(tokenizerFile); f == nil || f.Verified != verifiedRecorded || f.Size != int64(len(files[tokenizerFile])) {
		t.Errorf("tokenizer entry %+v", f)
	}
	if man.Alias != testAlias || man.Repo != testRepo || man.Revision != "main" {
		t.Errorf("manifest %+v", man)
	}
	m, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.ID(), "model2vec:"+testAlias+"@") {
		t.Errorf("ID = %s", m.ID())
	}
	if got, ok := Find(testAlias, cache); !ok || got != dir {
		t.Errorf("Find = %s, %v", got, ok)
	}
	if got, ok := Find(strings.ToUpper(testAlias), cache); !ok || got != dir {
		t.Errorf("Find is case-sensitive: %s, %v", got, ok)
	}

	// Installing again checks the files and downloads nothing.
	before := len(h.log())
	if _, err := Install(context.Background(), testAlias, cache, fastOptions(srv)); err != nil {
		t.Fatal(err)
	}
	if after := h.log(); len(after) != before {
		t.Errorf("reinstall made requests: %v", after[before:])
	}

	// Tampering is caught when loading.
	if err := os.WriteFile(filepath.Join(dir, tokenizerFile), append(files[tokenizerFile], ' '), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), dir); !errors.Is(err, ErrChecksum) {
		t.Errorf("Load of a changed file: %v", err)
	}
	if _, ok := Find(testAlias, cache); ok {
		t.Error("Find accepts a file whose size differs from the manifest")
	}
}

func TestInstallResumesAfterCut(t *testing.T) {
	h, srv, files := installFixture(t)
	h.linked[modelFile] = sha256Hex(files[modelFile])
	h.dropAfter[modelFile] = 100
	dir, err := Install(context.Background(), testAlias, t.TempDir(), fastOptions(srv))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, modelFile))
	if string(got) != string(files[modelFile]) {
		t.Fatal("resumed file differs")
	}
	log := strings.Join(h.log(), "\n")
	if !strings.Contains(log, modelFile+" bytes=100- \""+sha256Hex(files[modelFile])+"\"") {
		t.Errorf("no resume request in:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(dir, modelFile+".part")); !os.IsNotExist(err) {
		t.Errorf(".part left behind: %v", err)
	}
}

// cutInstall runs an install whose model download the server cuts after
// 64 bytes, without retries, leaving a partial file in cache.
func cutInstall(t *testing.T) (h *hub, files map[string][]byte, cache string, opts InstallOptions) {
	t.Helper()
	h, srv, files := installFixture(t)
	h.dropAfter[modelFile] = 64
	cache = t.TempDir()
	opts = fastOptions(srv)
	opts.Retries = -1
	if _, err := Install(context.Background(), testAlias, cache, opts); err == nil {
		t.Fatal("cut download succeeded without retries")
	}
	return h, files, cache, opts
}

func TestInstallResumesAcrossCalls(t *testing.T) {
	h, files, cache, opts := cutInstall(t)
	part := filepath.Join(cache, "models", testAlias, modelFile+".part")
	if st, err := os.Stat(part); err != nil || st.Size() != 64 {
		t.Fatalf("partial file: %v %v", st, err)
	}
	if _, ok := Find(testAlias, cache); ok {
		t.Error("Find accepts a half-installed model")
	}
	dir, err := Install(context.Background(), testAlias, cache, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); string(got) != string(files[modelFile]) {
		t.Error("resumed file differs")
	}
	if !strings.Contains(strings.Join(h.log(), "\n"), modelFile+" bytes=64- \""+sha256Hex(files[modelFile])+"\"") {
		t.Errorf("no resume request: %v", h.log())
	}
}

func TestInstallStalePartTooLong(t *testing.T) {
	_, srv, files := installFixture(t)
	cache := t.TempDir()
	dir := filepath.Join(cache, "models", testAlias)
	writeFiles(t, dir, map[string][]byte{modelFile + ".part": make([]byte, len(files[modelFile])+10)})
	if _, err := Install(context.Background(), testAlias, cache, fastOptions(srv)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); string(got) != string(files[modelFile]) {
		t.Error("file differs after a 416 restart")
	}
}

func TestInstallChecksumMismatch(t *testing.T) {
	h, srv, _ := installFixture(t)
	h.linked[modelFile] = strings.Repeat("ab", 32)
	cache := t.TempDir()
	_, err := Install(context.Background(), testAlias, cache, fastOptions(srv))
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("got %v, want ErrChecksum", err)
	}
	dir := filepath.Join(cache, "models", testAlias)
	for _, name := range []string{modelFile, modelFile + ".part"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s exists after a checksum mismatch", name)
		}
	}
	if n := len(h.log()); n != 1 {
		t.Errorf("a checksum mismatch was retried: %v", h.log())
	}
}

func TestDownloadPinned(t *testing.T) {
	_, srv, files := installFixture(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		pinned string
		want   error
	}{
		{strings.Repeat("0", 64), ErrChecksum},
		{strings.ToUpper(sha256Hex(files[configFile])), nil},
	} {
		d := &download{url: srv.URL + "/" + testRepo + "/resolve/main/" + configFile, dest: filepath.Join(dir, configFile),
			pinned: tt.pinned, limit: 1 << 20, opts: fastOptions(srv).withDefaults()}
		res, err := d.run(context.Background())
		if !errors.Is(err, tt.want) {
			t.Errorf("pinned %s: %v, want %v", tt.pinned, err, tt.want)
		}
		if err == nil && res.Verified != verifiedPinned {
			t.Errorf("verified = %q", res.Verified)
		}
	}
}

func TestInstallNotFound(t *testing.T) {
	h, srv, _ := installFixture(t)
	h.missing[configFile] = true
	_, err := Install(context.Background(), testAlias, t.TempDir(), fastOptions(srv))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), configFile) {
		t.Errorf("got %v, want ErrNotFound naming %s", err, configFile)
	}
}

func TestInstallCancel(t *testing.T) {
	h, srv, _ := installFixture(t)
	h.blockAt[modelFile] = 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache := t.TempDir()
	part := filepath.Join(cache, "models", testAlias, modelFile+".part")
	done := make(chan error, 1)
	go func() {
		_, err := Install(ctx, testAlias, cache, fastOptions(srv))
		done <- err
	}()
	// Cancel once the first 50 bytes are on disk and the server stalls.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if st, err := os.Stat(part); err == nil && st.Size() == 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("download never reached 50 bytes")
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Install did not return after cancel")
	}
	// The partial file stays for a later resume.
	if st, err := os.Stat(part); err != nil || st.Size() != 50 {
		t.Errorf("partial file after cancel: %v %v", st, err)
	}
}

func TestInstallStall(t *testing.T) {
	h, srv, _ := installFixture(t)
	h.blockAt[modelFile] = 10
	opts := fastOptions(srv)
	opts.StallTimeout = 100 * time.Millisecond
	opts.Retries = -1
	_, err := Install(context.Background(), testAlias, t.TempDir(), opts)
	if !errors.Is(err, errStalled) {
		t.Errorf("got %v, want a stall error", err)
	}
}

func TestInstallDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	_, srv, _ := installFixture(t)
	cache := t.TempDir()
	dir := filepath.Join(cache, "models", testAlias)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Writes to /dev/full fail with ENOSPC.
	part := filepath.Join(dir, modelFile+".part")
	if err := os.Symlink("/dev/full", part); err != nil {
		t.Skip(err)
	}
	_, err := Install(context.Background(), testAlias, cache, fastOptions(srv))
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("got %v, want ErrDiskFull", err)
	}
	if _, err := os.Lstat(part); !os.IsNotExist(err) {
		t.Error("partial file kept after disk full")
	}
}

func TestInstallArguments(t *testing.T) {
	if _, err := Install(context.Background(), "no-such-model", t.TempDir(), InstallOptions{}); !errors.Is(err, ErrUnknownAlias) {
		t.Errorf("unknown alias: %v", err)
	}
	if _, err := Install(context.Background(), testAlias, "", InstallOptions{}); err == nil {
		t.Error("empty cache dir accepted")
	}
	if len(Aliases()) < 4 || Aliases()[0].Repo != testRepo {
		t.Errorf("Aliases() = %v", Aliases())
	}
}

func TestFind(t *testing.T) {
	cache := t.TempDir()
	files := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32")
	withManifest := func(name string, files map[string][]byte) {
		dir := filepath.Join(cache, "models", name)
		writeFiles(t, dir, files)
		man := &Manifest{Alias: name}
		for n, data := range files {
			man.Files = append(man.Files, ManifestFile{Name: n, Size: int64(len(data)), SHA256: sha256Hex(data)})
		}
		if err := WriteManifest(dir, man); err != nil {
			t.Fatal(err)
		}
	}
	withManifest("installed", files)
	withManifest("no-tokenizer", map[string][]byte{modelFile: files[modelFile]})
	writeFiles(t, filepath.Join(cache, "models", "hand-copied"), files) // no manifest
	tests := []struct {
		alias string
		ok    bool
	}{
		{"installed", true},
		{"hand-copied", false}, // Load it by folder instead
		{testAlias, false},
		{"no-tokenizer", false},
		{"../models/installed", false},
		{"..", false},
		{"", false},
	}
	for _, tt := range tests {
		if dir, ok := Find(tt.alias, cache); ok != tt.ok || (ok && dir != filepath.Join(cache, "models", tt.alias)) {
			t.Errorf("Find(%q) = %q, %v; want ok=%v", tt.alias, dir, ok, tt.ok)
		}
	}
	if _, ok := Find("installed", ""); ok {
		t.Error("Find with no cache folder")
	}
}

// A resumed download carries If-Range; when the file changed on the
// server in between, the new version arrives whole instead of being
// appended to the start of the old one.
func TestInstallResumeFileChanged(t *testing.T) {
	for _, kind := range []string{"etag", "date", "etag, If-Range ignored"} {
		t.Run(kind, func(t *testing.T) {
			h, srv, files := installFixture(t)
			h.validator[modelFile], _, _ = strings.Cut(kind, ",")
			// A server that ignores If-Range is caught by the changed ETag.
			h.ignoreIfRange = strings.Contains(kind, "ignored")
			newModel := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F16")[modelFile]
			h.dropAfter[modelFile] = 100
			h.onDrop = func() { h.replace(modelFile, newModel) }
			dir, err := Install(context.Background(), testAlias, t.TempDir(), fastOptions(srv))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); string(got) != string(newModel) {
				t.Fatalf("installed model is neither version whole (%d bytes; old %d, new %d)", len(got), len(files[modelFile]), len(newModel))
			}
			log := h.log()
			if len(log) < 2 || !strings.HasPrefix(log[1], modelFile+" bytes=100- ") {
				t.Errorf("no conditional resume request in %q", log)
			}
			if _, err := Load(context.Background(), dir); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestInstallResumeFileChangedAcrossCalls(t *testing.T) {
	h, _, cache, opts := cutInstall(t)
	newModel := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F16")[modelFile]
	h.mu.Lock()
	h.replace(modelFile, newModel)
	h.mu.Unlock()
	dir, err := Install(context.Background(), testAlias, cache, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); string(got) != string(newModel) {
		t.Error("installed model is not the new version whole")
	}
	for _, name := range []string{modelFile + ".part", modelFile + ".part.meta"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", name, err)
		}
	}
}

// Without a usable validator (none, or a weak ETag) a partial file cannot
// be resumed safely: the download starts over.
func TestInstallNoValidatorStartsOver(t *testing.T) {
	for _, kind := range []string{"none", "weak"} {
		t.Run(kind, func(t *testing.T) {
			h, srv, files := installFixture(t)
			h.validator[modelFile] = kind
			h.dropAfter[modelFile] = 100
			dir, err := Install(context.Background(), testAlias, t.TempDir(), fastOptions(srv))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); string(got) != string(files[modelFile]) {
				t.Error("file differs")
			}
			if log := h.log(); len(log) < 2 || log[1] != modelFile {
				t.Errorf("second request %q, want a plain one", log)
			}
		})
	}
}

func TestInstallSizeLimits(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		chunked bool
		opts    func(*InstallOptions, map[string][]byte)
	}{
		{"chunked json", tokenizerFile, true, func(o *InstallOptions, f map[string][]byte) { o.MaxFileBytes = int64(len(f[tokenizerFile]) - 1) }},
		{"announced json", tokenizerFile, false, func(o *InstallOptions, f map[string][]byte) { o.MaxFileBytes = int64(len(f[tokenizerFile]) - 1) }},
		{"chunked model", modelFile, true, func(o *InstallOptions, f map[string][]byte) { o.MaxModelBytes = 100 }},
		{"announced model", modelFile, false, func(o *InstallOptions, f map[string][]byte) { o.MaxModelBytes = 100 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, srv, files := installFixture(t)
			h.chunked[tt.file] = tt.chunked
			opts := fastOptions(srv)
			tt.opts(&opts, files)
			cache := t.TempDir()
			_, err := Install(context.Background(), testAlias, cache, opts)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tt.file) {
				t.Fatalf("got %v, want ErrTooLarge for %s", err, tt.file)
			}
			dir := filepath.Join(cache, "models", testAlias)
			for _, name := range []string{tt.file, tt.file + ".part", tt.file + ".part.meta", manifestName} {
				if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
					t.Errorf("%s exists after the limit was hit (%v)", name, err)
				}
			}
			if _, ok := Find(testAlias, cache); ok {
				t.Error("Find accepts the failed install")
			}
			if n := strings.Count(strings.Join(h.log(), "\n"), tt.file); n != 1 {
				t.Errorf("%s requested %d times, want once (not retried)", tt.file, n)
			}
		})
	}
	// The limits themselves are allowed.
	_, srv, files := installFixture(t)
	opts := fastOptions(srv)
	opts.MaxModelBytes, opts.MaxFileBytes = int64(len(files[modelFile])), int64(len(files[tokenizerFile]))
	if _, err := Install(context.Background(), testAlias, t.TempDir(), opts); err != nil {
		t.Errorf("files at the limits: %v", err)
	}
	if d := (InstallOptions{}).withDefaults(); d.MaxModelBytes != 4<<30 || d.MaxFileBytes != 64<<20 {
		t.Errorf("default limits %d, %d", d.MaxModelBytes, d.MaxFileBytes)
	}
}

// A reinstall that fails after replacing a file leaves no manifest, so
// Find does not offer the mixed folder.
func TestInstallFailureHidesFolder(t *testing.T) {
	h, srv, _ := installFixture(t)
	cache := t.TempDir()
	dir, err := Install(context.Background(), testAlias, cache, fastOptions(srv))
	if err != nil {
		t.Fatal(err)
	}
	// Two files are damaged, keeping their sizes, so the next Install
	// fetches them again: the model succeeds, then config.json fails. The
	// old manifest's sizes would all still match.
	for _, name := range []string{modelFile, configFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 1
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.mu.Lock()
	h.missing[configFile] = true
	h.mu.Unlock()
	if _, err := Install(context.Background(), testAlias, cache, fastOptions(srv)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	if _, ok := Find(testAlias, cache); ok {
		t.Error("Find accepts a folder whose reinstall failed")
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); !os.IsNotExist(err) {
		t.Errorf("manifest kept: %v", err)
	}
}

// Credentials in the base URL reach neither the manifest nor errors.
func TestInstallURLSecrets(t *testing.T) {
	h, srv, _ := installFixture(t)
	opts := fastOptions(srv)
	opts.BaseURL = strings.Replace(srv.URL, "http://", "http://alice:hunter2@", 1)
	dir, err := Install(context.Background(), testAlias, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	man, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.Source != srv.URL {
		t.Errorf("manifest source %q, want %q", man.Source, srv.URL)
	}
	h.mu.Lock()
	h.missing[configFile] = true
	h.mu.Unlock()
	os.Remove(filepath.Join(dir, configFile))
	_, err = Install(context.Background(), testAlias, t.TempDir(), opts)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v", err)
	}
	// Nor the errors of a failed connection.
	srv.Close()
	opts.Retries = -1
	_, err = Install(context.Background(), testAlias, t.TempDir(), opts)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v", err)
	}
}

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		in          string
		start, size int64
		ok          bool
	}{
		{"bytes 100-199/200", 100, 200, true},
		{"bytes 0-0/*", 0, -1, true},
		{"bytes 5-4/3", 0, 0, false},
		{"items 0-1/2", 0, 0, false},
		{"bytes x-1/2", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		start, size, ok := parseContentRange(tt.in)
		if start != tt.start || size != tt.size || ok != tt.ok {
			t.Errorf("parseContentRange(%q) = %d, %d, %v", tt.in, start, size, ok)
		}
	}
}
