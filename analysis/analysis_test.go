package analysis

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tok is one term with the source text of its span.
type tok struct{ Term, Src string }

func (t tok) String() string { return t.Term + "[" + t.Src + "]" }

// collect runs Each and checks every span against text.
func collect(t *testing.T, a *Analyzer, text string, mode Mode) []tok {
	t.Helper()
	var out []tok
	a.Each(text, mode, func(term string, start, end int) {
		if start < 0 || start >= end || end > len(text) {
			t.Fatalf("Each(%q): span [%d,%d) out of range (len %d)", text, start, end, len(text))
		}
		out = append(out, tok{term, text[start:end]})
	})
	return out
}

// toks builds []tok from "term[src]" strings; a bare "term" means src == term.
func toks(specs ...string) []tok {
	out := []tok{}
	for _, s := range specs {
		if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
			out = append(out, tok{s[:i], s[i+1 : len(s)-1]})
		} else {
			out = append(out, tok{s, s})
		}
	}
	return out
}

func TestEach(t *testing.T) {
	const both = -1
	long64, long65 := strings.Repeat("x", 64), strings.Repeat("x", 65)
	tests := []struct {
		name string
		text string
		mode Mode // both: the same result is expected in Index and Query mode
		want []tok
	}{
		// Word splitting and case.
		{"ascii words", "Hello World", both, toks("hello[Hello]", "world[World]")},
		{"upper case", "SEARCH Engine", both, toks("search[SEARCH]", "engin[Engine]")},
		{"cyrillic", "Привет, мир!", both, toks("привет[Привет]", "мир")},
		{"greek keeps tonos", "Ελληνικά κείμενα", both, toks("ελληνικά[Ελληνικά]", "κείμενα")},
		{"digits", "bm25 2026 42", both, toks("bm25", "2026", "42")},
		{"mixed letters and digits", "GPT4o v2 x86", both, toks("gpt4o[GPT4o]", "v2", "x86")},
		{"decimal point splits", "3.14 v1.2.3", both, toks("3", "14", "v1", "2", "3")},
		{"full-width digits", "２０２６年", both, toks("2026[２０２６]", "年")},
		{"hyphen splits", "well-known state-of-the-art", both, toks("well", "known", "state", "art")},
		{"apostrophe splits", "O'Reilly's guide", both, toks("o[O]", "reilli[Reilly]", "guid[guide]")},
		{"typographic apostrophe", "O’Reilly", both, toks("o[O]", "reilli[Reilly]")},
		{"underscore and slash split", "snake_case path/to", both, toks("snake", "case", "path")},
		{"markdown syntax", "## **Bold** [[Link]] `code`", both, toks("bold[Bold]", "link[Link]", "code")},
		{"emoji ignored", "🙂 smile", both, toks("smile")},

		// Stop words and stemming.
		{"stop words dropped", "The and of to is it was THE", both, toks()},
		{"stop word contraction", "don't", both, toks()},
		{"stop words around content", "the search of the vault", both, toks("search", "vault")},
		{"stemming", "running studies connection connected connections", both,
			toks("run[running]", "studi[studies]", "connect[connection]", "connect[connected]", "connect[connections]")},
		{"short words unstemmed", "ox", both, toks("ox")},

		// NFKC.
		{"full-width latin", "ＡＢＣ Ｓｅａｒｃｈ", both, toks("abc[ＡＢＣ]", "search[Ｓｅａｒｃｈ]")},
		{"full-width stop word", "Ａ", both, toks()},
		{"ligature", "ﬁle ﬁnance", both, toks("file[ﬁle]", "financ[ﬁnance]")},

		// Diacritics: folded on Latin only.
		{"cafe", "Café", both, toks("cafe[Café]")},
		{"naive NFC", "naïve", both, toks("naiv[naïve]")},
		{"naive NFD", "nai\u0308ve", both, toks("naiv[nai\u0308ve]")},
		{"resume", "Résumé", both, toks("resum[Résumé]")},
		{"vietnamese", "Tiếng Việt", both, toks("tieng[Tiếng]", "viet[Việt]")},
		{"turkish dotted I", "İstanbul", both, toks("istanbul[İstanbul]")},
		{"devanagari keeps marks", "हिंदी", both, toks("हिंदी")},
		{"devanagari nukta kept", "क़लम", both, toks("क\u093Cलम[क़लम]")},
		{"kana dakuten NFC", "が", both, toks("が")},
		{"kana dakuten NFD", "か\u3099", both, toks("が[か\u3099]")},
		{"kana dakuten NFD bigram", "か\u3099く", Query, toks("がく[か\u3099く]")},

		// CJK.
		{"cjk index", "東京タワー", Index,
			toks("東", "京", "東京", "タ", "京タ", "ワ", "タワ", "ー", "ワー")},
		{"cjk query", "東京タワー", Query, toks("東京", "京タ", "タワ", "ワー")},
		{"cjk single index", "中", Index, toks("中")},
		{"cjk single query", "中", Query, toks("中")},
		{"cjk two query", "中文", Query, toks("中文")},
		{"cjk single between latin", "x中y", Query, toks("x", "中", "y")},
		{"cjk runs split by punctuation", "日本。東京、中", Query, toks("日本", "東京", "中")},
		{"cjk mixed latin query", "日本語とEnglish混合", Query,
			toks("日本", "本語", "語と", "english[English]", "混合")},
		{"cjk mixed latin index", "語とBM25", Index, toks("語", "と", "語と", "bm25[BM25]")},
		{"hangul query", "한국어 검색", Query, toks("한국", "국어", "검색")},
		{"iteration mark", "人々", Query, toks("人々")},
		{"half-width katakana", "ｶﾀｶﾅ", Query, toks("カタ[ｶﾀ]", "タカ[ﾀｶ]", "カナ[ｶﾅ]")},
		{"half-width voiced mark", "ｶﾞｲﾄﾞ", Query, toks("ガイ[ｶﾞｲ]", "イド[ｲﾄﾞ]")},
		{"cjk compatibility ideograph", "\uF900", Index, toks("\u8C48[\uF900]")},

		// Degenerate input.
		{"empty", "", both, toks()},
		{"whitespace", " \t\n\r\u00a0\u3000", both, toks()},
		{"punctuation", "!!! --- ... ??? — … · 「」", both, toks()},
		{"64-byte token kept", long64, both, toks(long64)},
		{"65-byte token dropped", "abc " + long65 + " def", both, toks("abc", "def")},
		{"hex hash dropped", "sha " + strings.Repeat("0f", 33), both, toks("sha")},
	}
	a := New()
	for _, tt := range tests {
		modes := []Mode{tt.mode}
		if tt.mode == both {
			modes = []Mode{Index, Query}
		}
		for _, m := range modes {
			t.Run(fmt.Sprintf("%s/mode%d", tt.name, m), func(t *testing.T) {
				got := collect(t, a, tt.text, m)
				if got == nil {
					got = []tok{}
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Each(%q, %d)\n got %v\nwant %v", tt.text, m, got, tt.want)
				}
			})
		}
	}
}

