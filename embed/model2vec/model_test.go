package model2vec

import (
	"context"
	"errors"
	"fmt"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
)

// loadFixture writes files into a fresh folder called name and loads it.
func loadFixture(t testing.TB, name string, files map[string][]byte) *Model {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	writeFiles(t, dir, files)
	m, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reference computes model2vec's sentence vector in float64: the mean of
// the (weighted, remapped) token rows, L2-normalised.
func reference(emb []float32, ids []int32, weights []float32, mapping []int32) []float64 {
	out := make([]float64, testDim)
	if len(ids) == 0 {
		return out
	}
	for _, id := range ids {
		row := int(id)
		if mapping != nil {
			row = int(mapping[id])
		}
		w := 1.0
		if weights != nil {
			w = float64(weights[id])
		}
		for j := range out {
			out[j] += w * float64(emb[row*testDim+j])
		}
	}
	var norm float64
	for j := range out {
		out[j] /= float64(len(ids))
		norm += out[j] * out[j]
	}
	norm = math.Sqrt(norm) + 1e-32
	for j := range out {
		out[j] /= norm
	}
	return out
}

func assertClose(t *testing.T, label string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: dim %d, want %d", label, len(got), len(want))
	}
	for j := range got {
		if math.Abs(float64(got[j])-want[j]) > tol {
			t.Fatalf("%s: got %v, want %v", label, got, want)
		}
	}
}

func TestEmbedMatchesModel2VecMath(t *testing.T) {
	rows := len(tokenizertest.WordPieceVocab)
	emb := testEmbeddings(rows)
	half := make([]float32, len(emb))
	for i, x := range emb {
		half[i] = safetensors.F16ToF32(safetensors.F32ToF16(x))
	}
	weights := make([]float32, rows)
	for i := range weights {
		weights[i] = 0.25 + float32(i%4)
	}
	mapping := make([]int32, rows)
	for i := range mapping {
		mapping[i] = int32((i * 7) % 5) // 5 clusters
	}
	texts := []string{"The café", "playing played unknown", "hello, world!", "中文", "", "xyzzy", "[CLS]"}
	wantIDs := [][]int32{{4, 5}, {6, 7, 6, 8, 9, 10, 11}, {14, 17, 15, 16}, {12, 13}, nil, nil, {2}}

	quantised := fixtureFiles(tokenizertest.WordPieceJSON(), 5, "F32",
		testTensor{"weights", "F32", []int64{int64(rows)}, f32Bytes(weights)},
		testTensor{"mapping", "I64", []int64{int64(rows)}, i64Bytes(toI64(mapping))})
	tests := []struct {
		name    string
		files   map[string][]byte
		emb     []float32
		weights []float32
		mapping []int32
		tol     float64
	}{
		{"F32", fixtureFiles(tokenizertest.WordPieceJSON(), rows, "F32"), emb, nil, nil, 1e-6},
		{"F16", fixtureFiles(tokenizertest.WordPieceJSON(), rows, "F16"), half, nil, nil, 1e-6},
		{"weights and mapping", quantised, testEmbeddings(5), weights, mapping, 1e-6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := loadFixture(t, "tiny", tt.files)
			got, err := m.Embed(context.Background(), texts, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				if ids := m.tokenize(text); fmt.Sprint(ids) != fmt.Sprint(wantIDs[i]) && !(len(ids) == 0 && wantIDs[i] == nil) {
					t.Fatalf("tokenize(%q) = %v, want %v", text, ids, wantIDs[i])
				}
				assertClose(t, text, got[i], reference(tt.emb, wantIDs[i], tt.weights, tt.mapping), tt.tol)
			}
			// Non-empty results are unit vectors; the rest are zero.
			for i, v := range got {
				var n float64
				for _, x := range v {
					n += float64(x) * float64(x)
				}
				if wantIDs[i] != nil && math.Abs(n-1) > 1e-5 || wantIDs[i] == nil && n != 0 {
					t.Errorf("|v(%q)|² = %v", texts[i], n)
				}
			}
		})
	}
}

func toI64(v []int32) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func TestEmbedUnigram(t *testing.T) {
	m := loadFixture(t, "uni", fixtureFiles(tokenizertest.UnigramJSON(false), tokenizertest.UnigramSize(), "F32"))
	got, err := m.Embed(context.Background(), []string{"hellox world", "xyz"}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	// The unknown token (unk_id 0) is dropped, as current model2vec does.
	assertClose(t, "hellox world", got[0], reference(testEmbeddings(tokenizertest.UnigramSize()), []int32{2, 3}, nil, nil), 1e-6)
	assertClose(t, "xyz", got[1], reference(testEmbeddings(tokenizertest.UnigramSize()), []int32{1}, nil, nil), 1e-6)
}

func TestEmbedBatchesAndConcurrency(t *testing.T) {
	m := loadFixture(t, "tiny", fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32"))
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = strings.Repeat("hello played ", i%7) + fmt.Sprint(i%3) + " café"
	}
	ctx := context.Background()
	want, err := m.Embed(ctx, texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, text := range texts[:50] {
				v, err := m.Embed(ctx, []string{text}, embed.Document)
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(v[0], want[i]) {
					t.Errorf("single embedding of %q differs from the batch one", text)
					return
				}
			}
		})
	}
	wg.Wait()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Embed(cancelled, texts, embed.Document); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed: %v", err)
	}
	if v, err := m.Embed(ctx, nil, embed.Document); err != nil || len(v) != 0 {
		t.Errorf("Embed(nil) = %v, %v", v, err)
	}
}

