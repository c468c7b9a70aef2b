package tools

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Paging of obsidian_read_note's body: a page is at most max_bytes of
// the body (the section's text with section), ending at a line break
// when one falls in its second half, so a 50k-line note never comes back
// whole.
const (
	readDefaultMaxBytes = 128 << 10
	// readMaxItems bounds the headings and links of one page: a page of
	// short lines full of links would otherwise outgrow the reply budget
	// through its link list (each link is ~200 bytes of JSON, twice).
	readMaxItems    = 1000
	readMinMaxBytes = 1 << 10
	readMaxMaxBytes = 4 << 20
)

// pageBody cuts out.Body to the page at offset and fills the paging
// fields. firstLine is the file line of the body's first byte. A paged
// reply (offset past 0, or a cut) keeps only the headings and links of
// the lines it returns.
func pageBody(out *ReadNoteOutput, firstLine, offset, maxBytes int) error {
	body := out.Body
	if offset < 0 || offset > len(body) {
		return fmt.Errorf("offset %d is outside the body (%d bytes)", offset, len(body))
	}
	if offset < len(body) && !utf8.RuneStart(body[offset]) {
		return fmt.Errorf("offset %d is inside a character; use a next_offset from a previous page", offset)
	}
	if maxBytes <= 0 {
		maxBytes = readDefaultMaxBytes
	}
	end := min(len(body), offset+maxBytes)
	if end < len(body) {
		if nl := strings.LastIndexByte(body[offset:end], '\n'); nl >= maxBytes/2 {
			end = offset + nl + 1
		}
		for end > offset && !utf8.RuneStart(body[end]) {
			end--
		}
	}
	end = capItems(body, offset, end, firstLine+strings.Count(body[:offset], "\n"), out)
	out.Offset = offset
	out.Truncated = end < len(body)
	if out.Truncated {
		out.NextOffset = end
	}
	if offset == 0 && !out.Truncated {
		return nil
	}
	out.Body = body[offset:end]
	from := firstLine + strings.Count(body[:offset], "\n")
	to := from + strings.Count(strings.TrimSuffix(out.Body, "\n"), "\n")
	out.Headings = slices.DeleteFunc(slices.Clone(out.Headings), func(h vault.Heading) bool { return !inLines(h.Line, from, to) })
	if out.Links != nil {
		out.Links = slices.DeleteFunc(slices.Clone(out.Links), func(l LinkInfo) bool { return !inLines(l.Line, from, to) })
	}
	return nil
}

// readPageSchema documents and bounds the paging arguments.
func readPageSchema(s *jsonschema.Schema) {
	setRange(s.Properties["max_bytes"], readMinMaxBytes, readMaxMaxBytes, readDefaultMaxBytes)
	s.Properties["offset"].Minimum = ptr(0.0)
}

// capItems moves end back to the start of the line where the page's
// headings and links would pass readMaxItems (keeping at least one line).
func capItems(body string, offset, end, from int, out *ReadNoteOutput) int {
	perLine := map[int]int{}
	for _, h := range out.Headings {
		perLine[h.Line]++
	}
	for _, l := range out.Links {
		perLine[l.Line]++
	}
	items, line := 0, from
	for pos := offset; pos < end; line++ {
		items += perLine[line]
		if items > readMaxItems && pos > offset {
			return pos
		}
		nl := strings.IndexByte(body[pos:end], '\n')
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	return end
}
