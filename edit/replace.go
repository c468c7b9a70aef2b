package edit

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// MaxPatternBytes bounds a find pattern. Go's RE2 runs in time linear in
// the text, so no pattern can backtrack catastrophically; the cap bounds
// the compiled program.
const MaxPatternBytes = 1000

// TextReplace is one find-and-replace over a whole note.
type TextReplace struct {
	// Find is literal text, or an RE2 pattern when Regex is set (^ and $
	// match at line ends).
	Find string
	// With replaces each match; with Regex, $1 and ${name} expand.
	With          string
	Regex         bool
	CaseSensitive bool
}

// ReplaceText applies r to src and returns the new text and the number of
// replacements. A pattern that is invalid, too long or matches the empty
// string is an error, and so is a result whose frontmatter no longer
// parses (the note is left as it is).
func ReplaceText(src []byte, r TextReplace) ([]byte, int, error) {
	re, err := r.compile()
	if err != nil {
		return nil, 0, err
	}
	text := string(src)
	n := len(re.FindAllStringIndex(text, -1))
	if n == 0 {
		return src, 0, nil
	}
	var out string
	if r.Regex {
		out = re.ReplaceAllString(text, r.With)
	} else {
		out = re.ReplaceAllLiteralString(text, r.With)
	}
	if err := sameFrontmatterHealth(src, []byte(out)); err != nil {
		return nil, 0, err
	}
	return []byte(out), n, nil
}

func (r TextReplace) compile() (*regexp.Regexp, error) {
	find := norm.NFC.String(r.Find)
	switch {
	case find == "":
		return nil, errors.New("find is empty")
	case len(find) > MaxPatternBytes:
		return nil, fmt.Errorf("find is longer than %d bytes", MaxPatternBytes)
	}
	pattern := find
	if !r.Regex {
		pattern = regexp.QuoteMeta(find)
	}
	flags := "(?m)"
	if !r.CaseSensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regex: %w", err)
	}
	if re.MatchString("") {
		return nil, errors.New("find matches the empty string; it would match everywhere")
	}
	return re, nil
}

// sameFrontmatterHealth refuses an edit that turns readable frontmatter
// into YAML that does not parse.
func sameFrontmatterHealth(before, after []byte) error {
	_, wb := vault.Parse("note.md", before)
	_, wa := vault.Parse("note.md", after)
	if len(wa) > len(wb) {
		return fmt.Errorf("the change would break the note's frontmatter (%s); nothing was written", wa[len(wa)-1].Message)
	}
	return nil
}

// DiffText is a unified diff of two versions of a note (3 lines of
// context), "" when they are equal.
func DiffText(name string, before, after []byte) string {
	return Diff(name, strings.SplitAfter(string(before), "\n"), strings.SplitAfter(string(after), "\n"), 3)
}
