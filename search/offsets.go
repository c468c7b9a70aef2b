package search

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// maxMappedLine bounds the line length over which a column is mapped
// rune by rune when the file's line differs from the parsed one (NFC or
// invalid UTF-8); longer lines map to their start or end.
const maxMappedLine = 1 << 14

// fileText is a note's file as read now, for byte offsets into it. The
// parsed Body has LF line endings, no BOM and NFC text, so a Body offset
// is mapped through its line and column.
type fileText struct {
	raw   []byte
	lines []int // file line i+1 starts at raw[lines[i]]
}

// readFileText reads a markdown note's file through the vault handle; nil
// when it cannot be read (offsets then index the parsed text).
func (e *Engine) readFileText(ctx context.Context, n *vault.Note) *fileText {
	if n.Kind != vault.KindMarkdown || ctx.Err() != nil {
		return nil
	}
	fsys, err := e.snap.Files()
	if err != nil {
		return nil
	}
	raw, _, err := fsys.ReadFile(n.Path, max(2*n.Size, 1<<20))
	if err != nil {
		return nil
	}
	f := &fileText{raw: raw, lines: []int{0}}
	for i, b := range raw {
		if b == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// offset maps a byte offset of n.Body to a byte offset of the file. With
// no file (PDF text, unreadable file) it is the Body offset itself.
func (f *fileText) offset(n *vault.Note, bodyOff int) int {
	if f == nil {
		return bodyOff
	}
	lineStart := strings.LastIndexByte(n.Body[:bodyOff], '\n') + 1
	line := n.BodyLine + strings.Count(n.Body[:lineStart], "\n")
	col := bodyOff - lineStart
	parsed, _, _ := strings.Cut(n.Body[lineStart:], "\n")
	if line-1 >= len(f.lines) {
		return len(f.raw)
	}
	start := f.lines[line-1]
	end := len(f.raw)
	if line < len(f.lines) {
		end = f.lines[line] - 1
	}
	fileLine := bytes.TrimSuffix(f.raw[start:end], []byte("\r"))
	if line == 1 && bytes.HasPrefix(fileLine, []byte("\uFEFF")) {
		start, fileLine = start+3, fileLine[3:]
	}
	if string(fileLine) == parsed {
		return start + col
	}
	return start + mapColumn(fileLine, parsed, col)
}

// mapColumn finds the byte of a file line whose normalised prefix is col
// bytes of the parsed line.
func mapColumn(fileLine []byte, parsed string, col int) int {
	switch {
	case col <= 0:
		return 0
	case col >= len(parsed):
		return len(fileLine)
	case len(fileLine) > maxMappedLine:
		return 0
	}
	for k := 0; k <= len(fileLine); {
		if normalized(fileLine[:k]) >= col {
			return k
		}
		if k == len(fileLine) {
			break
		}
		_, size := utf8.DecodeRune(fileLine[k:])
		k += size
	}
	return len(fileLine)
}

// normalized is the byte length of b as the vault parser stores it.
func normalized(b []byte) int {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return len(norm.NFC.String(s))
}
