package tokenizer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// TestBertBaseUncased tokenizes fixed sentences with the real
// bert-base-uncased vocabulary. The expected ids come from the reference
// tokenizer's rules (testdata/bertref.js); the first sentence's are also
// the ones Hugging Face's documentation prints for it.
func TestBertBaseUncased(t *testing.T) {
	js, vocab, err := tokenizertest.BertBaseUncased("testdata/bert-base-uncased/vocab.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(vocab) != 30522 {
		t.Fatalf("vocabulary has %d tokens, want 30522", len(vocab))
	}
	tok, err := Parse(js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		tokens     []string
		ids        []int32
	}{
		{"published example", "Hello, my dog is cute",
			[]string{"hello", ",", "my", "dog", "is", "cute"}, []int32{7592, 1010, 2026, 3899, 2003, 10140}},
		{"subwords and case", "I have a new GPU!",
			[]string{"i", "have", "a", "new", "gp", "##u", "!"}, []int32{1045, 2031, 1037, 2047, 14246, 2226, 999}},
		{"greedy longest match", "unaffable", []string{"una", "##ffa", "##ble"}, []int32{14477, 20961, 3468}},
		{"apostrophe", "John Johanson's house",
			[]string{"john", "johan", "##son", "'", "s", "house"}, []int32{2198, 13093, 3385, 1005, 1055, 2160}},
		{"accents stripped", "Héllo Café, naïve résumé!",
			[]string{"hello", "cafe", ",", "naive", "resume", "!"}, []int32{7592, 7668, 1010, 15743, 13746, 999}},
		{"capital accents", "İstanbul ÅNGSTRÖM", []string{"istanbul", "ang", "##strom"}, []int32{9960, 17076, 15687}},
		// Ideographs are split one by one (首 is not in the vocabulary);
		// kana are not, and NFD strips で's dakuten.
		{"CJK and kana", "東京は日本の首都です",
			[]string{"東", "京", "は", "日", "本", "の", "[UNK]", "都", "て", "##す"},
			[]int32{1879, 1755, 1672, 1864, 1876, 1671, 100, 1961, 1665, 30184}},
		{"unknown words", "xyz😀 ☃ snowman", []string{"[UNK]", "[UNK]", "snow", "##man"}, []int32{100, 100, 4586, 2386}},
		{"whitespace and controls", "tab\there\u00a0nbsp\x01x\r\nend",
			[]string{"tab", "here", "n", "##bs", "##p", "##x", "end"}, []int32{21628, 2182, 1050, 5910, 2361, 2595, 2203}},
		{"punctuation", "3.14 -- [test] (ok)",
			[]string{"3", ".", "14", "-", "-", "[", "test", "]", "(", "ok", ")"},
			[]int32{1017, 1012, 2403, 1011, 1011, 1031, 3231, 1033, 1006, 7929, 1007}},
		{"contractions and ellipsis", "don't stop-believing...",
			[]string{"don", "'", "t", "stop", "-", "believing", ".", ".", "."},
			[]int32{2123, 1005, 1056, 2644, 1011, 8929, 1012, 1012, 1012}},
		{"other scripts", "Straße über Ελληνικά Москва",
			[]string{"st", "##raße", "uber", "ε", "##λ", "##λ", "##η", "##ν", "##ι", "##κ", "##α", "м", "##о", "##с", "##к", "##в", "##а"},
			[]int32{2358, 27807, 19169, 1159, 29727, 29727, 24824, 16177, 18199, 29726, 14608, 1191, 14150, 29747, 23925, 25529, 10260}},
		{"no NFKC", "ﬁne ① ＡＢＣ", []string{"ﬁ", "##ne", "[UNK]", "[UNK]"}, []int32{1984, 2638, 100, 100}},
		{"word over 100 characters", strings.Repeat("a", 101) + " end", []string{"[UNK]", "end"}, []int32{100, 2203}},
		{"special tokens kept", "[CLS] hello [SEP]", []string{"[CLS]", "hello", "[SEP]"}, []int32{101, 7592, 102}},
	}
	ws := new(Workspace)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Encode(ws, tt.text)
			if !reflect.DeepEqual(got, tt.ids) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.ids)
			}
			var names []string
			for _, id := range got {
				names = append(names, vocab[id])
			}
			if !reflect.DeepEqual(names, tt.tokens) {
				t.Errorf("tokens %q, want %q", names, tt.tokens)
			}
		})
	}
	sp, err := tok.Special()
	if err != nil || sp != (Special{CLS: 101, SEP: 102, PairSeps: 1, SecondTypeID: 1}) {
		t.Errorf("Special() = %+v, %v", sp, err)
	}
}
