package onnx

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// refText is one line of testdata/minilm/reference.jsonl: a text and the
// token ids all-MiniLM-L6-v2's own tokenizer gives it (256 at most).
type refText struct {
	Text string  `json:"text"`
	IDs  []int64 `json:"ids"`
}

// loadReference reads the reference texts and their vectors (see
// testdata/minilm/README.md).
func loadReference(t testing.TB) ([]refText, [][]float32) {
	t.Helper()
	f, err := os.Open("testdata/minilm/reference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []refText
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r refText
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/minilm/vectors.f32")
	if err != nil {
		t.Fatal(err)
	}
	const dim = 384
	if len(raw) != len(texts)*dim*4 {
		t.Fatalf("vectors.f32 has %d bytes, want %d texts × %d × 4", len(raw), len(texts), dim)
	}
	vecs := make([][]float32, len(texts))
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range dim {
			vecs[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[(i*dim+j)*4:]))
		}
	}
	return texts, vecs
}

// TestModelsEnv names a folder of raw model folders as their publishers
// ship them (all-MiniLM-L6-v2/ holding config.json, model.safetensors and
// tokenizer.json; scripts/fetch-models.sh makes one). Tests that need
// real weights skip without it.
const TestModelsEnv = "ENQUIRE_TEST_MODELS"

// rawModel is the folder of a raw model under $ENQUIRE_TEST_MODELS, or a
// skip.
func rawModel(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv(TestModelsEnv)
	if root == "" {
		t.Skipf("%s is not set: no real %s weights (scripts/fetch-models.sh fetches them)", TestModelsEnv, name)
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, onnxgen.WeightsFile)); err != nil {
		t.Skipf("no real %s weights: %v", name, err)
	}
	return dir
}

// convertedMiniLM converts the real all-MiniLM-L6-v2 checkpoint under
// $ENQUIRE_TEST_MODELS (or skips) into an installed-style folder: it
// returns the raw folder, the converted one and the model.
func convertedMiniLM(t *testing.T) (raw, dir string, m *onnxgen.Model) {
	t.Helper()
	raw = rawModel(t, "all-MiniLM-L6-v2")
	m, err := onnxgen.FromCheckpoint(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(raw, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(dir, tok, "all-MiniLM-L6-v2"); err != nil {
		t.Fatal(err)
	}
	return raw, dir, m
}

// referenceTexts are the reference texts alone.
func referenceTexts(texts []refText) []string {
	in := make([]string, len(texts))
	for i, r := range texts {
		in[i] = r.Text
	}
	return in
}

// checkAgainst fails every text whose vector is below cosine 0.9999 with
// want, and returns the lowest cosine and its text.
func checkAgainst(t *testing.T, in []string, got, want [][]float32, what string) (worst float64, at int) {
	t.Helper()
	worst = 1
	for i := range got {
		c := cosine(got[i], want[i])
		if c < worst {
			worst, at = c, i
		}
		if c < 0.9999 {
			t.Errorf("text %d %.40q: cosine %.6f with %s, want ≥ 0.9999", i, in[i], c, what)
		}
	}
	return worst, at
}

// cosine of two vectors, in float64.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// TestMiniLMTokensMatchReference checks the pure-Go tokenizer, with the
// special tokens and the 256-token cut the embedder adds, token for token
// against the model's own tokenizer on every reference text.
func TestMiniLMTokensMatchReference(t *testing.T) {
	dir := rawModel(t, "all-MiniLM-L6-v2")
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Parse(data, tokenizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := tok.Special()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := Lookup("all-MiniLM-L6-v2")
	texts, _ := loadReference(t)
	var ws tokenizer.Workspace
	long := 0
	for i, r := range texts {
		seq, cut := single(tok.Encode(&ws, r.Text), sp, spec.MaxLength)
		if cut {
			long++
		}
		if !slices.Equal(seq.ids, r.IDs) {
			t.Errorf("text %d %.40q: ids differ\n got %v\nwant %v", i, r.Text, seq.ids, r.IDs)
		}
	}
	if long == 0 {
		t.Error("no reference text reached the 256-token window")
	}
}
