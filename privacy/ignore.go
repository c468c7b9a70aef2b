package privacy

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRules are the lines of a gitignore-style file, in order.
type ignoreRules struct {
	lines []ignoreLine
}

// ignoreLine is one pattern line of the ignore file.
type ignoreLine struct {
	pattern  string // doublestar syntax, braces escaped
	negate   bool   // "!": re-include
	dirOnly  bool   // trailing "/": matches folders only
	anchored bool   // a "/" at the start or in the middle: relative to the root
}

// parseIgnore parses gitignore syntax: "#" comments, blank lines, "!"
// negation, "\" escapes, trailing "/" for folders, a leading or inner "/"
// anchoring to the vault root, "*", "?", "[...]" and "**". An invalid line
// is an error naming its number.
func parseIgnore(raw []byte, fold bool) (*ignoreRules, error) {
	ig := &ignoreRules{}
	for i, line := range strings.Split(string(raw), "\n") {
		l, ok, err := parseIgnoreLine(strings.TrimSuffix(line, "\r"), fold)
		if err != nil {
			return nil, fmt.Errorf("%s line %d %q: %w", IgnoreFile, i+1, line, err)
		}
		if ok {
			ig.lines = append(ig.lines, l)
		}
	}
	return ig, nil
}

func parseIgnoreLine(line string, fold bool) (ignoreLine, bool, error) {
	var l ignoreLine
	if strings.HasPrefix(line, "#") {
		return l, false, nil
	}
	line = trimTrailingSpace(line)
	if line == "" {
		return l, false, nil
	}
	if strings.HasPrefix(line, "!") {
		l.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		l.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.HasPrefix(line, "/") {
		l.anchored = true
		line = strings.TrimLeft(line, "/")
	} else if strings.Contains(line, "/") {
		l.anchored = true
	}
	if line == "" {
		return l, false, fmt.Errorf("pattern is empty")
	}
	p, err := toDoublestar(line)
	if err != nil {
		return l, false, err
	}
	if fold {
		p = strings.ToLower(p)
	}
	l.pattern = p
	return l, true, nil
}

// trimTrailingSpace drops trailing spaces unless escaped ("\ "), as git
// does.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// toDoublestar escapes what doublestar reads but gitignore does not
// (braces), keeps "\" escapes, and validates the result.
func toDoublestar(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return "", fmt.Errorf("trailing backslash")
			}
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
		case '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	p := b.String()
	if !doublestar.ValidatePattern(p) {
		return "", fmt.Errorf(`invalid pattern: a "[" is not closed (write "\[" for a literal one)`)
	}
	return p, nil
}

// ignored reports whether rel (folded when the rules fold) is ignored:
// as in git, a file inside an ignored folder stays ignored whatever a
// later "!" line says; otherwise the last matching line decides.
func (ig *ignoreRules) ignored(rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ig.decide(rel[:i], true) {
			return true
		}
	}
	return ig.decide(rel, false)
}

// decide applies the lines to one path, last match winning.
func (ig *ignoreRules) decide(p string, isDir bool) bool {
	ignored := false
	base := path.Base(p)
	for _, l := range ig.lines {
		if l.negate != ignored {
			continue // this line cannot change the outcome
		}
		if l.dirOnly && !isDir {
			continue
		}
		target := base
		if l.anchored {
			target = p
		}
		if doublestar.MatchUnvalidated(l.pattern, target) {
			ignored = !l.negate
		}
	}
	return ignored
}
