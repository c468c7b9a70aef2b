package vault

import "testing"

func TestCleanRelPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"Notes/a.md", "Notes/a.md", true},
		{" ./Notes//b.md ", "Notes/b.md", true},
		{`Notes\c.md`, "Notes/c.md", true},
		{"a/./b/../c.md", "", false},
		{"../x.md", "", false},
		{"a/../../x.md", "", false},
		{"/etc/passwd", "", false},
		{"", "", false},
		{".", "", false},
		{"a\x00b.md", "", false},
		{".obsidian/x.md", "", false},
		{"a/.trash/x.md", "", false},
		{"node_modules/x.md", "", false},
		{".hidden.md", "", false},
		// What Windows clients send, refused or accepted alike on every OS.
		{`C:\Users\me\Vault\a.md`, "", false},
		{"c:a.md", "", false},
		{`\\server\share\a.md`, "", false},
		{`Notes\Sub\d.md`, "Notes/Sub/d.md", true},
		{`Notes\..\..\x.md`, "", false},
	} {
		got, ok := CleanRelPath(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("CleanRelPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