var idPattern = regexp.MustCompile(`^model2vec:[^@]+@[0-9a-f]{12}-[0-9a-f]{12}/[0-9]+$`)

func TestID(t *testing.T) {
	files := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32")
	a := loadFixture(t, "potion-test", files)
	b := loadFixture(t, "potion-test", files)
	if a.ID() != b.ID() {
		t.Errorf("same files, different IDs: %s, %s", a.ID(), b.ID())
	}
	files2 := filesDigest(sha256Hex(files[tokenizerFile]), sha256Hex(files[configFile]))
	want := "model2vec:potion-test@" + sha256Hex(files[modelFile])[:12] + "-" + files2[:12] + "/8"
	if a.ID() != want || !idPattern.MatchString(a.ID()) {
		t.Errorf("ID = %s, want %s", a.ID(), want)
	}
	// The same weights with another tokenizer or config get another ID.
	seen := map[string]string{a.ID(): "original"}
	for what, change := range map[string]func(map[string][]byte){
		"tokenizer edited": func(f map[string][]byte) { f[tokenizerFile] = append(f[tokenizerFile], '\n') },
		"config edited":    func(f map[string][]byte) { f[configFile] = []byte(`{"normalize": false}`) },
		"no config":        func(f map[string][]byte) { delete(f, configFile) },
	} {
		f := map[string][]byte{}
		for k, v := range files {
			f[k] = v
		}
		change(f)
		id := loadFixture(t, "potion-test", f).ID()
		if prev, dup := seen[id]; dup || !idPattern.MatchString(id) {
			t.Errorf("%s: ID %s (same as %s: %v)", what, id, prev, dup)
		}
		seen[id] = what
	}
	if a.Dim() != testDim {
		t.Errorf("Dim = %d", a.Dim())
	}
	half := loadFixture(t, "potion-test", fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F16"))
	if half.ID() == a.ID() {
		t.Error("F16 and F32 weights share an ID")
	}
	info := a.Info()
	if info.Name != "potion-test" || info.Vocab != len(tokenizertest.WordPieceVocab) || !info.Normalize || info.SHA256 != sha256Hex(files[modelFile]) ||
		info.TokenizerSHA256 != sha256Hex(files[tokenizerFile]) || info.ConfigSHA256 != sha256Hex(files[configFile]) {
		t.Errorf("Info = %+v", info)
	}
}

func TestLoadErrors(t *testing.T) {
	good := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32")
	with := func(name string, data []byte) map[string][]byte {
		out := map[string][]byte{}
		for k, v := range good {
			out[k] = v
		}
		if data == nil {
			delete(out, name)
		} else {
			out[name] = data
		}
		return out
	}
	badMapping := make([]int32, 20)
	badMapping[19] = 7 // only 2 rows
	tests := []struct {
		name  string
		files map[string][]byte
		want  error
		msg   string
	}{
		{"no tokenizer", with(tokenizerFile, nil), os.ErrNotExist, "tokenizer"},
		{"no model", with(modelFile, nil), os.ErrNotExist, "model file"},
		{"bad config", with(configFile, []byte("{")), nil, "config.json"},
		{"too few rows", fixtureFiles(tokenizertest.WordPieceJSON(), 5, "F32"), ErrSafetensors, "19"},
		{"BPE tokenizer", with(tokenizerFile, []byte(`{"model":{"type":"BPE","vocab":{},"merges":[]}}`)), ErrUnsupported, "BPE"},
		{"mapping out of range", fixtureFiles(tokenizertest.WordPieceJSON(), 2, "F32",
			testTensor{"mapping", "I32", []int64{20}, i32Bytes(badMapping)}), ErrSafetensors, "mapping[19]"},
		{"short weights", fixtureFiles(tokenizertest.WordPieceJSON(), 20, "F32",
			testTensor{"weights", "F32", []int64{3}, f32Bytes([]float32{1, 2, 3})}), ErrSafetensors, "weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			writeFiles(t, dir, tt.files)
			_, err := Load(context.Background(), dir)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want %v mentioning %q", err, tt.want, tt.msg)
			}
		})
	}
	// config.json is optional; model2vec's normalize default is then false.
	m := loadFixture(t, "noconfig", with(configFile, nil))
	if m.Info().Normalize {
		t.Error("normalize without config.json")
	}
}

