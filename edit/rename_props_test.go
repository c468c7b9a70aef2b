package edit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// propsVault is a vault whose notes link to People/Steph Ango.md from
// their properties in every YAML form.
var propsVault = map[string]string{
	"People/Steph Ango.md": "# Steph\n\n## Bio\n",
	"People/Other.md":      "# Other\n",
	"Forms.md": "---\n" +
		"author: \"[[Steph Ango]]\"\n" +
		"people: [\"[[Steph Ango]]\", \"[[Other]]\"]\n" +
		"list:\n" +
		"  - \"[[Steph Ango|Steph]]\"\n" +
		"  - \"[[Steph Ango#Bio]]\"\n" +
		"plain: see [[Steph Ango]] and [[Other]]\n" +
		"# a comment: [[Steph Ango]]\n" +
		"nested: [[Steph Ango]]\n" +
		"---\n" +
		"Body [[Steph Ango]]\n",
	"Single.md": "---\r\nup: '[[Steph Ango]]'\r\n---\r\nBody [[Steph Ango]]\r\n",
	// The link is written with a YAML escape: it cannot be located as
	// written, so the note must be left alone, body link included.
	"Escaped.md": "---\nauthor: \"[[Steph\\x20Ango]]\"\n---\nBody [[Steph Ango]]\n",
}

func loadProps(t *testing.T) (string, *vault.Snapshot) {
	t.Helper()
	root := t.TempDir()
	for rel, text := range propsVault {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return root, snap
}

func TestRenamePropertyLinks(t *testing.T) {
	tests := []struct {
		name, to string
		// want maps a note to its text after the rename; a note not
		// listed keeps its text.
		want map[string]string
		// warn lists the notes a warning must name.
		warn []string
	}{
		{
			name: "every YAML form is kept",
			to:   "People/Stephan Ango.md",
			want: map[string]string{
				"Forms.md": "---\n" +
					"author: \"[[Stephan Ango]]\"\n" +
					"people: [\"[[Stephan Ango]]\", \"[[Other]]\"]\n" +
					"list:\n" +
					"  - \"[[Stephan Ango|Steph]]\"\n" +
					"  - \"[[Stephan Ango#Bio]]\"\n" +
					"plain: see [[Stephan Ango]] and [[Other]]\n" +
					"# a comment: [[Steph Ango]]\n" +
					"nested: [[Steph Ango]]\n" +
					"---\n" +
					"Body [[Stephan Ango]]\n",
				"Single.md": "---\r\nup: '[[Stephan Ango]]'\r\n---\r\nBody [[Stephan Ango]]\r\n",
			},
			warn: []string{"Escaped.md"},
		},
		{
			// In a single-quoted string the new name's apostrophe would
			// end the string: that note stays as it is; the double-quoted
			// and plain forms take it.
			name: "a name that would break the YAML",
			to:   "People/Steph's notes.md",
			want: map[string]string{
				"Forms.md": "---\n" +
					"author: \"[[Steph's notes]]\"\n" +
					"people: [\"[[Steph's notes]]\", \"[[Other]]\"]\n" +
					"list:\n" +
					"  - \"[[Steph's notes|Steph]]\"\n" +
					"  - \"[[Steph's notes#Bio]]\"\n" +
					"plain: see [[Steph's notes]] and [[Other]]\n" +
					"# a comment: [[Steph Ango]]\n" +
					"nested: [[Steph Ango]]\n" +
					"---\n" +
					"Body [[Steph's notes]]\n",
			},
			warn: []string{"Escaped.md", "Single.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, snap := loadProps(t)
			plan, err := PlanRename(snap, "People/Steph Ango.md", tt.to, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Warnings) != len(tt.warn) {
				t.Fatalf("warnings = %q, want one for each of %q", plan.Warnings, tt.warn)
			}
			for i, w := range tt.warn {
				if !strings.HasPrefix(plan.Warnings[i], w+": ") || !strings.Contains(plan.Warnings[i], "left as it is") {
					t.Errorf("warning %q does not leave %s as it is", plan.Warnings[i], w)
				}
			}
			before := snapshotFiles(t, root)
			if _, err := plan.Apply(); err != nil {
				t.Fatal(err)
			}
			after := snapshotFiles(t, root)
			for rel, text := range before {
				if rel == "People/Steph Ango.md" {
					continue
				}
				want, ok := tt.want[rel]
				if !ok {
					want = text
				}
				if after[rel] != want {
					t.Errorf("%s =\n%s\nwant\n%s", rel, after[rel], want)
				}
			}
			// Every rewritten property link resolves to the renamed note.
			snap2, err := vault.Load(context.Background(), root, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for rel := range tt.want {
				n := snap2.Note(rel)
				props := 0
				for _, l := range n.Links {
					if l.Property == "" || l.Target == "Other" {
						continue
					}
					props++
					if l.Kind != vault.LinkNote || l.Resolved != tt.to {
						t.Errorf("%s: property %s link %s resolves to %q", rel, l.Property, l.Raw, l.Resolved)
					}
				}
				if props == 0 {
					t.Errorf("%s: no property links after the rename", rel)
				}
			}
		})
	}
}
