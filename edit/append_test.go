package edit

import (
	"strings"
	"testing"
)

func TestAppend(t *testing.T) {
	for _, tt := range []struct {
		name, src, content, sep, want string
	}{
		{"ends with a newline", "text\n", "new", "\n\n", "text\n\nnew\n"},
		{"ends with a blank line", "text\n\n", "new\n", "\n\n", "text\n\nnew\n"},
		{"no final newline", "text", "new", "\n\n", "text\n\nnew\n"},
		{"empty note", "", "new", "\n\n", "new\n"},
		{"custom separator", "text\n", "new", "\n---\n", "text\n---\nnew\n"},
		{"no separator", "a ", "b", "", "a b\n"},
		{"CRLF note", "a\r\nb\r\n", "one\ntwo", "\n\n", "a\r\nb\r\n\r\none\r\ntwo\r\n"},
		{"LF note, CRLF content", "a\n", "one\r\ntwo\r\n", "\n\n", "a\n\none\ntwo\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Append([]byte(tt.src), tt.content, tt.sep)
			if string(got) != tt.want || n != len(tt.want)-len(tt.src) {
				t.Fatalf("got %q (%d bytes added), want %q", got, n, tt.want)
			}
		})
	}
}

func TestAppendToSection(t *testing.T) {
	src := "---\ntitle: x\n---\n# Top\nintro\n\n## A\na text\n\n### A.1\nsub\n\n## B\n```\n## Not a heading\n```\n\n## Last\nend"
	for _, tt := range []struct {
		name, heading, want string
	}{
		{"section with a subsection", "## A", "---\ntitle: x\n---\n# Top\nintro\n\n## A\na text\n\n### A.1\nsub\n\nNEW\n\n## B\n```\n## Not a heading\n```\n\n## Last\nend"},
		{"case-insensitive, hashes optional", "a.1", "---\ntitle: x\n---\n# Top\nintro\n\n## A\na text\n\n### A.1\nsub\n\nNEW\n\n## B\n```\n## Not a heading\n```\n\n## Last\nend"},
		{"code stays inside its section", "B", "---\ntitle: x\n---\n# Top\nintro\n\n## A\na text\n\n### A.1\nsub\n\n## B\n```\n## Not a heading\n```\n\nNEW\n\n## Last\nend"},
		{"last section without a final newline", "Last", "---\ntitle: x\n---\n# Top\nintro\n\n## A\na text\n\n### A.1\nsub\n\n## B\n```\n## Not a heading\n```\n\n## Last\nend\n\nNEW\n"},
		{"top section spans the note", "Top", src + "\n\nNEW\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := AppendToSection([]byte(src), tt.heading, "NEW", DefaultSeparator)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || n != len(got)-len(src) {
				t.Fatalf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
	// "# H" owns "## Next" (a lower level), so the text goes at the end.
	if got, _, _ := AppendToSection([]byte("# H\n## Next\n"), "H", "x", DefaultSeparator); string(got) != "# H\n## Next\n\nx\n" {
		t.Fatalf("got %q", got)
	}
	if got, _, _ := AppendToSection([]byte("## H\n## Next\n"), "H", "x", DefaultSeparator); string(got) != "## H\n\nx\n## Next\n" {
		t.Fatalf("empty section: got %q", got)
	}
	for _, bad := range []struct{ heading, want string }{
		{"Not a heading", "no heading"},
		{"", "heading is empty"},
	} {
		if _, _, err := AppendToSection([]byte(src), bad.heading, "x", "\n"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("heading %q: err = %v", bad.heading, err)
		}
	}
	dup := "## Log\na\n## Log\nb\n"
	if _, _, err := AppendToSection([]byte(dup), "Log", "x", "\n"); err == nil || !strings.Contains(err.Error(), "lines 1, 3") {
		t.Errorf("duplicate heading: err = %v", err)
	}
}

func TestDiff(t *testing.T) {
	a := []string{"1\n", "2\n", "3\n", "4\n", "5\n", "6\n", "7\n", "8\n"}
	b := []string{"1\n", "2\n", "three\n", "4\n", "5\n", "6\n", "7\n", "8\n", "9\n"}
	want := "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -8,1 +8,2 @@\n 8\n+9\n"
	if got := Diff("f", a, b, 1); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff("f", nil, []string{"x\n"}, 1); got != "--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Fatalf("insertion into nothing: %q", got)
	}
	if Diff("f", a, a, 3) != "" {
		t.Fatal("equal inputs must give no diff")
	}
}
