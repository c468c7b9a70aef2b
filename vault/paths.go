package vault

import (
	"path"
	"path/filepath"
	"strings"
)

// CleanRelPath normalises a user-supplied vault-relative path (slashes,
// "." segments, surrounding space) and reports whether it is acceptable:
// not empty, not absolute, no drive letter, no NUL, no ".." segment and
// nothing inside a skipped folder (.obsidian, .trash, .git, any other
// dot-entry, node_modules). It does not touch the file system.
func CleanRelPath(p string) (string, bool) {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" || driveLetter(p) {
		return "", false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", false
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", false
	}
	for _, seg := range strings.Split(c, "/") {
		if Skipped(seg) {
			return "", false
		}
	}
	return c, true
}

// driveLetter reports a Windows drive prefix ("C:/…", "c:rel") on every
// OS: filepath.VolumeName sees it only on Windows, and a path a Windows
// client sends must be refused the same way wherever the server runs.
func driveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}