func TestLoadRejectsNonFinite(t *testing.T) {
	rows := len(tokenizertest.WordPieceVocab)
	emb := testEmbeddings(rows)
	withValue := func(i int, x float32) []float32 {
		e := append([]float32(nil), emb...)
		e[i] = x
		return e
	}
	f64 := make([]float64, len(emb))
	for i, x := range emb {
		f64[i] = float64(x)
	}
	f64[13] = 1e300 // finite in float64, infinite in float32
	embTensor := func(dtype string, data []byte) map[string][]byte {
		files := fixtureFiles(tokenizertest.WordPieceJSON(), rows, "F32")
		files[modelFile] = safetensorsBytes([]testTensor{{"embeddings", dtype, []int64{int64(rows), testDim}, data}}, nil)
		return files
	}
	weights := make([]float32, rows)
	for i := range weights {
		weights[i] = 1
	}
	weights[5] = float32(math.NaN())
	tests := []struct {
		name, tensor, value string
		files               map[string][]byte
	}{
		{"NaN", "embeddings", "element 7 is NaN", embTensor("F32", f32Bytes(withValue(7, float32(math.NaN()))))},
		{"+Inf F16", "embeddings", "element 9 is +Inf", embTensor("F16", f16Bytes(withValue(9, float32(math.Inf(1)))))},
		{"F64 overflow", "embeddings", "element 13 is +Inf", embTensor("F64", f64Bytes(f64))},
		{"NaN weight", "weights", "element 5 is NaN", fixtureFiles(tokenizertest.WordPieceJSON(), rows, "F32",
			testTensor{"weights", "F32", []int64{int64(rows)}, f32Bytes(weights)})},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), "m")
		writeFiles(t, dir, tt.files)
		_, err := Load(context.Background(), dir)
		if !errors.Is(err, ErrSafetensors) || !strings.Contains(err.Error(), fmt.Sprintf("tensor %q", tt.tensor)) || !strings.Contains(err.Error(), tt.value) {
			t.Errorf("%s: got %v, want an error naming tensor %q and %q", tt.name, err, tt.tensor, tt.value)
		}
	}
}

// Finite tables whose float32 sums overflow, or cancel out, give unit or
// zero vectors, never NaN or infinities.
func TestEmbedExtremeValues(t *testing.T) {
	rows := len(tokenizertest.WordPieceVocab)
	huge := make([]float32, rows*testDim)
	for i := range huge {
		huge[i] = float32(math.MaxFloat32 / testDim * float64(1+i%testDim)) // MaxFloat32 · (1..8)/8
	}
	weights := make([]float32, rows)
	for i := range weights {
		weights[i] = 3
	}
	weights[15] = -3 // "world" cancels "hello" (same row below)
	mapping := make([]int32, rows)
	for i := range mapping {
		mapping[i] = int32(i % 2)
	}
	mapping[14], mapping[15] = 1, 1
	files := fixtureFiles(tokenizertest.WordPieceJSON(), rows, "F32")
	files[modelFile] = safetensorsBytes([]testTensor{
		{"embeddings", "F32", []int64{int64(rows), testDim}, f32Bytes(huge)},
		{"weights", "F32", []int64{int64(rows)}, f32Bytes(weights)},
		{"mapping", "I32", []int64{int64(rows)}, i32Bytes(mapping)},
	}, nil)
	m := loadFixture(t, "huge", files)
	got, err := m.Embed(context.Background(), []string{"the the cafe hello", "hello world", "hello"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	// Every row is a multiple of (1, 2, ..., 8).
	var want []float64
	var ss float64
	for j := range testDim {
		ss += float64((j + 1) * (j + 1))
	}
	for j := range testDim {
		want = append(want, float64(j+1)/math.Sqrt(ss))
	}
	assertClose(t, "overflowing sum", got[0], want, 1e-6)
	assertClose(t, "one huge row", got[2], want, 1e-6)
	for _, x := range got[1] {
		if x != 0 {
			t.Fatalf("cancelling rows: %v, want a zero vector", got[1])
		}
	}
}

func TestLoadCapsJSONFiles(t *testing.T) {
	files := fixtureFiles(tokenizertest.WordPieceJSON(), len(tokenizertest.WordPieceVocab), "F32")
	dir := filepath.Join(t.TempDir(), "m")
	writeFiles(t, dir, files)
	defer func(old int64) { maxJSONFile = old }(maxJSONFile)
	maxJSONFile = int64(len(files[tokenizerFile]))
	if _, err := Load(context.Background(), dir); err != nil {
		t.Fatalf("tokenizer.json at the limit: %v", err)
	}
	maxJSONFile--
	if _, err := Load(context.Background(), dir); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tokenizerFile) {
		t.Errorf("tokenizer.json over the limit: %v", err)
	}
	maxJSONFile = int64(len(files[configFile])) - 1
	files[tokenizerFile] = []byte(`{"model":{"type":"WordPiece","vocab":{"a":0},"unk_token":"a"}}`)
	writeFiles(t, dir, files)
	if _, err := Load(context.Background(), dir); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), configFile) {
		t.Errorf("config.json over the limit: %v", err)
	}
}
