package edit

import (
	"strings"
	"testing"
)

const patchNote = `---
tags: [a]
---
# Title

Intro.

## Plan

- first
- second ^item2

### Details

Some detail
spanning two lines ^para

## Log

## Plan B
`

func TestPatchHeading(t *testing.T) {
	tests := []struct {
		name, path, op, content string
		want                    string // the changed region, or the error
		wantErr                 bool
	}{
		{"insert before", "Plan", InsertBefore, "New top.", "## Plan\nNew top.\n\n- first", false},
		{"insert after includes subsections", "## Plan", InsertAfter, "Appended.", "spanning two lines ^para\nAppended.\n\n## Log", false},
		{"replace keeps the heading", "Title > Plan > Details", ReplaceContent, "Replaced.", "### Details\nReplaced.\n\n## Log", false},
		{"empty section", "Log", ReplaceContent, "Entry.", "## Log\nEntry.\n\n## Plan B", false},
		{"last section without trailing text", "Plan B", InsertAfter, "End.", "## Plan B\nEnd.\n", false},
		{"level checked", "### Plan", InsertBefore, "x", `no heading "### Plan"`, true},
		{"missing", "Nowhere", InsertBefore, "x", `no heading "Nowhere" in the note; headings: "Title", "Plan", "Details", "Log", "Plan B"`, true},
		{"bad op", "Plan", "prepend", "x", `operation must be`, true},
		{"empty step", "Plan > ", InsertBefore, "x", `empty step`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := PatchHeading([]byte(patchNote), tt.path, tt.op, tt.content)
			checkPatch(t, out, err, tt.want, tt.wantErr)
		})
	}
}

func TestPatchHeadingAmbiguous(t *testing.T) {
	src := "# A\n## Notes\nx\n# B\n## Notes\ny\n"
	if _, err := PatchHeading([]byte(src), "Notes", InsertAfter, "z"); err == nil || !strings.Contains(err.Error(), "matches 2 headings (lines 2, 5)") {
		t.Fatalf("err %v", err)
	}
	out, err := PatchHeading([]byte(src), "# B > Notes", InsertAfter, "z")
	if err != nil || string(out) != "# A\n## Notes\nx\n# B\n## Notes\ny\nz\n" {
		t.Fatalf("%q %v", out, err)
	}
}

func TestPatchBlock(t *testing.T) {
	tests := []struct {
		name, id, op, content, want string
		wantErr                     bool
	}{
		{"list item: after", "item2", InsertAfter, "- third", "- second ^item2\n- third\n", false},
		{"list item: replace keeps marker and id", "^item2", ReplaceContent, "changed", "- first\n- changed ^item2\n", false},
		{"paragraph: before its first line", "para", InsertBefore, "Lead-in.", "\nLead-in.\nSome detail\nspanning", false},
		{"paragraph: replace both lines", "para", ReplaceContent, "One line now.", "### Details\n\nOne line now. ^para\n\n## Log", false},
		{"missing", "nope", InsertAfter, "x", "no block ^nope", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := PatchBlock([]byte(patchNote), tt.id, tt.op, tt.content)
			checkPatch(t, out, err, tt.want, tt.wantErr)
		})
	}
}

func TestPatchKeepsCRLF(t *testing.T) {
	src := "# A\r\nx\r\n"
	out, err := PatchHeading([]byte(src), "A", InsertAfter, "y\nz")
	if err != nil || string(out) != "# A\r\nx\r\ny\r\nz\r\n" {
		t.Fatalf("%q %v", out, err)
	}
}

// checkPatch fails unless a patch gave an error holding want (wantErr)
// or a text holding want.
func checkPatch(t *testing.T, out []byte, err error, want string, wantErr bool) {
	t.Helper()
	switch {
	case wantErr && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("err %v, want %q", err, want)
	case !wantErr && err != nil:
		t.Fatal(err)
	case !wantErr && !strings.Contains(string(out), want):
		t.Fatalf("got\n%s\nwant it to contain\n%q", out, want)
	}
}
