package textsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFoldCase(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC déjà ÉTÉ", "İstanbul K (Kelvin) ẞ", "中文 ÀÉÎ", "bad \xff byte"} {
		f := FoldCase(s)
		if len(f) != len(s) {
			t.Fatalf("FoldCase(%q) = %q changes the length", s, f)
		}
	}
	if got := FoldCase("ABC Déjà"); got != "abc déjà" {
		t.Fatalf("FoldCase = %q", got)
	}
	s := "already lower"
	if got := FoldCase(s); got != s {
		t.Fatal("unchanged text must come back as is")
	}
}

func TestLineWindow(t *testing.T) {
	if got := lineWindow("short line", 3); got != "short line" {
		t.Fatalf("short: %q", got)
	}
	long := strings.Repeat("é", 300) + "NEEDLE" + strings.Repeat("x", 300)
	got := lineWindow(long, strings.Index(long, "NEEDLE"))
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "NEEDLE") || !utf8.ValidString(got) {
		t.Fatalf("window %q", got)
	}
	if n := utf8.RuneCountInString(got); n > WindowRunes+2 {
		t.Fatalf("window of %d characters", n)
	}
	start := lineWindow(strings.Repeat("y", 500), 0)
	if strings.HasPrefix(start, "…") || !strings.HasSuffix(start, "…") {
		t.Fatalf("window at the start %q", start)
	}
}

func TestRegexLiterals(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		cs      bool
		want    []string
	}{
		{`CVE-\d{4}-\d+`, true, []string{"cve-"}},
		{`foo|BAR`, false, []string{"foo", "bar"}},
		{`a*bc`, true, []string{"bc"}},
		{`(abc)+def`, true, []string{"abc"}},
		{`x?y?z`, true, []string{"z"}},
		{`\d+`, true, nil},
		{`foo|\d`, true, nil},
		{`kelvin`, false, []string{"elvin"}}, // k also matches the Kelvin sign, which folds differently
		{`kelvin`, true, []string{"kelvin"}},
	} {
		m, err := newRegexMatcher(tt.pattern, tt.cs)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.(regexMatcher).literals; !slices.Equal(got, tt.want) {
			t.Errorf("literals(%q, case_sensitive=%v) = %q, want %q", tt.pattern, tt.cs, got, tt.want)
		}
	}
}
