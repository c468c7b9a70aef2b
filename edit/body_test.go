package edit

import "testing"

func TestReplaceBody(t *testing.T) {
	for _, tt := range []struct{ name, src, body, want string }{
		{"frontmatter kept", "---\nkey: a\n---\nold fact\nmore\n", "new fact\n", "---\nkey: a\n---\nnew fact\n"},
		{"no frontmatter", "old\n", "new\n", "new\n"},
		{"closing line without newline", "---\nkey: a\n---", "new\n", "---\nkey: a\n---\nnew\n"},
		{"crlf note", "---\r\nkey: a\r\n---\r\nold\r\n", "new\nline\n", "---\r\nkey: a\r\n---\r\nnew\r\nline\r\n"},
		{"bom kept", "\ufeff---\nk: v\n---\nold\n", "new\n", "\ufeff---\nk: v\n---\nnew\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplaceBody([]byte(tt.src), tt.body)
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReplaceBody = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := ReplaceBody([]byte("---\nkey: a\nnever closed\n"), "x"); err == nil {
		t.Fatal("unclosed frontmatter: no error")
	}
}
