package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// expandHome replaces a leading "~" (alone, or before / or \) with the
// user's home folder. A shell expands it on the command line, but MCP
// clients start the server from a JSON config without a shell, so
// "--vault ~/Notes" would otherwise name a folder called "~". "~user" is
// left alone: it cannot be resolved the same way on every OS.
func expandHome(p string, home func() (string, error)) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, `~\`) {
		return p, nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("expanding %s: %w", p, err)
	}
	if p == "~" {
		return h, nil
	}
	rest := strings.TrimLeft(p[2:], `/\`)
	return filepath.Join(h, filepath.FromSlash(strings.ReplaceAll(rest, `\`, "/"))), nil
}

// userPath expands "~" with the real home folder.
func userPath(p string) (string, error) { return expandHome(p, os.UserHomeDir) }
