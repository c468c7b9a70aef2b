package onnx

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

var (
	bert    = tokenizer.Special{CLS: 101, SEP: 102, PairSeps: 1, SecondTypeID: 1}
	roberta = tokenizer.Special{CLS: 0, SEP: 2, PairSeps: 2}
)

func TestSingle(t *testing.T) {
	tests := []struct {
		name string
		ids  []int32
		max  int
		want []int64
		cut  bool
	}{
		{"fits", []int32{5, 6}, 4, []int64{101, 5, 6, 102}, false},
		{"empty", nil, 4, []int64{101, 102}, false},
		{"cut", []int32{5, 6, 7}, 4, []int64{101, 5, 6, 102}, true},
	}
	for _, tt := range tests {
		got, cut := single(tt.ids, bert, tt.max)
		if !reflect.DeepEqual(got.ids, tt.want) || cut != tt.cut || len(got.types) != len(got.ids) {
			t.Errorf("%s: %v %v cut=%v", tt.name, got.ids, got.types, cut)
		}
	}
}

func TestPair(t *testing.T) {
	tests := []struct {
		name       string
		a, b       []int32
		sp         tokenizer.Special
		max        int
		ids, types []int64
		cut        bool
	}{
		{"bert", []int32{5}, []int32{6, 7}, bert, 16, []int64{101, 5, 102, 6, 7, 102}, []int64{0, 0, 0, 1, 1, 1}, false},
		{"roberta", []int32{5}, []int32{6}, roberta, 16, []int64{0, 5, 2, 2, 6, 2}, []int64{0, 0, 0, 0, 0, 0}, false},
		// longest_first: the passage loses tokens until it is as long as
		// the query, then both lose, the passage first.
		{"cut passage", []int32{5, 6}, []int32{7, 8, 9, 10, 11}, bert, 8, []int64{101, 5, 6, 102, 7, 8, 9, 102}, []int64{0, 0, 0, 0, 1, 1, 1, 1}, true},
		{"cut both", []int32{5, 6, 7}, []int32{8, 9, 10}, bert, 7, []int64{101, 5, 6, 102, 8, 9, 102}, []int64{0, 0, 0, 0, 1, 1, 1}, true},
	}
	for _, tt := range tests {
		got, cut := pair(tt.a, tt.b, tt.sp, tt.max)
		if !reflect.DeepEqual(got.ids, tt.ids) || !reflect.DeepEqual(got.types, tt.types) || cut != tt.cut {
			t.Errorf("%s: ids %v types %v cut=%v", tt.name, got.ids, got.types, cut)
		}
	}
}

func TestPadAndPool(t *testing.T) {
	b := pad([]sequence{{ids: []int64{1, 2, 3}, types: []int64{0, 0, 0}}, {ids: []int64{4}, types: []int64{0}}}, 9)
	if b.rows != 2 || b.cols != 3 || !reflect.DeepEqual(b.ids, []int64{1, 2, 3, 4, 9, 9}) || !reflect.DeepEqual(b.mask, []int64{1, 1, 1, 1, 0, 0}) {
		t.Fatalf("pad: %+v", b)
	}
	// dim 2; row 0 tokens (3,4) (1,0) (5,0); row 1 token (0,2) then padding
	// that must not count.
	hidden := []float32{3, 4, 1, 0, 5, 0, 0, 2, 100, 100, 100, 100}
	mean, err := pool(hidden, b, 2, Mean)
	if err != nil {
		t.Fatal(err)
	}
	// row 0 mean (3, 4/3) → normalised; row 1 (0, 2) → (0, 1).
	n := float32(1 / math.Sqrt(9+16.0/9)) // 1/|(3, 4/3)|
	if d := mean[0][0] - 3*n; d > 1e-5 || d < -1e-5 || mean[1][0] != 0 || mean[1][1] != 1 {
		t.Errorf("mean pooling: %v", mean)
	}
	cls, _ := pool(hidden, b, 2, CLS)
	if cls[0][0] != 0.6 || cls[0][1] != 0.8 {
		t.Errorf("CLS pooling: %v", cls)
	}
	if _, err := pool(hidden[:5], b, 2, Mean); err == nil {
		t.Error("a short output was accepted")
	}
}

func TestFindLibrary(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "custom.so")
	exe := filepath.Join(dir, "enquire-mcp")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, LibraryNames(runtime.GOOS)[0])
	tests := []struct {
		name, flag, env, exe string
		next                 bool
		want, source         string
	}{
		{"flag", lib, "", exe, false, lib, "--ort-lib"},
		{"env", "", lib, exe, false, lib, LibraryEnv},
		{"flag wins", lib, "/nonexistent", exe, false, lib, "--ort-lib"},
		{"next to the binary", "", "", exe, true, next, "next to the binary"},
		{"none", "", "", exe, false, "", ""},
		{"missing flag path", filepath.Join(dir, "nope.so"), "", exe, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(LibraryEnv, tt.env)
			os.Remove(next)
			if tt.next {
				if err := os.WriteFile(next, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, source, err := FindLibrary(tt.flag, tt.exe)
			if got != tt.want || source != tt.source || (err == nil) != (tt.want != "") {
				t.Errorf("FindLibrary = %q, %q, %v; want %q, %q", got, source, err, tt.want, tt.source)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	for _, name := range []string{"all-MiniLM-L6-v2", "BGE-small-en-v1.5", "multilingual-e5-small", "ms-marco-MiniLM-L-6-v2", "bge-reranker-base"} {
		s, ok := Lookup(name)
		if !ok || s.Repo == "" || len(s.Files) == 0 || s.MaxLength == 0 {
			t.Errorf("Lookup(%q) = %+v, %v", name, s, ok)
		}
	}
	if s, _ := Lookup("multilingual-e5-small"); s.QueryPrefix != "query: " || s.DocPrefix != "passage: " {
		t.Errorf("e5 prefixes %q %q", s.QueryPrefix, s.DocPrefix)
	}
	if s, _ := Lookup("bge-small-en-v1.5"); s.Pooling != CLS {
		t.Error("bge-small-en-v1.5 should pool CLS")
	}
}

func TestSpans(t *testing.T) {
	rep := func(n, v int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	tests := []struct {
		name    string
		lengths []int
		rows    int
		want    [][2]int
	}{
		{"empty", nil, 8, nil},
		{"short, by rows", rep(20, 10), 8, [][2]int{{0, 8}, {8, 16}, {16, 20}}},
		{"256 tokens: 8 fit", rep(9, 256), 8, [][2]int{{0, 8}, {8, 9}}},
		{"512 tokens: 2 fit", rep(5, 512), 8, [][2]int{{0, 2}, {2, 4}, {4, 5}}},
		{"a long one closes the batch", []int{10, 10, 10, 512, 10}, 8, [][2]int{{0, 3}, {3, 5}}},
		{"one over the budget alone", []int{2000, 2000}, 8, [][2]int{{0, 1}, {1, 2}}},
		{"batch of 1", rep(3, 5), 1, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		if got := spans(tt.lengths, tt.rows); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
