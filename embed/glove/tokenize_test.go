package glove

import (
	"reflect"
	"strings"
	"testing"
)

var vocab = []string{
	"hello", "world", "do", "not", "can", "will", "shall", "king", "they",
	"e-mail", "state-of-the-art", "cafe", "fish", "naive", "neill", "search",
	"quality", "mid-1990s", "h1n1", "rock", "n", "roll", "is", "it",
}

func tokens(t *testing.T, tok *Tokenizer, words []string, text string) []string {
	t.Helper()
	var got []string
	tok.Tokenize(text, func(r int) { got = append(got, words[r]) })
	return got
}

func TestTokenize(t *testing.T) {
	tok, err := NewTokenizer(vocab)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"HELLO\tworld\n", []string{"hello", "world"}},
		{"unknown words vanish", nil},
		{"don't", []string{"do", "not"}},
		{"can't won't shan't", []string{"can", "not", "will", "not", "shall", "not"}},
		{"ain't it", []string{"is", "not", "it"}},
		{"they're the king's", []string{"they", "king"}},
		{"They’re", []string{"they"}},
		{"O'Neill", []string{"neill"}},
		{"'king' -king- king--world", []string{"king", "king", "king", "world"}},
		{"E-Mail state-of-the-art", []string{"e-mail", "state-of-the-art"}},
		{"search-quality", []string{"search", "quality"}},
		{"rock-n-roll", []string{"rock", "n", "roll"}},
		{"the mid-1990s H1N1", []string{"mid-1990s", "h1n1"}},
		{"Café naïve", []string{"cafe", "naive"}},
		{"cafe\u0301", []string{"cafe"}},
		{"ＫＩＮＧ ﬁsh", []string{"king", "fish"}},
		{"king\u2010world", []string{"king", "world"}},
		{"smørrebrød king", []string{"king"}},
		{"日本語 king", []string{"king"}},
		{"snake_case hello.world", []string{"hello", "world"}},
		{strings.Repeat("k", 65) + " king " + strings.Repeat("é", 40), []string{"king"}},
		{"hello-" + strings.Repeat("x", 70), nil},
	}
	for _, c := range cases {
		if got := tokens(t, tok, vocab, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestNewTokenizerRejects(t *testing.T) {
	for _, words := range [][]string{{"ok", ""}, {strings.Repeat("x", maxWordBytes+1)}} {
		if _, err := NewTokenizer(words); err == nil {
			t.Errorf("NewTokenizer(%q) accepted", words)
		}
	}
	tok, err := NewTokenizer([]string{"dup", "dup", "x"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	tok.Tokenize("dup", func(r int) { got = append(got, r) })
	if !reflect.DeepEqual(got, []int{0}) {
		t.Errorf("duplicate word maps to rows %v, want [0]", got)
	}
	if _, ok := tok.rows["not"]; ok || tok.not != -1 {
		t.Error("vocabulary without \"not\"")
	}
	tok.Tokenize("don't", func(int) { t.Error("emitted a row for don't without do/not") })
}

func TestTokenizeAllocations(t *testing.T) {
	tok, err := NewTokenizer(vocab)
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello, World! Don't search-quality café ＫＩＮＧ they're " + strings.Repeat("x", 80)
	if n := testing.AllocsPerRun(100, func() { tok.Tokenize("Hello don't café they're search-quality", func(int) {}) }); n != 0 {
		t.Errorf("%v allocations per Tokenize of NFKC-normal text", n)
	}
	// Normalising a text allocates, but per text, not per token.
	long := strings.Repeat(text, 20)
	short, many := testing.AllocsPerRun(100, func() { tok.Tokenize(text, func(int) {}) }),
		testing.AllocsPerRun(100, func() { tok.Tokenize(long, func(int) {}) })
	if many > short || short > 4 {
		t.Errorf("Tokenize of text needing NFKC: %v allocations, %v for 20 times the text", short, many)
	}
}