func TestTerm(t *testing.T) {
	tests := []struct{ word, want string }{
		{"", ""},
		{"Running", "run"},
		{"STUDIES", "studi"},
		{"the", ""},
		{"The", ""},
		{"Ａ", ""}, // NFKC before the stop-word check
		{"ﬁ", "fi"},
		{"Café", "cafe"},
		{"nai\u0308ve", "naiv"},
		{"bm25", "bm25"},
		{"Straße", "straße"}, // not ASCII: no stemming, ß kept
		{"हिंदी", "हिंदी"},
		{strings.Repeat("a", 65), ""},
	}
	a := New()
	for _, tt := range tests {
		for range 2 { // the second call is served from the stem cache
			if got := a.Term(tt.word); got != tt.want {
				t.Errorf("Term(%q) = %q, want %q", tt.word, got, tt.want)
			}
		}
	}
}

func TestTermsAppends(t *testing.T) {
	a := New()
	got := a.Terms([]string{"keep"}, "Running connections", Index)
	if want := []string{"keep", "run", "connect"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
	if got := a.Terms(nil, "the of", Query); len(got) != 0 {
		t.Errorf("Terms of stop words = %q, want none", got)
	}
}

func TestStemCache(t *testing.T) {
	a := New()
	a.Term("connections")
	a.Term("connections")
	if n := a.stems.n.Load(); n != 1 {
		t.Errorf("cached = %d after one distinct word, want 1", n)
	}
	if s, ok := a.stems.get("connections"); !ok || s != "connect" {
		t.Errorf("cache[connections] = %v, %v; want connect", s, ok)
	}
	// A full cache still stems, but stores nothing more.
	a.stems.n.Store(maxCached)
	if got := a.Term("studies"); got != "studi" {
		t.Errorf("Term with full cache = %q, want studi", got)
	}
	if _, ok := a.stems.get("studies"); ok {
		t.Error("full cache grew")
	}
}

func TestIsCJK(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'中', true}, {'が', true}, {'カ', true}, {'ｶ', true}, {'한', true},
		{'ー', true}, {'々', true}, {'\uF900', true},
		{'a', false}, {'é', false}, {'Я', false}, {'ह', false}, {'。', false},
		{'、', false}, {'\u3099', false}, {' ', false}, {utf8.RuneError, false},
	}
	for _, tt := range tests {
		if got := IsCJK(tt.r); got != tt.want {
			t.Errorf("IsCJK(%q %U) = %v, want %v", tt.r, tt.r, got, tt.want)
		}
	}
}

