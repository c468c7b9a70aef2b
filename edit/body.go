package edit

import "strings"

// ReplaceBody returns the note src with everything after its frontmatter
// block (the whole text when it has none) replaced by body, written with
// the note's line endings. The frontmatter block and a BOM are kept byte
// for byte; an unclosed block is an error.
func ReplaceBody(src []byte, body string) ([]byte, error) {
	b, err := splitNote(src)
	if err != nil {
		return nil, err
	}
	keep := 0
	if b.found {
		keep = b.close + 1
	}
	body = strings.ReplaceAll(body, "\r\n", "\n")
	if b.eol == "\r\n" {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	head := strings.Join(b.lines[:keep], "")
	if keep > 0 && !strings.HasSuffix(head, "\n") {
		head += b.eol // the closing --- was the last line, without terminator
	}
	return []byte(b.bom + head + body), nil
}
