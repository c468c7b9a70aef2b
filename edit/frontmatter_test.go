package edit

import (
	"strings"
	"testing"
)

func TestSetFrontmatter(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		set     map[string]any
		want    string
		changed string
	}{
		{
			name:    "replace one key, keep comments and order",
			src:     "---\n# a comment\ntitle: Old   # trailing comment\nstatus: draft\ntags:\n  - a\n  - b\n---\nbody [[x]]\n",
			set:     map[string]any{"status": "done"},
			want:    "---\n# a comment\ntitle: Old   # trailing comment\nstatus: done\ntags:\n  - a\n  - b\n---\nbody [[x]]\n",
			changed: "status",
		},
		{
			name:    "replace a multi-line list",
			src:     "---\ntags:\n- a\n- b\n\nstatus: x\n---\n",
			set:     map[string]any{"tags": []any{"c"}},
			want:    "---\ntags:\n  - c\n\nstatus: x\n---\n",
			changed: "tags",
		},
		{
			name:    "delete a key with a block scalar",
			src:     "---\na: 1\ntext: |\n  line one\n\n  line two\nb: 2\n---\nbody\n",
			set:     map[string]any{"text": nil},
			want:    "---\na: 1\nb: 2\n---\nbody\n",
			changed: "text",
		},
		{
			name:    "new keys go before the closing line, sorted",
			src:     "---\nz: 1\n---\n\nbody\n",
			set:     map[string]any{"rating": 5.0, "aliases": []any{"One", "Two"}},
			want:    "---\nz: 1\naliases:\n  - One\n  - Two\nrating: 5\n---\n\nbody\n",
			changed: "aliases,rating",
		},
		{
			name:    "a note without frontmatter gets a block",
			src:     "# Title\n\ntext\n",
			set:     map[string]any{"status": "new", "gone": nil},
			want:    "---\nstatus: new\n---\n# Title\n\ntext\n",
			changed: "status",
		},
		{
			name:    "an equal value is not a change",
			src:     "---\nrating: 5\ntags: [a, b]\n---\n",
			set:     map[string]any{"rating": 5.0, "tags": []any{"a", "b"}, "missing": nil},
			want:    "---\nrating: 5\ntags: [a, b]\n---\n",
			changed: "",
		},
		{
			name:    "CRLF stays CRLF",
			src:     "---\r\ntags: crlf-test\r\n---\r\n# CRLF heading\r\n",
			set:     map[string]any{"tags": "x", "new": true},
			want:    "---\r\ntags: x\r\nnew: true\r\n---\r\n# CRLF heading\r\n",
			changed: "new,tags",
		},
		{
			name:    "BOM kept",
			src:     "\uFEFF---\na: 1\n---\n",
			set:     map[string]any{"a": 2.0},
			want:    "\uFEFF---\na: 2\n---\n",
			changed: "a",
		},
		{
			name:    "quoted keys and strings that need quotes",
			src:     "---\n\"my key\": 1\n'other': 2\n---\n",
			set:     map[string]any{"my key": "yes", "other": "a: b", "date": "2026-01-15"},
			want:    "---\nmy key: \"yes\"\nother: \"a: b\"\ndate: \"2026-01-15\"\n---\n",
			changed: "date,my key,other",
		},
		{
			name:    "nested object",
			src:     "---\na: 1\n---\n",
			set:     map[string]any{"meta": map[string]any{"k": "v", "n": []any{1.0, 2.5}}},
			want:    "---\na: 1\nmeta:\n  k: v\n  \"n\":\n    - 1\n    - 2.5\n---\n",
			changed: "meta",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe, err := SetFrontmatter("n.md", []byte(tt.src), tt.set)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(fe.Changed, ","); got != tt.changed {
				t.Errorf("changed = %q, want %q", got, tt.changed)
			}
			if string(fe.Text) != tt.want {
				t.Errorf("text:\n%q\nwant:\n%q", fe.Text, tt.want)
			}
			if tt.changed == "" && (fe.Diff != "" || string(fe.Text) != tt.src) {
				t.Errorf("no change expected, diff %q", fe.Diff)
			}
			if tt.changed != "" && !strings.HasPrefix(fe.Diff, "--- a/n.md\n+++ b/n.md\n@@ ") {
				t.Errorf("diff = %q", fe.Diff)
			}
		})
	}
}

func TestSetFrontmatterBeforeAfter(t *testing.T) {
	fe, err := SetFrontmatter("n.md", []byte("---\nstatus: draft\nrating: 4\n---\nx\n"), map[string]any{"status": "done", "rating": nil})
	if err != nil {
		t.Fatal(err)
	}
	if fe.Before["status"] != "draft" || fe.After["status"] != "done" || fe.After["rating"] != nil || len(fe.After) != 1 {
		t.Fatalf("before %v after %v", fe.Before, fe.After)
	}
	want := "--- a/n.md\n+++ b/n.md\n@@ -1,4 +1,3 @@\n ---\n-status: draft\n-rating: 4\n+status: done\n ---\n"
	if fe.Diff != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", fe.Diff, want)
	}
}

func TestSetFrontmatterRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		set       map[string]any
		want      string
	}{
		{"malformed YAML", "---\ntitle: [unclosed\ntags: x\n---\nbody\n", map[string]any{"a": 1.0}, "malformed frontmatter"},
		{"never closed", "---\na: 1\nbody\n", map[string]any{"a": 2.0}, "never closed"},
		{"anchors", "---\nbase: &b\n  x: 1\nother:\n  <<: *b\n---\n", map[string]any{"base": 2.0}, ""},
		{"flow mapping document", "---\n{a: 1, b: 2}\n---\n", map[string]any{"a": 2.0}, "not a simple"},
		{"empty set", "---\na: 1\n---\n", map[string]any{}, "set is empty"},
		{"blank key", "---\na: 1\n---\n", map[string]any{" ": 1.0}, "keys must be"},
		{"key with newline", "---\na: 1\n---\n", map[string]any{"a\nb": 1.0}, "keys must be"},
		{"value too big", "---\na: 1\n---\n", map[string]any{"a": strings.Repeat("x", MaxValueBytes)}, "over the"},
		{"duplicate keys", "---\na: 1\na: 2\n---\n", map[string]any{"a": 3.0}, "malformed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe, err := SetFrontmatter("n.md", []byte(tt.src), tt.set)
			if tt.want == "" { // allowed either way, but a success must round-trip
				if err == nil && fe.After["base"] != 2 && fe.After["base"] != int64(2) && fe.After["base"] != uint64(2) {
					t.Fatalf("after = %v", fe.After)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewFrontmatter(t *testing.T) {
	got, err := NewFrontmatter(map[string]any{"title": "T", "tags": []any{"a"}, "empty": nil, "n": 3.0}, "\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nempty: null\n\"n\": 3\ntags:\n  - a\ntitle: T\n---\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s, _ := NewFrontmatter(nil, "\n"); s != "" {
		t.Fatalf("empty map gave %q", s)
	}
	if !HasFrontmatter("---\na: 1\n---\n") || HasFrontmatter("# x\n") || HasFrontmatter("---\nunclosed\n") {
		t.Fatal("HasFrontmatter")
	}
}