// TestIsCJKAllRunes checks IsCJK (with its fast path) against its
// definition by script on every code point, and that the fast-path
// characters are NFKC-stable on their own.
func TestIsCJKAllRunes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 0x30FC || r == 0x3005)
		if got := IsCJK(r); got != want {
			t.Fatalf("IsCJK(%U) = %v, want %v", r, got, want)
		}
		if stableCJK(r) {
			if s := string(r); !norm.NFKC.IsNormalString(s) || !norm.NFKC.PropertiesString(s).BoundaryBefore() {
				t.Fatalf("stableCJK(%U) but NFKC changes or composes it", r)
			}
		}
	}
}

// checkSpans asserts the invariants of Each on arbitrary input: spans in
// range, on rune boundaries of valid input, terms valid UTF-8, and every
// Query term also an Index term.
func checkSpans(t *testing.T, a *Analyzer, text string) {
	t.Helper()
	index := map[string]bool{}
	for _, m := range []Mode{Index, Query} {
		a.Each(text, m, func(term string, start, end int) {
			if start < 0 || start >= end || end > len(text) {
				t.Fatalf("Each(%q, %d): span [%d,%d) out of range", text, m, start, end)
			}
			if term == "" || !utf8.ValidString(term) {
				t.Errorf("Each(%q, %d): bad term %q", text, m, term)
			}
			if src := text[start:end]; !utf8.ValidString(src) {
				t.Errorf("Each(%q, %d): span %q is not valid UTF-8", text, m, src)
			}
			if m == Index {
				index[term] = true
			} else if !index[term] {
				t.Errorf("Each(%q): query term %q is not an index term", text, term)
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	inputs := []string{
		"\xff", "\xff\xfe", "caf\xe9", "a\x80b", "日\xe6\x97", "\xe6\x97日本",
		"\xe2\x80", "na\xcc", "\xed\xa0\x80", "ok \xc0\xaf ok", "日本\xff語",
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, string(b))
	}
	a := New()
	for _, in := range inputs {
		checkSpans(t, a, in)
	}
	// Valid words around invalid bytes still come through.
	if got := collect(t, a, "x\x80y 日\xff本", Query); !reflect.DeepEqual(got, toks("x", "y", "日", "本")) {
		t.Errorf("got %v", got)
	}
}

func FuzzEach(f *testing.F) {
	for _, s := range []string{"", "Hello, World", "東京タワー", "か\u3099", "ｶﾞ", "nai\u0308ve", "\xff日", "हिंदी"} {
		f.Add(s)
	}
	a := New()
	f.Fuzz(func(t *testing.T, s string) { checkSpans(t, a, s) })
}

// corpus is a varied set of texts for the concurrency test.
func corpus() []string {
	texts := []string{
		englishMarkdown(8 << 10), cjkText(4 << 10),
		"Café naïve nai\u0308ve Résumé हिंदी ｶﾞｲﾄﾞ か\u3099 ＡＢＣ ﬁle",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 30 {
		var b strings.Builder
		for range 50 {
			b.WriteString(englishWords[rng.IntN(len(englishWords))])
			b.WriteString(fmt.Sprintf(" w%d ", rng.IntN(1000))) // new words for the cache
		}
		texts = append(texts, b.String())
	}
	return texts
}

func TestConcurrent(t *testing.T) {
	texts := corpus()
	ref := New()
	want := make([][2][]string, len(texts))
	for i, s := range texts {
		want[i] = [2][]string{ref.Terms(nil, s, Index), ref.Terms(nil, s, Query)}
	}
	shared := New() // cold cache: goroutines race to fill it
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for k := range texts {
				i := (k + g*7) % len(texts)
				for m, mode := range []Mode{Index, Query} {
					if got := shared.Terms(nil, texts[i], mode); !slices.Equal(got, want[i][m]) {
						t.Errorf("goroutine %d text %d mode %d: terms differ from a sequential run", g, i, m)
					}
				}
			}
		})
	}
	wg.Wait()
}
