package edit

import "strings"

// splitLines splits text into lines that keep their terminators; the last
// line has none when the text does not end with a newline.
func splitLines(text string) []string {
	var lines []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// stripEOL drops a line's "\n" or "\r\n".
func stripEOL(line string) string {
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r")
}

// lineEnding is the text's line terminator: that of its first terminated
// line, "\n" when there is none.
func lineEnding(text string) string {
	i := strings.IndexByte(text, '\n')
	if i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withEOL gives every line break of s (LF or CRLF) the form eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

const bom = "\uFEFF"
