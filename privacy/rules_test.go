package privacy

import (
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestExcluded(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		ignore string
		fold   bool
		hidden []string
		shown  []string
	}{
		{"nothing", Config{}, "", false, nil, []string{"a.md", "Private/x.md", ".enquire/ignore"}},
		{"exclude folder", Config{Exclude: []string{"Private/**"}}, "", false,
			[]string{"Private/x.md", "Private/deep/y.pdf"}, []string{"a.md", "Public/Private/x.md", "private/x.md"}},
		{"exclude anywhere", Config{Exclude: []string{"**/*.secret.md", "/Journal/**"}}, "", false,
			[]string{"a.secret.md", "x/y/z.secret.md", "Journal/2026.md"}, []string{"a.md", "x/Journal/2026.md"}},
		{"braces in flags", Config{Exclude: []string{"{Health,Clients}/**"}}, "", false,
			[]string{"Health/a.md", "Clients/b.md"}, []string{"Other/a.md"}},
		{"allow list", Config{Allow: []string{"Projects/**", "*.md"}}, "", false,
			[]string{"Journal/a.md", "x.pdf"}, []string{"Projects/a.md", "Projects/img.png", "Home.md"}},
		{"allow and exclude", Config{Allow: []string{"Projects/**"}, Exclude: []string{"Projects/Clients/**"}}, "", false,
			[]string{"Projects/Clients/a.md", "Home.md"}, []string{"Projects/a.md"}},
		{"case folded", Config{Exclude: []string{"private/**"}}, "JOURNAL/\n", true,
			[]string{"Private/x.md", "PRIVATE/y.md", "journal/a.md"}, []string{"Public/x.md"}},
		{"case kept", Config{Exclude: []string{"private/**"}}, "", false,
			[]string{"private/x.md"}, []string{"Private/x.md"}},
		{"ignore basics", Config{}, "# comment\n\nJournal/\n*.log\n/Top.md\ndocs/*.tmp\n", false,
			[]string{"Journal/a.md", "x/Journal/b.md", "a.log", "x/y.log", "Top.md", "docs/a.tmp"},
			[]string{"Journal.md", "x/Top.md", "docs/x/a.tmp", "comment"}},
		{"ignore negation", Config{}, "*.md\n!Keep.md\n", false,
			[]string{"a.md", "x/b.md"}, []string{"Keep.md", "x/Keep.md", "a.pdf"}},
		{"parent excluded cannot be re-included", Config{}, "Secret/\n!Secret/ok.md\n", false,
			[]string{"Secret/ok.md", "Secret/no.md"}, []string{"ok.md"}},
		{"negated folder content", Config{}, "Secret/*\n!Secret/ok.md\n", false,
			[]string{"Secret/no.md"}, []string{"Secret/ok.md"}},
		{"ignore double star", Config{}, "**/tmp/**\na/**/z.md\n", false,
			[]string{"tmp/x.md", "q/tmp/y.md", "a/z.md", "a/b/c/z.md"}, []string{"tmpx/y.md", "b/z.md"}},
		{"ignore escapes and braces are literal", Config{}, "\\#hash.md\n\\!bang.md\n{a,b}.md\ntrail\\ \n", false,
			[]string{"#hash.md", "!bang.md", "{a,b}.md", "trail "}, []string{"a.md", "b.md", "trail"}},
		{"trailing spaces dropped", Config{}, "x.md   \n", false, []string{"x.md"}, nil},
		{"CRLF ignore file", Config{}, "Journal/\r\n*.log\r\n", false, []string{"Journal/a.md", "b.log"}, []string{"a.md"}},
		{"leading slash in a glob", Config{Exclude: []string{"/Private/**"}}, "", false, []string{"Private/a.md"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ig []byte
			if tt.ignore != "" {
				ig = []byte(tt.ignore)
			}
			r, err := Compile(tt.cfg, ig, tt.fold)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.hidden {
				if !r.Excluded(p) {
					t.Errorf("%s shown, want hidden", p)
				}
			}
			for _, p := range tt.shown {
				if r.Excluded(p) {
					t.Errorf("%s hidden, want shown", p)
				}
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		ignore string
		want   []string // substrings of the error
	}{
		{"bad exclude glob", Config{Exclude: []string{"ok/**", "bad/[x"}}, "", []string{"--exclude-glob #2", `"bad/[x"`}},
		{"bad allow glob", Config{Allow: []string{"{a,b"}}, "", []string{"--read-paths #1", `"{a,b"`}},
		{"empty glob", Config{Exclude: []string{"  "}}, "", []string{"--exclude-glob #1", "empty"}},
		{"bad ignore line", Config{}, "ok\n# fine\nbad[\n", []string{IgnoreFile + " line 3", `"bad["`}},
		{"trailing backslash", Config{}, "a\\", []string{IgnoreFile + " line 1", "trailing backslash"}},
		{"only a bang", Config{}, "x\n!\n", []string{IgnoreFile + " line 2", "empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ig []byte
			if tt.ignore != "" {
				ig = []byte(tt.ignore)
			}
			_, err := Compile(tt.cfg, ig, false)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestPrivateMarker(t *testing.T) {
	tests := []struct {
		name string
		key  string
		fm   map[string]any
		want bool
	}{
		{"true", "private", map[string]any{"private": true}, true},
		{"string true", "private", map[string]any{"private": "True"}, true},
		{"yes", "private", map[string]any{"private": "yes"}, true},
		{"key case", "private", map[string]any{"Private": true}, true},
		{"false", "private", map[string]any{"private": false}, false},
		{"other string", "private", map[string]any{"private": "maybe"}, false},
		{"absent", "private", map[string]any{"title": "x"}, false},
		{"no frontmatter", "private", nil, false},
		{"custom key", "secret", map[string]any{"secret": true, "private": false}, true},
		{"custom key ignores default", "secret", map[string]any{"private": true}, false},
		{"marker off", "", map[string]any{"private": true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compile(Config{MarkerKey: tt.key}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Private(&vault.Note{Frontmatter: tt.fm}); got != tt.want {
				t.Errorf("Private = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHash(t *testing.T) {
	compile := func(cfg Config, ig string, fold bool) string {
		t.Helper()
		var raw []byte
		if ig != "" {
			raw = []byte(ig)
		}
		r, err := Compile(cfg, raw, fold)
		if err != nil {
			t.Fatal(err)
		}
		return r.Hash()
	}
	base := compile(Config{Exclude: []string{"a/**"}, MarkerKey: "private"}, "x/\n", false)
	if base != compile(Config{Exclude: []string{"a/**"}, MarkerKey: "private"}, "# a comment\nx/\n\n", false) {
		t.Error("hash changed with comments and blank lines only")
	}
	for name, other := range map[string]string{
		"glob":   compile(Config{Exclude: []string{"b/**"}, MarkerKey: "private"}, "x/\n", false),
		"allow":  compile(Config{Exclude: []string{"a/**"}, Allow: []string{"**"}, MarkerKey: "private"}, "x/\n", false),
		"marker": compile(Config{Exclude: []string{"a/**"}, MarkerKey: "secret"}, "x/\n", false),
		"ignore": compile(Config{Exclude: []string{"a/**"}, MarkerKey: "private"}, "!x/\n", false),
		"fold":   compile(Config{Exclude: []string{"a/**"}, MarkerKey: "private"}, "x/\n", true),
	} {
		if other == base {
			t.Errorf("hash unchanged when the %s changes", name)
		}
	}
	var nilRules *Rules
	if nilRules.Excluded("a") || nilRules.Private(&vault.Note{}) || nilRules.Hash() != "" || nilRules.Active() {
		t.Error("nil rules hide something")
	}
}
