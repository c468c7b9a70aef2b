package vault

import "strings"

// ParseVersion changes whenever [Parse] gives a note other text, links or
// tags for the same bytes (an Excalidraw drawing became its text
// elements at 2). An index written by another version parses every note
// again once.
const ParseVersion = 2

// KindDrawing is the kind a search hit reports for an Excalidraw drawing.
// The file itself is Markdown (its Note.Kind stays KindMarkdown: it is
// renamed, moved and watched like any note).
const KindDrawing = "excalidraw"

// IsDrawing reports whether n is an Excalidraw drawing: a "*.excalidraw.md"
// file, or a note whose frontmatter has the plugin's "excalidraw-plugin"
// key. Its Body holds only the drawing's text elements (see drawingText).
func (n *Note) IsDrawing() bool {
	if n.Kind != KindMarkdown {
		return false
	}
	if strings.HasSuffix(strings.ToLower(n.Path), ".excalidraw.md") {
		return true
	}
	_, ok := n.Frontmatter["excalidraw-plugin"]
	return ok
}

// pluginSection reports whether h is one of the other headings the plugin
// writes; their content is its bookkeeping, not the person's text.
func pluginSection(h string) bool {
	switch strings.ToLower(h) {
	case "excalidraw data", "element links", "embedded files", "embeddable links":
		return true
	}
	return false
}

// trimBlockID drops the " ^id" the plugin appends to each text element.
func trimBlockID(l string) string {
	i := strings.LastIndex(l, " ^")
	if i < 0 || i+2 == len(l) {
		return l
	}
	for _, r := range l[i+2:] {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return l
		}
	}
	return l[:i]
}

// drawingText keeps what a person wrote in an Excalidraw drawing: the
// text elements (without their block ids) and any Markdown outside the
// plugin's data sections. The "Switch to EXCALIDRAW VIEW" banner, the
// section headings, the embedded-file table and the drawing's JSON
// (plain or compressed) become empty lines, so every kept line keeps its
// file line number.
func drawingText(body string) string {
	lines := strings.Split(body, "\n")
	const (
		prose   = iota // Markdown outside the plugin's sections
		text           // under "Text Elements"
		data           // any other plugin section, up to the closing %%
		drawing        // the JSON, up to the closing %% or the end
	)
	state := prose
	for i, l := range lines {
		t := strings.TrimSpace(l)
		heading := strings.TrimSpace(strings.TrimLeft(t, "#"))
		isHeading := strings.HasPrefix(t, "#") && heading != t
		switch {
		case strings.HasPrefix(t, "==⚠") && strings.Contains(t, "EXCALIDRAW VIEW"):
			lines[i] = ""
		case isHeading && strings.EqualFold(heading, "Text Elements"):
			state, lines[i] = text, ""
		case isHeading && strings.EqualFold(heading, "Drawing"):
			state, lines[i] = drawing, ""
		case isHeading && pluginSection(heading):
			state, lines[i] = data, ""
		case t == "%%":
			if state == drawing {
				state = prose // the closing %% of the data block
			}
			lines[i] = ""
		case state == text:
			lines[i] = trimBlockID(l)
		case state == data || state == drawing:
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
