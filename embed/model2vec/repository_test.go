package model2vec

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallRepository installs a repository with files in a subfolder
// (the layout of the transformer models) and finds it; a size limit on
// the model file applies to the first file.
func TestInstallRepository(t *testing.T) {
	files := map[string][]byte{"onnx/model.onnx": []byte(strings.Repeat("m", 300)), "tokenizer.json": []byte(`{}`), "config.json": []byte(`{"a":1}`)}
	h := newHub(files)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	repo := Repository{Name: "some-model", Repo: testRepo, Files: []string{"onnx/model.onnx", "tokenizer.json", "config.json"}}
	cache := t.TempDir()
	if _, ok := FindRepository(repo, cache); ok {
		t.Fatal("found before the install")
	}
	dir, err := InstallRepository(context.Background(), repo, cache, fastOptions(srv))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != string(data) {
			t.Errorf("%s: content differs (%v)", name, err)
		}
	}
	if found, ok := FindRepository(repo, cache); !ok || found != dir {
		t.Errorf("FindRepository = %q, %v", found, ok)
	}
	opts := fastOptions(srv)
	opts.MaxModelBytes, opts.MaxFileBytes = 100, 1000
	if _, err := InstallRepository(context.Background(), Repository{Name: "other", Repo: testRepo, Files: repo.Files}, cache, opts); err == nil {
		t.Error("a model file over MaxModelBytes was installed")
	}
	if _, err := InstallRepository(context.Background(), Repository{Name: "x"}, cache, opts); err == nil {
		t.Error("a repository without files was accepted")
	}
}
