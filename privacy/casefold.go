package privacy

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// CaseInsensitive reports whether the file system holding the real
// directory root compares names case-insensitively (macOS and Windows by
// default), by looking the nearest folder whose name has a letter up in
// the other case. When no such folder exists it answers false: matching
// case-sensitively there hides no less than the user wrote.
func CaseInsensitive(root string) bool {
	for dir := filepath.Clean(root); ; dir = filepath.Dir(dir) {
		name := filepath.Base(dir)
		if flipped := flipCase(name); flipped != name {
			a, errA := os.Stat(dir)
			b, errB := os.Stat(filepath.Join(filepath.Dir(dir), flipped))
			return errA == nil && errB == nil && os.SameFile(a, b)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return false
		}
	}
}

func flipCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}
