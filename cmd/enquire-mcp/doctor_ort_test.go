package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOrtCheck(t *testing.T) {
	empty := t.TempDir()
	withModel := t.TempDir()
	dir := filepath.Join(withModel, "models", "ms-marco-MiniLM-L-6-v2")
	for name, data := range map[string]string{"onnx/model.onnx": "x", "tokenizer.json": "{}", "config.json": "{}", "manifest.json": `{"alias":"ms-marco-MiniLM-L-6-v2","files":[]}`} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	found := func() (string, string, error) { return "/opt/ort/libonnxruntime.so", "ENQUIRE_ORT_LIB", nil }
	missing := func() (string, string, error) { return "", "", errors.New("ONNX Runtime library not found") }
	tests := []struct {
		name, cache string
		build       bool
		find        func() (string, string, error)
		status      string
		detail      string
	}{
		{"default build", empty, false, nil, statusInfo, "need the ort build"},
		{"default build, model installed", withModel, false, nil, statusWarn, "need the ort build"},
		{"ort build, library found", empty, true, found, statusOK, "/opt/ort/libonnxruntime.so (ENQUIRE_ORT_LIB); no transformer model installed"},
		{"ort build, model installed", withModel, true, found, statusOK, "installed: ms-marco-MiniLM-L-6-v2 (reranker)"},
		{"ort build, no library", empty, true, missing, statusWarn, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testDoctorEnv()
			env.embed.cache, env.ortBuild, env.findORT = tt.cache, tt.build, tt.find
			c := ortCheck(env)
			if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("ortCheck = %+v; want %s with %q", c, tt.status, tt.detail)
			}
		})
	}
}
