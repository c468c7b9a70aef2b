package edit

import (
	"errors"
	"strings"
	"testing"
)

func TestSetTags(t *testing.T) {
	tests := []struct {
		name, src   string
		add, remove []string
		want        string
		err         error
	}{
		{"flow list", "---\ntags: [a, \"b c\", x/y]\nother: 1\n---\nbody #inline\n", []string{"new"}, []string{"A"},
			"---\ntags: [b c, x/y, new]\nother: 1\n---\nbody #inline\n", nil},
		{"block list keeps indent", "---\ntitle: T\ntags:\n    - alpha\n    - beta\n---\n", []string{"gamma"}, []string{"alpha"},
			"---\ntitle: T\ntags:\n    - beta\n    - gamma\n---\n", nil},
		{"comma string", "---\ntags: one, two\n---\n", []string{"three"}, nil, "---\ntags: one, two, three\n---\n", nil},
		{"space string", "---\ntags: one two\n---\n", nil, []string{"two"}, "---\ntags: one\n---\n", nil},
		{"quoted string stays quoted", "---\ntags: \"one, two\"\n---\n", []string{"x"}, nil, "---\ntags: \"one, two, x\"\n---\n", nil},
		{"no property: a block list", "---\ntitle: T\n---\nbody\n", []string{"a", "b/c"}, nil, "---\ntitle: T\ntags:\n  - a\n  - b/c\n---\nbody\n", nil},
		{"no frontmatter", "body\n", []string{"a"}, nil, "---\ntags:\n  - a\n---\nbody\n", nil},
		{"already there, nothing else", "---\ntags: [a]\n---\n", []string{"A"}, nil, "---\ntags: [a]\n---\n", nil},
		{"nested kept when parent removed", "---\ntags: [a, a/b]\n---\n", nil, []string{"a"}, "---\ntags: [a/b]\n---\n", nil},
		{"CRLF", "---\r\ntags:\r\n  - a\r\n---\r\nx\r\n", []string{"b"}, nil, "---\r\ntags:\r\n  - a\r\n  - b\r\n---\r\nx\r\n", nil},
		{"singular key", "---\ntag: a\n---\n", []string{"b"}, nil, "---\ntag: a b\n---\n", nil},
		{"a map is unsafe", "---\ntags:\n  x: 1\n---\n", []string{"b"}, nil, "", ErrUnsafeTags},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := SetTags([]byte(tt.src), tt.add, tt.remove)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || string(out) != tt.want {
				t.Fatalf("got %q (%v)\nwant %q", out, err, tt.want)
			}
		})
	}
}

func TestRenameTags(t *testing.T) {
	src := "---\ntags: [project, project/web, projects]\n---\n# Notes #project\n\nSee #Project/web and #projects, `#project` in code,\n[[Link#project]] and https://x.org/#project.\n\n```\n#project\n```\n"
	out, n, err := RenameTags([]byte(src), "project", "work")
	want := "---\ntags: [work, work/web, projects]\n---\n# Notes #work\n\nSee #work/web and #projects, `#project` in code,\n[[Link#project]] and https://x.org/#project.\n\n```\n#project\n```\n"
	if err != nil || string(out) != want || n != 4 {
		t.Fatalf("got %d %v\n%s\nwant\n%s", n, err, out, want)
	}
	// Merging onto a tag already in the list keeps one.
	out, _, err = RenameTags([]byte("---\ntags: [a, b]\n---\n"), "a", "b")
	if err != nil || string(out) != "---\ntags: [b]\n---\n" {
		t.Fatalf("merge: %q %v", out, err)
	}
}

func TestCleanTag(t *testing.T) {
	for in, want := range map[string]string{"#work": "work", " a/b/ ": "a/b", "Réunion": "Réunion"} {
		if got, err := CleanTag(in); err != nil || got != want {
			t.Errorf("CleanTag(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "two words", "123", "#", "a,b"} {
		if _, err := CleanTag(bad); err == nil {
			t.Errorf("CleanTag(%q) accepted", bad)
		}
	}
	if !strings.Contains(func() string { _, err := CleanTag("two words"); return err.Error() }(), "not a tag") {
		t.Error("message")
	}
}
