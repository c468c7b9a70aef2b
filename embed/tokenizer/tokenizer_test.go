package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxTokens is the truncation model2vec asks for, which these tests use.
const maxTokens = 512

// parseTokenizer parses with model2vec's Options, which these tests were
// written for (they moved here with the code from package model2vec).
func parseTokenizer(js []byte) (*Tokenizer, error) {
	return Parse(js, Options{DropUnknown: true, MaxTokens: maxTokens, CutRunes: true})
}

func mustTokenizer(t *testing.T, js []byte) *Tokenizer {
	t.Helper()
	tok, err := parseTokenizer(js)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func encodeIDs(tok *Tokenizer, text string) []int32 {
	ids := tok.encode(new(Workspace), text)
	if len(ids) == 0 {
		return nil
	}
	return append([]int32(nil), ids...)
}

func TestWordPieceTokenize(t *testing.T) {
	tok := mustTokenizer(t, tokenizertest.WordPieceJSON())
	tests := []struct {
		name, text string
		want       []int32
	}{
		{"empty", "", nil},
		{"only whitespace", "   \t\n", nil},
		{"case and accents", "The Café", []int32{4, 5}},
		{"continuations", "playing played", []int32{6, 7, 6, 8}},
		{"three pieces", "unknown", []int32{9, 10, 11}},
		{"unknown word dropped", "xyzzy", nil},
		{"unknown between known", "hello xyzzy world", []int32{14, 15}},
		{"partly coverable word is unknown", "playingx", nil},
		{"punctuation split off", "Hello, World!", []int32{14, 17, 15, 16}},
		{"repeated punctuation", "!!", []int32{16, 16}},
		{"CJK ideographs", "中文", []int32{12, 13}},
		{"CJK glued to latin", "hello中文world", []int32{14, 12, 13, 15}},
		{"diaeresis", "NAÏVE", []int32{18}},
		{"dotted capital I", "İstanbul", []int32{19}},
		{"control chars and nbsp", "hello\x00 world\u00a0!", []int32{14, 15, 16}},
		{"crlf", "hello\r\nworld", []int32{14, 15}},
		{"special tokens in text", "[CLS] hello [SEP]", []int32{2, 14, 3}},
		{"literal unk is dropped", "[UNK] hello", []int32{14}},
		{"over max_input_chars_per_word", strings.Repeat("a", 101) + " hello", []int32{14}},
		{"invalid utf-8", "hello \xff world", []int32{14, 15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := encodeIDs(tok, tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestUnigramTokenize(t *testing.T) {
	tests := []struct {
		name      string
		multiword bool
		text      string
		want      []int32
	}{
		{"empty", false, "", nil},
		{"two words", false, "hello world", []int32{2, 3}},
		{"best segmentation", false, "helo", []int32{4, 8, 9}},
		{"unknown char dropped", false, "hellox", []int32{2}},
		{"unknown chars fuse and drop", false, "xy", []int32{1}},
		{"NFKC fullwidth", false, "ｈｅｌｌｏ", []int32{2}},
		{"CJK", false, "日本", []int32{10}},
		{"leading spaces", false, "  hello", []int32{1, 2}},
		{"added token splits text", false, "hello<pad>world", []int32{2, 14, 3}},
		{"multiword piece", true, "hello world", []int32{13}},
		{"punctuation padded", true, "hello, world", []int32{2, 1, 12, 3}},
		{"whitespace collapsed and stripped", true, "  hello \t  world  ", []int32{13}},
		{"multiword empty", true, "   ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mustTokenizer(t, tokenizertest.UnigramJSON(tt.multiword))
			if got := encodeIDs(tok, tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestUnigramByteFallback(t *testing.T) {
	pieces := []string{"<unk>", "a", "<0x78>", "<0x79>"}
	u, err := newUnigram(pieces, []float64{0, -1, -1, -1}, new(int), true)
	if err != nil {
		t.Fatal(err)
	}
	ws := new(Workspace)
	if got := u.tokenize(ws, []byte("axy"), nil); !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Errorf("byte fallback: got %v", got)
	}
	// One byte of the run has no piece: the whole run is one unknown.
	if got := u.tokenize(ws, []byte("axz"), nil); !reflect.DeepEqual(got, []int32{1, 0}) {
		t.Errorf("byte fallback with a missing byte: got %v", got)
	}
}

func TestTruncation(t *testing.T) {
	tok := mustTokenizer(t, tokenizertest.WordPieceJSON())
	// The median token length of the fixture vocabulary.
	if got := medianLength(tokenizertest.WordPieceVocab); tok.maxChars != maxTokens*got {
		t.Fatalf("maxChars = %d, want %d", tok.maxChars, maxTokens*got)
	}
	// Characters are cut first: "hello " is 6 characters.
	long := strings.Repeat("hello ", 2000)
	if got, want := len(encodeIDs(tok, long)), tok.maxChars/6; got != want {
		t.Errorf("long text gave %d tokens, want %d", got, want)
	}
	// Then tokens.
	if got := len(encodeIDs(tok, strings.Repeat("! ", 2000))); got != maxTokens {
		t.Errorf("long text gave %d tokens, want %d", got, maxTokens)
	}
	if got := medianLength([]string{"a", "bb", "cccc", "dddddd"}); got != 3 {
		t.Errorf("even median = %d, want 3", got)
	}
}

func TestNormalizers(t *testing.T) {
	tests := []struct {
		name string
		n    normalizer
		in   string
		want string
	}{
		{"lowercase dotted I", lowercaseNormalizer{}, "İSTANBUL Σ", "i\u0307stanbul σ"},
		{"bert no lowercase", bertNormalizer{cleanText: true, chinese: true}, "Café\t中", "Café  中 "},
		{"bert strip without lowercase", bertNormalizer{stripAccents: true}, "Café", "Cafe"},
		{"bert strip nested decomposition", bertNormalizer{stripAccents: true, lowercase: true}, "ǕṤ", "us"},
		{"bert strip hangul to jamo", bertNormalizer{stripAccents: true, lowercase: true}, "한", "\u1112\u1161\u11ab"},
		{"bert soft hyphen and NEL dropped", bertNormalizer{cleanText: true}, "a\u00adb\u0085c\u2028d", "abc d"},
		{"strip accents keeps base", stripAccentsNormalizer{}, norm.NFD.String("ça va"), "ca va"},
		{"nfkc", unicodeNormalizer{norm.NFKC}, "ﬁ①", "fi1"},
		{"strip both", stripNormalizer{true, true}, " \u3000 x y \n", "x y"},
		{"strip right", stripNormalizer{false, true}, "  x  ", "  x"},
		{"prepend", prependNormalizer{"▁"}, "x", "▁x"},
		{"prepend empty", prependNormalizer{"▁"}, "", ""},
		{"replace string", replaceStringNormalizer{"''", "\""}, "a ''b'' c", "a \"b\" c"},
		{"space runs unicode", spaceRunNormalizer{unicodeSpace: true, min: 1, content: " "}, "a \t\u00a0b", "a b"},
		{"space runs of two", spaceRunNormalizer{min: 2, content: " "}, "a b  c   d", "a b c d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.n.normalize(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestBertStripMatchesNFD compares the per-character decomposition with
// HuggingFace's order of steps (whole-string NFD, drop Mn, lowercase)
// over Latin, Greek, Cyrillic, Vietnamese and Hangul samples.
func TestBertStripMatchesNFD(t *testing.T) {
	n := bertNormalizer{cleanText: true, chinese: true, stripAccents: true, lowercase: true}
	var sample []rune
	for _, block := range [][2]rune{{0xC0, 0x24F}, {0x370, 0x3FF}, {0x400, 0x4FF}, {0x1E00, 0x1EFF}, {0xAC00, 0xAC00 + 600}, {0xF900, 0xF9FF}} {
		for r := block[0]; r <= block[1]; r++ {
			if unicode.IsGraphic(r) { // clean_text drops unassigned code points
				sample = append(sample, r)
			}
		}
	}
	for _, r := range sample {
		in := "x" + string(r) + "y"
		var want []byte
		for _, d := range norm.NFD.String(in) {
			if !unicode.Is(unicode.Mn, d) {
				want = appendLower(want, d)
			}
		}
		if isChinese(r) {
			want = appendLower(nil, 'x')
			want = append(want, ' ')
			for _, d := range norm.NFD.String(string(r)) {
				want = appendLower(want, d)
			}
			want = append(want, " y"...)
		}
		if got := n.normalize(nil, []byte(in)); string(got) != string(want) {
			t.Errorf("U+%04X: got %q, want %q", r, got, want)
		}
	}
}

func TestRegexReplace(t *testing.T) {
	tests := []struct{ pattern, in, want string }{
		{`\d+`, "a١٢b34", "a#b#"},
		{`[\s,]+`, "a,\u00a0 b", "a#b"},
		{`\W`, "a-é", "a#é"},
		{`x{2,}`, "axxxbx", "a#bx"},
	}
	for _, tt := range tests {
		raw := []byte(`{"type":"Replace","pattern":{"Regex":` + jsonString(tt.pattern) + `},"content":"#"}`)
		n, err := parseReplace(raw)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := string(n.normalize(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("%s on %q = %q, want %q", tt.pattern, tt.in, got, tt.want)
		}
	}
	if _, err := onigToRE2(`[^\S]`); !errors.Is(err, ErrUnsupported) {
		t.Errorf("negated class in brackets: %v", err)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c == '\\' || c == '"' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

func TestFuseReplacementsMatchesSequence(t *testing.T) {
	seq := []normalizer{
		replaceStringNormalizer{",", " , "},
		replaceStringNormalizer{"!", " ! "},
		replaceStringNormalizer{"é", "e"},
		replaceStringNormalizer{" ", "_"}, // " " occurs in earlier contents: must not fuse
		replaceStringNormalizer{"?", "??"},
	}
	fused := fuseReplacements(seq)
	// The space replacement cannot join the first run, as earlier contents
	// hold spaces; it starts a second run with "?".
	if len(fused) != 2 {
		t.Fatalf("fused into %d steps, want 2", len(fused))
	}
	in := []byte("a,b!é? c")
	run := func(ns []normalizer) string {
		cur := append([]byte(nil), in...)
		for _, n := range ns {
			cur = n.normalize(nil, cur)
		}
		return string(cur)
	}
	if a, b := run(seq), run(fused); a != b {
		t.Errorf("fused %q != sequential %q", b, a)
	}
}

// A repeated pattern ends a fused run: the second replacement sees the
// first one's output, which a single rune map could not do.
func TestFuseReplacementsRepeatedPattern(t *testing.T) {
	seq := []normalizer{
		replaceStringNormalizer{"a", "b"},
		replaceStringNormalizer{"c", "d"},
		replaceStringNormalizer{"a", "x"}, // never matches after the first
		replaceStringNormalizer{"é", "e"},
		replaceStringNormalizer{"é", "f"},
	}
	fused := fuseReplacements(seq)
	if len(fused) != 3 {
		t.Fatalf("fused into %d steps, want 3 (a c | a é | é)", len(fused))
	}
	for _, in := range []string{"aacé", "xyz", "éa"} {
		cur, fcur := []byte(in), []byte(in)
		for _, n := range seq {
			cur = n.normalize(nil, cur)
		}
		for _, n := range fused {
			fcur = n.normalize(nil, fcur)
		}
		if string(cur) != string(fcur) {
			t.Errorf("%q: fused %q != sequential %q", in, fcur, cur)
		}
	}
}

func TestPreTokenizers(t *testing.T) {
	pieces := func(p preTokenizer, s string) []string {
		text := []byte(s)
		newText, spans, _ := p.split(text, []span{{0, len(text)}}, nil, nil, true)
		var out []string
		for _, sp := range spans {
			out = append(out, string(newText[sp.start:sp.end]))
		}
		return out
	}
	tests := []struct {
		name string
		p    preTokenizer
		in   string
		want []string
	}{
		{"bert", bertPreTokenizer{}, "Hey friend!     How are you?!?", []string{"Hey", "friend", "!", "How", "are", "you", "?", "!", "?"}},
		{"bert symbols", bertPreTokenizer{}, "a$b+c«d»", []string{"a", "$", "b", "+", "c", "«", "d", "»"}},
		{"whitespace", whitespacePreTokenizer{}, "Hey man!! ça", []string{"Hey", "man", "!!", "ça"}},
		{"whitespace split", funcPreTokenizer{isSpace, removed}, "Hey, man!", []string{"Hey,", "man!"}},
		{"digits contiguous", funcPreTokenizer{isNumeric, contiguous}, "Hey 123 friend", []string{"Hey ", "123", " friend"}},
		{"digits individual", funcPreTokenizer{isNumeric, isolated}, "a12", []string{"a", "1", "2"}},
		{"merged with previous", funcPreTokenizer{func(r rune) bool { return r == '-' }, mergedWithPrevious}, "a-b--c", []string{"a-", "b-", "-", "c"}},
		{"merged with next", funcPreTokenizer{func(r rune) bool { return r == '-' }, mergedWithNext}, "a-b--c", []string{"a", "-b", "-", "-c"}},
		{"metaspace split", metaspacePreTokenizer{[]byte("▁"), prependAlways, true}, "Hey   friend!", []string{"▁Hey", "▁", "▁", "▁friend!"}},
		{"metaspace no split", metaspacePreTokenizer{[]byte("▁"), prependAlways, false}, "Hey friend", []string{"▁Hey▁friend"}},
		{"metaspace never", metaspacePreTokenizer{[]byte("▁"), prependNever, true}, "Hey friend", []string{"Hey", "▁friend"}},
		{"metaspace keeps existing", metaspacePreTokenizer{[]byte("▁"), prependAlways, true}, " Hey", []string{"▁Hey"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pieces(tt.p, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// overlapCharsmap builds a tiny double-array charsmap mapping "a" to "x"
// and both "ab" and "a\u0300" to "y".
func overlapCharsmap() []byte {
	units := make([]uint32, 256)
	units['a'] = 'a' | 1<<8 | 1<<10
	units[96] = 0
	units[2] = 'b' | 1<<8 | 1<<10
	units[3] = 2
	units[172] = 0xcc | 1<<10
	units[45] = 0x80 | 1<<8 | 1<<10
	units[44] = 2
	out := binary.LittleEndian.AppendUint32(nil, uint32(4*len(units)))
	for _, u := range units {
		out = binary.LittleEndian.AppendUint32(out, u)
	}
	return append(out, "x\x00y\x00"...)
}

func TestPrecompiled(t *testing.T) {
	p, err := parsePrecompiled(overlapCharsmap())
	if err != nil {
		t.Fatal(err)
	}
	// tokenizers replaces a whole grapheme cluster by the entry of its
	// shortest matching prefix, and looks characters up one by one
	// otherwise.
	tests := []struct{ in, want string }{
		{"ab", "xb"},
		{"a\u0300", "x"},
		{"a\u0300z", "xz"},
		{"bab", "bxb"},
		{"é", "é"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := string(p.normalize(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range [][]byte{nil, {1, 0, 0, 0}, {8, 0, 0, 0, 1}, {0, 0, 0, 0}} {
		if _, err := parsePrecompiled(bad); err == nil {
			t.Errorf("parsePrecompiled(%v) accepted a corrupt table", bad)
		}
	}
	// A trie whose offsets point outside itself must not panic.
	corrupt := binary.LittleEndian.AppendUint32(nil, 8)
	corrupt = binary.LittleEndian.AppendUint32(corrupt, 0xffffffff)
	corrupt = binary.LittleEndian.AppendUint32(corrupt, 0xffffffff)
	if p, err := parsePrecompiled(corrupt); err == nil {
		p.normalize(nil, []byte("abc\u00e9"))
	}
}

func TestTokenizerErrors(t *testing.T) {
	tests := []struct {
		name, js    string
		unsupported bool
	}{
		{"not json", `{`, false},
		{"no model", `{"model": null}`, false},
		{"BPE", `{"model": {"type": "BPE", "vocab": {}, "merges": []}}`, true},
		{"unknown normalizer", `{"normalizer": {"type": "Nmt"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}`, true},
		{"unknown pre-tokenizer", `{"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}`, true},
		{"bad unigram entry", `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a"]]}}`, false},
		{"unigram unk out of range", `{"model": {"type": "Unigram", "unk_id": 5, "vocab": [["a", 0.0]]}}`, false},
		{"empty wordpiece", `{"model": {"type": "WordPiece", "vocab": {}}}`, false},
		{"negative id", `{"model": {"type": "WordPiece", "vocab": {"a": -1}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseTokenizer([]byte(tt.js))
			if err == nil {
				t.Fatal("accepted")
			}
			if tt.unsupported != errors.Is(err, ErrUnsupported) {
				t.Errorf("error %v: ErrUnsupported = %v, want %v", err, !tt.unsupported, tt.unsupported)
			}
		})
	}
}

func TestTrie(t *testing.T) {
	keys := []string{"a", "ab", "abc", "b", "", "ab", "\xff\x00"}
	tr := buildTrie(keys)
	for key, want := range map[string]int32{"a": 0, "ab": 5, "abc": 2, "b": 3, "c": -1, "abcd": -1, "": -1, "\xff\x00": 6} {
		if got := tr.lookup(key); got != want {
			t.Errorf("lookup(%q) = %d, want %d", key, got, want)
		}
	}
}

// TestTokenizerJSONComponents parses every supported component from
// tokenizer.json and runs them together.
func TestTokenizerJSONComponents(t *testing.T) {
	charsmap := base64.StdEncoding.EncodeToString(overlapCharsmap())
	js := `{
	  "added_tokens": [{"id": 6, "content": "<x>", "single_word": true, "special": true, "normalized": false}],
	  "normalizer": {"type": "Sequence", "normalizers": [
	    {"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
	    {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "  "}, {"type": "NFC"}]},
	    {"type": "Strip", "strip_left": true, "strip_right": true},
	    {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
	    {"type": "Precompiled", "precompiled_charsmap": "` + charsmap + `"},
	    {"type": "Precompiled", "precompiled_charsmap": ""}, {"type": "NFD"}]},
	  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
	    {"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Removed"},
	    {"type": "Digits", "individual_digits": true},
	    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": false}]},
	  "model": {"unk_token": "[UNK]", "continuing_subword_prefix": "##",
	    "vocab": {"[UNK]": 0, "cxfe": 1, "##s": 2, "1": 3, "2": 4, "xb": 5, "<x>": 6}}
	}`
	tok := mustTokenizer(t, []byte(js))
	if got, want := encodeIDs(tok, "Cafés 12 ab! <x> a<x>b"), []int32{1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	bad := []struct{ name, component string }{
		{"prepend scheme", `"pre_tokenizer": {"type": "Metaspace", "prepend_scheme": "sometimes"}`},
		{"punctuation behavior", `"pre_tokenizer": {"type": "Punctuation", "behavior": "Scattered"}`},
		{"empty replace", `"normalizer": {"type": "Replace", "pattern": {"String": ""}, "content": "x"}`},
		{"bad regex", `"normalizer": {"type": "Replace", "pattern": {"Regex": "(?<=a)b"}, "content": "x"}`},
		{"split pre-tokenizer", `"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "\\s"}, "behavior": "Removed"}`},
	}
	for _, b := range bad {
		_, err := parseTokenizer([]byte(`{` + b.component + `, "model": {"type": "WordPiece", "vocab": {"a": 0}}}`))
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", b.name, err)
		}
	}
	for _, component := range []string{
		`"normalizer": {"type": "Precompiled", "precompiled_charsmap": "!!"}`,
		`"pre_tokenizer": {"type": "Metaspace", "replacement": "ab"}`,
		`"normalizer": {"type": "Replace", "pattern": {}, "content": "x"}`,
	} {
		if _, err := parseTokenizer([]byte(`{` + component + `, "model": {"type": "WordPiece", "vocab": {"a": 0}}}`)); err == nil {
			t.Errorf("accepted %s", component)
		}
	}
}

func TestMetaspaceFirst(t *testing.T) {
	js := `{"added_tokens": [{"id": 3, "content": "<s>", "special": true}],
	  "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
	  "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["▁a", -1], ["a", -1], ["<s>", 0]]}}`
	tok := mustTokenizer(t, []byte(js))
	// Only the start of the input gets the ▁; text after an added token does not.
	if got, want := encodeIDs(tok, "a<s>a"), []int32{1, 3, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
